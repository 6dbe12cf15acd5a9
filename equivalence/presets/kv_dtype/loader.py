"""Import one version's real `model_runner.py` (and moved `kv_cache_dtype.py`) with real torch.

Each version is imported under a private sys.modules context (see `stubs.PrivateModules`):
sglang modules it does not need are stubs, the modules under test are executed from the
tree's files.  After import the stubs are armed, and the loader checks that no stub stands in
for anything the code under test needs (the new module, the runner class, a helper).
"""

from __future__ import annotations

import ast
import logging
import types
from dataclasses import dataclass
from pathlib import Path

from codemods.refactoring import tree

from . import platform
from .analysis import METHOD, RUNNER_CLASS, AnalysisError, Shape, analyse
from ...engine.faithful import HELPERS
from ...engine.load import LoadError, exec_module
from ...engine.stubs import PrivateModules, StubScope, is_stub

RUNNER_PATH = "sglang/srt/model_executor/model_runner.py"
KV_PATH = "sglang/srt/mem_cache/kv_cache_dtype.py"
RUNNER_NAME = "sglang.srt.model_executor.model_runner"
KV_NAME = "sglang.srt.mem_cache.kv_cache_dtype"


@dataclass
class Version:
    label: str
    root: Path
    shape: Shape
    modules: dict[str, types.ModuleType]  # "runner" / "kv" -> the real loaded module
    runner_cls: type
    entry: types.FunctionType  # runs the initialiser's kv statement(s) with `self` bound
    stub_scope: StubScope

    def core_function(self) -> types.FunctionType:
        unit = next(u for u in self.shape.units if u.role == "core")
        if unit.module == "kv":
            return self.modules["kv"].__dict__[METHOD]
        fn = self.runner_cls.__dict__[METHOD]
        return fn.__func__ if isinstance(fn, staticmethod) else fn

    def code_objects(self) -> dict[str, types.CodeType]:
        out = {"entry": self.entry.__code__, "core": self.core_function().__code__}
        if any(u.role == "wrapper" for u in self.shape.units):
            out["wrapper"] = self.runner_cls.__dict__[METHOD].__code__
        return out


def find_root(path: Path) -> Path:
    """The folder holding the `sglang` package: the codemod's rule (`codemods.refactoring.tree`)."""
    try:
        return tree.find_root(Path(path), RUNNER_PATH).root
    except tree.NotASourceTree as e:
        raise LoadError(f"{path}: {e}") from None


def load_version(path: Path, label: str | None = None, overrides: dict[str, str] | None = None) -> Version:
    """Load the version in `path`; `overrides` maps a relative path to replacement source."""
    root = find_root(path)
    overrides = overrides or {}
    texts = {}
    for rel in (RUNNER_PATH, KV_PATH):
        if rel in overrides:
            texts[rel] = overrides[rel]
        elif (root / rel).is_file():
            texts[rel] = (root / rel).read_text()
    runner_file, kv_file = str(root / RUNNER_PATH), str(root / KV_PATH)
    try:
        shape = analyse(texts[RUNNER_PATH], runner_file, texts.get(KV_PATH), kv_file)
    except AnalysisError as e:
        raise LoadError(str(e)) from None
    scope = StubScope(label or str(path))
    modules: dict[str, types.ModuleType] = {}
    with PrivateModules(scope):
        if KV_PATH in texts:
            modules["kv"] = exec_module(KV_NAME, kv_file, texts[KV_PATH])
        modules["runner"] = exec_module(RUNNER_NAME, runner_file, texts[RUNNER_PATH])
    scope.armed = True
    for module in modules.values():
        _install_helpers(module)
    runner_cls = _check_runner_class(modules["runner"], runner_file)
    _check_no_stub_needed(shape, modules, runner_file)
    entry = _compile_entry(shape, modules["runner"])
    return Version(label or str(path), root, shape, modules, runner_cls, entry, scope)


def _install_helpers(module: types.ModuleType) -> None:
    for name, value in list(vars(module).items()):
        if is_stub(value):
            stub_name = object.__getattribute__(value, "_name")
            source = stub_name.rpartition(".")[0]
            if (source, name) in HELPERS:
                module.__dict__[name] = HELPERS[(source, name)]


def _check_runner_class(module: types.ModuleType, filename: str) -> type:
    cls = module.__dict__.get(RUNNER_CLASS)
    if not isinstance(cls, type) or cls.__module__ != module.__name__:
        raise LoadError(f"{filename}: {RUNNER_CLASS} is not the class defined in the file ({cls!r})")
    method = cls.__dict__.get(METHOD)
    if method is not None:
        fn = method.__func__ if isinstance(method, staticmethod) else method
        if not isinstance(fn, types.FunctionType) or fn.__code__.co_filename != filename:
            raise LoadError(f"{filename}: {RUNNER_CLASS}.{METHOD} is not the function from the file ({fn!r})")
    return cls


def _check_no_stub_needed(shape: Shape, modules: dict, runner_file: str) -> None:
    """A stub in a global the code under test reads would answer for the real thing."""
    for role, names in shape.globals_read.items():
        module = modules.get(role)
        if module is None:
            raise LoadError(f"{runner_file}: the code under test needs the {role} module, not in the tree")
        for name in sorted(names):
            value = module.__dict__.get(name)
            if name in platform.PLATFORM_GLOBALS:
                # set per configuration by the harness: only once bound the sglang way
                try:
                    platform.check(module, shape.trees[role], module.__file__, name)
                except platform.PlatformError as e:
                    raise LoadError(str(e)) from None
                continue
            if is_stub(value):
                stub_name = object.__getattribute__(value, "_name")
                raise LoadError(
                    f"{module.__file__}: global {name!r} read by the code under test is a stub "
                    f"({stub_name}): its real module is not loaded"
                )
            if name == "kv_cache_dtype" and value is not modules.get("kv"):
                raise LoadError(f"{module.__file__}: global kv_cache_dtype is not this version's {KV_PATH}")


def _compile_entry(shape: Shape, runner: types.ModuleType) -> types.FunctionType:
    """A function `(self)` whose body is exactly the call-site statement(s), line numbers kept."""
    fn = ast.FunctionDef(
        name="__kv_entry__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg("self")], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=shape.entry_stmts,
        decorator_list=[],
        returns=None,
        type_params=[],
        lineno=shape.entry_stmts[0].lineno,
        col_offset=0,
        end_lineno=shape.entry_stmts[-1].end_lineno,
        end_col_offset=0,
    )
    fn.args.args[0].lineno = fn.args.args[0].end_lineno = fn.lineno
    fn.args.args[0].col_offset = fn.args.args[0].end_col_offset = 0
    module = ast.Module(body=[fn], type_ignores=[])
    namespace: dict = {}
    exec(compile(module, shape.runner_file, "exec"), runner.__dict__, namespace)
    return namespace["__kv_entry__"]


def module_loggers(version: Version) -> list[logging.Logger]:
    return [m.__dict__["logger"] for m in version.modules.values() if isinstance(m.__dict__.get("logger"), logging.Logger)]
