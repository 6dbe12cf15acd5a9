"""Platform globals (`_is_hip`, `fp8_dtype`, `torch`): checked bound the sglang way at load.

The harness sets these per configuration (`observe.Session.run`), in every loaded module whose
code under test reads them.  That is only faithful when the module binds them exactly as
sglang does, so that in sglang they hold what the configuration models:
- `_is_hip = is_hip()`, the only module-level binding, with `is_hip` sglang's own
  (imported from `sglang.srt.utils` or one of its submodules);
- `fp8_dtype` imported (once) from a sglang `fp8_kernel` module;
- `torch` the real torch, bound by `import torch...` statements only.
Anything else (the name never bound, so sglang raises NameError; a hard-coded `_is_hip = True`;
`fp8_dtype` chosen some other way) would be hidden by the per-configuration value, so the
version is refused at load with a LoadError naming the file and line.
"""

from __future__ import annotations

import ast
import re
import types

import torch

from ...engine.bindings import bindings
from ...engine.stubs import is_stub

PLATFORM_GLOBALS = ("_is_hip", "fp8_dtype", "torch")

_IS_HIP_STUB = re.compile(r"^sglang\.srt\.utils(\.[\w.]+)?\.is_hip$")
_FP8_STUB = re.compile(r"^sglang(\.\w+)*\.fp8_kernel\.fp8_dtype$")

EXPECTED = {
    "_is_hip": "`_is_hip = is_hip()` with is_hip imported from sglang.srt.utils",
    "fp8_dtype": "`from sglang.srt.layers.quantization.fp8_kernel import fp8_dtype`",
    "torch": "`import torch` (the real torch)",
}


class PlatformError(Exception):
    """A platform global is not bound the sglang way (message names file and line)."""


def _stub_name(value) -> str | None:
    return object.__getattribute__(value, "_name") if is_stub(value) else None


def _first_read(tree: ast.Module, name: str) -> int:
    lines = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return min(lines, default=1)


def check(module: types.ModuleType, tree: ast.Module, filename: str, name: str) -> None:
    """Raise PlatformError unless module global `name` is bound the sglang way."""
    found = bindings(tree, name)
    where = f"{filename}:{found[0].lineno if found else _first_read(tree, name)}"
    if not found:
        raise PlatformError(f"{where}: the code under test reads global {name!r}, which the module never binds "
                            f"(NameError in sglang); expected {EXPECTED[name]}")
    value = module.__dict__.get(name)
    if name == "torch":
        bad = [n for n in found if not isinstance(n, ast.Import)]
        if bad or value is not torch:
            line = bad[0].lineno if bad else found[-1].lineno
            raise PlatformError(f"{filename}:{line}: global 'torch' read by the code under test is not the real "
                                f"torch ({value!r}); expected {EXPECTED[name]}")
        return
    if len(found) > 1:
        raise PlatformError(f"{filename}:{found[1].lineno}: global {name!r} is bound more than once at module level "
                            f"(first at line {found[0].lineno}); the harness sets it per configuration, so it "
                            f"must be bound once, as {EXPECTED[name]}")
    stmt = found[0]
    shown = ast.unparse(stmt).splitlines()[0]
    problem = None
    if name == "_is_hip":
        is_hip = _stub_name(module.__dict__.get("is_hip"))
        shaped = (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], ast.Name) and ast.unparse(stmt.value) == "is_hip()")
        if not shaped:
            problem = f"is bound by `{shown}`"
        elif is_hip is None or not _IS_HIP_STUB.match(is_hip):
            problem = f"calls an is_hip that is not sglang's ({module.__dict__.get('is_hip')!r})"
        elif _stub_name(value) != is_hip + "(...)":
            problem = f"holds {value!r} after import, not is_hip()'s result"
    elif name == "fp8_dtype":
        stub = _stub_name(value)
        if not isinstance(stmt, ast.ImportFrom) or stub is None or not _FP8_STUB.match(stub):
            problem = f"is bound by `{shown}` ({value!r})"
    if problem:
        raise PlatformError(f"{filename}:{found[0].lineno}: global {name!r} read by the code under test {problem}; "
                            f"the harness sets it per configuration, which is faithful only for {EXPECTED[name]}")
