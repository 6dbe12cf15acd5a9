"""What a user asks for (`PullUpSpec`), checked, and the run's context.

BASE's file, unless given (`--source`, or MODULE.BASE), is the one file of the package that
defines the class at top level, as for the other kinds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from codemods.core.class_target import class_file
from codemods.core.context import Context
from codemods.core.errors import BadInput

_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


@dataclass(frozen=True)
class PullUpSpec:
    base: str  # BASE: the class the members go up into
    members: Sequence[str] = ()  # --members: methods every direct subclass defines alike (step 1)
    init_tail: bool = False  # --init-tail: what every subclass's __init__ runs right after super().__init__ (step 2)
    source_file: Optional[str] = None  # --source FILE (relative to the folder holding the package)
    base_module: Optional[str] = None  # MODULE of MODULE.BASE

    @property
    def steps(self) -> range:
        """The steps asked for: 1 (members), 2 (the tail of __init__), or both."""
        return range(1 if self.members else 2, 3 if self.init_tail else 2)


def check(spec: PullUpSpec) -> None:
    for what, name in [("BASE", spec.base), *(("--members", m) for m in spec.members)]:
        if not _IDENT.match(name):
            raise BadInput(f"{what}: {name!r} is not a Python identifier")
    if not spec.members and not spec.init_tail:
        raise BadInput("nothing asked: name the methods to pull up with --members, or pass --init-tail")
    if len(set(spec.members)) != len(spec.members):
        raise BadInput("--members: a method is named twice")
    if "__init__" in spec.members:
        raise BadInput("--members: __init__ is not pulled up whole; --init-tail pulls up what every subclass's "
                       "__init__ runs after super().__init__(...)")
    if spec.base_module is not None and not all(_IDENT.match(p) for p in spec.base_module.split(".")):
        raise BadInput(f"MODULE.BASE: {spec.base_module!r} is not a dotted module name")


def context_for(path: Path, spec: PullUpSpec, *, format: bool = True) -> Context:
    """The run on PATH, which must hold the package (`sglang`, or MODULE's)."""
    check(spec)
    package = (spec.base_module or "sglang").split(".")[0]
    return Context.open(Path(path), f"{package}/__init__.py", format=format)


def source_file(ctx: Context, spec: PullUpSpec) -> str:
    """BASE's file, relative to the folder holding the package."""
    return class_file(ctx, spec.base, spec.base_module, spec.source_file)
