"""What a user asks for (`SuperclassSpec`), checked, and the run's context.

CLASS's file, unless given (`--source`, or MODULE.CLASS), is the one file of the package that
defines the class at top level, as for the other kinds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from codemods.core.class_target import class_file, open_for_target
from codemods.core.context import Context
from codemods.core.errors import BadInput

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


@dataclass(frozen=True)
class SuperclassSpec:
    class_name: str  # CLASS: the class the members leave
    target: str  # TARGET.MODULE.BASE
    methods: Sequence[str]  # --methods: the members that move (methods, properties)
    state: Optional[Sequence[str]] = None  # --state: the attributes the base's __init__ sets (None: inferred)
    rebase: Sequence[str] = ()  # --rebase: subclasses of CLASS that inherit from the base instead (step 2)
    all_init: bool = False  # --all-init: the base's __init__ is all of CLASS.__init__
    source_file: Optional[str] = None  # --source FILE (relative to the folder holding the package)
    class_module: Optional[str] = None  # MODULE of MODULE.CLASS

    @property
    def target_module(self) -> str:
        return self.target.rpartition(".")[0]

    @property
    def base(self) -> str:
        return self.target.rpartition(".")[2]


def check(spec: SuperclassSpec) -> None:
    names = [("class", spec.class_name), *(("--methods", m) for m in spec.methods),
             *(("--state", s) for s in spec.state or ()), *(("--rebase", s) for s in spec.rebase)]
    for what, name in names:
        if not _IDENT.match(name):
            raise BadInput(f"{what}: {name!r} is not a Python identifier")
    parts = spec.target.split(".")
    if len(parts) < 2 or not all(_IDENT.match(p) for p in parts):
        raise BadInput(f"TARGET.MODULE.BASE: {spec.target!r} is not a dotted module name followed by a class name "
                       f"(such as sglang.srt.mem_cache.allocator.pools.PoolBase)")
    if not spec.methods:
        raise BadInput("--methods: name at least one method to move")
    if len(set(spec.methods)) != len(spec.methods):
        raise BadInput("--methods: a method is named twice")
    if "__init__" in spec.methods:
        raise BadInput("--methods: __init__ is not moved whole; name the attributes the base's __init__ sets "
                       "with --state")
    if spec.state is not None and len(set(spec.state)) != len(spec.state):
        raise BadInput("--state: an attribute is named twice")
    if spec.all_init and spec.state is not None:
        raise BadInput("--all-init and --state exclude each other: --all-init moves every attribute __init__ sets")
    if spec.class_name in spec.rebase:
        raise BadInput(f"--rebase: {spec.class_name} is the class the base comes from; name its subclasses")
    if spec.base == spec.class_name:
        raise BadInput(f"TARGET.MODULE.BASE: the base cannot be named {spec.class_name}, as the class")
    if spec.class_module is not None and not all(_IDENT.match(p) for p in spec.class_module.split(".")):
        raise BadInput(f"MODULE.CLASS: {spec.class_module!r} is not a dotted module name")


def context_for(path: Path, spec: SuperclassSpec, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the target's package."""
    check(spec)
    return open_for_target(path, spec.target, "TARGET.MODULE.BASE", format=format)


def source_file(ctx: Context, spec: SuperclassSpec) -> str:
    """CLASS's file, relative to the folder holding the package."""
    return class_file(ctx, spec.class_name, spec.class_module, spec.source_file)
