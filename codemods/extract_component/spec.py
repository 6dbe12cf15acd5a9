"""What a user asks for (`ComponentSpec`), checked, and the run's context.

The owner's file, unless given (`--source`, or MODULE.CLASS), is the one file of the package
that defines the class at top level, as for `codemods.extract_method`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Sequence

from codemods.core.class_target import class_file, open_for_target
from codemods.core.context import Context
from codemods.core.errors import BadInput

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


@dataclass(frozen=True)
class ComponentSpec:
    class_name: str  # the owner
    target: str  # TARGET.MODULE.COMPONENT
    methods: Sequence[str]  # --methods
    attr: str  # --attr: the owner's attribute holding the component
    pass_owner: Optional[str] = None  # --pass-owner NAME
    keep_wrappers: bool = False  # --keep-wrappers
    fields: Mapping[str, str] = field(default_factory=dict)  # --field ATTR=NAME
    state: Sequence[str] = ()  # --state ATTR
    source_file: Optional[str] = None  # --source FILE (relative to the folder holding the package)
    class_module: Optional[str] = None  # MODULE of MODULE.CLASS

    @property
    def target_module(self) -> str:
        return self.target.rpartition(".")[0]

    @property
    def component(self) -> str:
        return self.target.rpartition(".")[2]


def check(spec: ComponentSpec) -> None:
    names = [("class", spec.class_name), ("--attr", spec.attr), ("--pass-owner", spec.pass_owner or "x"),
             *(("--methods", m) for m in spec.methods), *(("--state", s) for s in spec.state),
             *(("--field", n) for n in spec.fields.values())]
    for what, name in names:
        if not _IDENT.match(name):
            raise BadInput(f"{what}: {name!r} is not a Python identifier")
    for attr in spec.fields:
        if not all(_IDENT.match(p) for p in attr.split(".")):
            raise BadInput(f"--field: {attr!r} is not an attribute (or chain of attributes) of the owner")
    parts = spec.target.split(".")
    if len(parts) < 2 or not all(_IDENT.match(p) for p in parts):
        raise BadInput(f"TARGET.MODULE.COMPONENT: {spec.target!r} is not a dotted module name followed by a class "
                       f"name (such as sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter)")
    if not spec.methods:
        raise BadInput("--methods: name at least one method to move")
    if len(set(spec.methods)) != len(spec.methods):
        raise BadInput("--methods: a method is named twice")
    if spec.pass_owner == "self":
        raise BadInput("--pass-owner: name the owner other than `self` (e.g. scheduler)")
    if spec.class_module is not None and not all(_IDENT.match(p) for p in spec.class_module.split(".")):
        raise BadInput(f"MODULE.CLASS: {spec.class_module!r} is not a dotted module name")


def context_for(path: Path, spec: ComponentSpec, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the target's package."""
    check(spec)
    return open_for_target(path, spec.target, "TARGET.MODULE.COMPONENT", format=format)


def source_file(ctx: Context, spec: ComponentSpec) -> str:
    """The owner's file, relative to the folder holding the package."""
    return class_file(ctx, spec.class_name, spec.class_module, spec.source_file)
