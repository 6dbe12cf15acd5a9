"""What a user asks for (`MethodSpec`), checked and turned into the engine's `Recipe`.

The source file, unless given, is the one file of the package that defines the class at top
level (found by a text search of the tree: `^class NAME`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

from codemods.core.context import Context
from pysource.checkout import Checkout
from codemods.core.errors import BadInput
from codemods.extract_method.recipe import Narrow, Recipe

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


@dataclass(frozen=True)
class MethodSpec:
    class_name: str
    method_name: str
    target_module: str  # dotted, e.g. sglang.srt.utils.numa_utils
    function_name: Optional[str] = None  # --name; default: the method's name
    renames: Mapping[str, str] = field(default_factory=dict)  # --rename X=NEW (inferred parameter names)
    narrows: Sequence[str] = ()  # --narrow PARAM.ATTR[=NEW] (step 4)
    pass_self: Optional[str] = None  # --pass-self NAME
    moved_globals: Sequence[str] = ()  # --move-global NAME
    source_file: Optional[str] = None  # --source FILE (relative to the folder holding the package)


def parse_narrow(text: str) -> Narrow:
    """`PARAM.ATTR[=NEW]` -> Narrow (NEW defaults to PARAM_ATTR); `PARAM` alone: each attribute
    the function reads of it (`Narrow.attribute` empty, expanded at step 4)."""
    head, _, new = text.partition("=")
    param, dot, attribute = head.partition(".")
    new = new or (f"{param}_{attribute}" if attribute else "")
    if not _IDENT.match(param) or dot and not (_IDENT.match(attribute) and _IDENT.match(new)) or (new and not dot):
        raise BadInput(f"--narrow expects PARAM, PARAM.ATTR or PARAM.ATTR=NEW (identifiers), got {text!r}")
    return Narrow(param, attribute, new)


def _check(spec: MethodSpec) -> None:
    names = [("class", spec.class_name), ("method", spec.method_name), ("--name", spec.function_name or "x"),
             ("--pass-self", spec.pass_self or "x"), *(("--move-global", g) for g in spec.moved_globals),
             *(("--rename", x) for pair in spec.renames.items() for x in pair)]
    for what, name in names:
        if not _IDENT.match(name):
            raise BadInput(f"{what}: {name!r} is not a Python identifier")
    if not all(_IDENT.match(part) for part in spec.target_module.split(".")):
        raise BadInput(f"TARGET.MODULE: {spec.target_module!r} is not a dotted module name")
    if spec.pass_self == "self":
        raise BadInput("--pass-self: name the instance other than `self` (e.g. model_runner)")
    if spec.pass_self and spec.renames:
        raise BadInput("--rename names inferred parameters; with --pass-self there are none")


def find_class(checkout: Checkout, class_name: str) -> str:
    """The one file of the package defining `class class_name` at top level (relative to the
    folder holding the package)."""
    pattern = re.compile(rb"^class\s+" + re.escape(class_name.encode()) + rb"\b", re.M)
    package = checkout.package_root / checkout.package
    found = sorted(p.relative_to(checkout.package_root).as_posix() for p in checkout.select(
        lambda data: pattern.search(data) is not None, mentioning=class_name.encode()) if p.is_relative_to(package))
    if not found:
        raise BadInput(f"no file under {package} defines class {class_name} at top level")
    if len(found) > 1:
        raise BadInput(f"class {class_name} is defined in {len(found)} files ({', '.join(found)}): "
                       f"say which with --source FILE")
    return found[0]


def context_for(path: Path, spec: MethodSpec, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the target's package (`pysource.layout`'s one PATH rule)."""
    return Context.open(Path(path), f"{spec.target_module.split('.')[0]}/__init__.py", format=format)


def recipe_for(ctx: Context, spec: MethodSpec) -> Recipe:
    """The engine's recipe for `spec`, the class found in `ctx`'s checkout unless `--source` names it."""
    _check(spec)
    source = spec.source_file
    if source is None:
        source = find_class(ctx.checkout, spec.class_name)
    source = Path(source).as_posix()
    if source[:-3].replace("/", ".") == spec.target_module:
        raise BadInput(f"TARGET.MODULE {spec.target_module} is the module the class is in")
    return Recipe(
        class_name=spec.class_name, method_name=spec.method_name, source_file=source,
        target_module=spec.target_module, function_name=spec.function_name or "",
        renames=tuple(spec.renames.items()), pass_self=spec.pass_self,
        narrows=tuple(parse_narrow(n) if isinstance(n, str) else n for n in spec.narrows),
        moved_globals=tuple(spec.moved_globals))
