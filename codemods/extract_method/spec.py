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
from pysource.classes import files_defining
from pysource.layout import packages_held
from pysource.modules import module_files
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
    class_module: Optional[str] = None  # MODULE of MODULE.CLASS.METHOD: the module defining the class
    no_wrapper: bool = False  # --no-wrapper: no method left, the callers call the function
    positional: bool = False  # --positional: the function's parameters positional-or-keyword
    # CLASS.M1,M2,...: several methods moved in one run (`group`), method_name the first of them;
    # `names`: --name METHOD=FUNCTION for each method that gets another name
    methods: Sequence[str] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    write_back: Optional[str] = None  # --write-back ATTR[=FLAG]
    leave_overrides: bool = False  # --leave-overrides: a property's overrides left unread (--no-wrapper)


def parse_narrow(text: str) -> Narrow:
    """`PARAM.ATTR[=NEW]` -> Narrow (NEW defaults to PARAM_ATTR); `PARAM` alone: each attribute
    the function reads of it (`Narrow.attribute` empty, expanded at step 4)."""
    head, _, new = text.partition("=")
    param, dot, attribute = head.partition(".")
    new = new or (f"{param}_{attribute}" if attribute else "")
    if not _IDENT.match(param) or dot and not (_IDENT.match(attribute) and _IDENT.match(new)) or (new and not dot):
        raise BadInput(f"--narrow expects PARAM, PARAM.ATTR or PARAM.ATTR=NEW (identifiers), got {text!r}")
    return Narrow(param, attribute, new)


def parse_write_back(text: Optional[str]) -> Optional[tuple[str, str]]:
    """`ATTR[=FLAG]` -> (ATTR, FLAG or "")."""
    if text is None:
        return None
    attribute, eq, flag = text.partition("=")
    if not _IDENT.match(attribute) or (eq and not _IDENT.match(flag)):
        raise BadInput(f"--write-back expects ATTR or ATTR=FLAG (identifiers), got {text!r}")
    return attribute, flag


def _check(spec: MethodSpec) -> None:
    names = [("class", spec.class_name), ("method", spec.method_name), ("--name", spec.function_name or "x"),
             ("--pass-self", spec.pass_self or "x"), *(("--move-global", g) for g in spec.moved_globals),
             *(("--rename", x) for pair in spec.renames.items() for x in pair),
             *(("method", m) for m in spec.methods), *(("--name", x) for pair in spec.names.items() for x in pair)]
    for what, name in names:
        if not _IDENT.match(name):
            raise BadInput(f"{what}: {name!r} is not a Python identifier")
    _check_target(spec.target_module)
    if spec.class_module is not None and not all(_IDENT.match(p) for p in spec.class_module.split(".")):
        raise BadInput(f"MODULE.CLASS.METHOD: {spec.class_module!r} is not a dotted module name")
    if spec.pass_self == "self":
        raise BadInput("--pass-self: name the instance other than `self` (e.g. model_runner)")
    if spec.pass_self and spec.renames:
        raise BadInput("--rename names inferred parameters; with --pass-self there are none")
    write_back = parse_write_back(spec.write_back)
    if write_back and spec.pass_self:
        raise BadInput("--write-back with --pass-self: with the instance whole the function writes it itself")
    if write_back and write_back[1] == "self":
        raise BadInput("--write-back ATTR=FLAG: FLAG names a local of the callers, not self")
    if spec.leave_overrides and not spec.no_wrapper:
        raise BadInput("--leave-overrides goes with --no-wrapper (a property's wrapper keeps every override read)")


def find_class(checkout: Checkout, class_name: str) -> str:
    """The one file of the package defining `class class_name` at top level (relative to the
    folder holding the package)."""
    package = checkout.package_root / checkout.package
    found = files_defining(checkout, class_name, [checkout.package])
    if not found:
        raise BadInput(f"no file under {package} defines class {class_name} at top level")
    if len(found) > 1:
        raise BadInput(f"class {class_name} is defined in {len(found)} files ({', '.join(found)}): "
                       f"say which with MODULE.{class_name}.METHOD or --source FILE")
    return found[0]


def source_of(ctx: Context, module: str) -> Optional[str]:
    """The file of `module` in the tree (relative to the folder holding the package), or None."""
    return next((rel for rel in module_files(module) if (ctx.root / rel).is_file()), None)


def module_file(ctx: Context, module: str) -> str:
    """The file of `module`, the MODULE of MODULE.CLASS.METHOD; `BadInput` when the tree has none."""
    found = source_of(ctx, module)
    if found is None:
        raise BadInput(f"{module} (of {module}.CLASS.METHOD) is no module of this tree: "
                       f"neither {' nor '.join(str(ctx.root / rel) for rel in module_files(module))} exists")
    return found


def _check_target(target: str) -> None:
    if not all(_IDENT.match(part) for part in target.split(".")):
        raise BadInput(f"TARGET.MODULE: {target!r} is not a dotted module name (identifiers joined by dots, "
                       f"such as sglang.srt.utils.numa_utils)")


def context_for(path: Path, spec: MethodSpec, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the target's package (`pysource.layout`'s one PATH rule);
    a target outside every package PATH holds is named as such, not as a bad tree."""
    _check_target(spec.target_module)
    package = spec.target_module.split(".")[0]
    try:
        return Context.open(Path(path), f"{package}/__init__.py", format=format)
    except BadInput:
        held = packages_held(Path(path))
        if held and package not in held:
            raise BadInput(f"TARGET.MODULE {spec.target_module}: its package {package} is not in this tree, which "
                           f"holds {', '.join(held)}: the function moves to a module of the class's package "
                           f"(such as {held[0]}.{spec.target_module.partition('.')[2]})", Path(path)) from None
        raise


def recipe_for(ctx: Context, spec: MethodSpec) -> Recipe:
    """The engine's recipe for `spec`, the class found in `ctx`'s checkout unless `--source` names it."""
    _check(spec)
    source = spec.source_file or (module_file(ctx, spec.class_module) if spec.class_module else None)
    if spec.source_file and spec.class_module and Path(spec.source_file).as_posix() != source_of(ctx, spec.class_module):
        raise BadInput(f"--source {spec.source_file} is not the file of {spec.class_module}, the module "
                       f"{spec.class_module}.{spec.class_name}.{spec.method_name} names")
    if source is None:
        ctx.checkout.prefetch(spec.class_name.encode(), spec.method_name.encode())  # both searched in one pass
        source = find_class(ctx.checkout, spec.class_name)
    source = Path(source).as_posix()
    if source[:-3].replace("/", ".") == spec.target_module:
        raise BadInput(f"TARGET.MODULE {spec.target_module} is the module the class is in")
    return Recipe(
        class_name=spec.class_name, method_name=spec.method_name, source_file=source,
        target_module=spec.target_module, function_name=spec.function_name or "",
        renames=tuple(spec.renames.items()), pass_self=spec.pass_self,
        narrows=tuple(parse_narrow(n) if isinstance(n, str) else n for n in spec.narrows),
        moved_globals=tuple(spec.moved_globals), no_wrapper=spec.no_wrapper, positional=spec.positional,
        write_back=parse_write_back(spec.write_back), leave_overrides=spec.leave_overrides)
