"""What an extraction of a superclass works with: how far a tree has got (`Reading`) and the run
the step reads (`SuperclassRun`: the spec, where the files are, CLASS as the run began and the
`analysis.Design`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import libcst as cst

from codemods.core.context import Context
from codemods.extract_superclass.analysis import Design
from codemods.extract_superclass.spec import SuperclassSpec


def defined(cls: ast.ClassDef) -> set[str]:
    """The names a class body defines with `def`."""
    return {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def names_base(cls: ast.ClassDef, base: str) -> bool:
    return any((b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None) == base
               for b in cls.bases)


@dataclass(frozen=True)
class Reading:
    """A tree as the step's `done` reads it: CLASS and the base (None: TARGET.MODULE does not
    define it)."""

    cls: ast.ClassDef
    base: Optional[ast.ClassDef]
    spec: SuperclassSpec
    subclasses: Mapping[str, ast.ClassDef] = field(default_factory=dict)  # --rebase's, by name

    @property
    def applied(self) -> bool:
        """The base holds every member asked for, CLASS none, and CLASS inherits from the base."""
        return (self.base is not None and set(self.spec.methods) <= defined(self.base)
                and not set(self.spec.methods) & defined(self.cls) and names_base(self.cls, self.spec.base))

    @property
    def has_members(self) -> bool:
        return set(self.spec.methods) <= defined(self.cls)


@dataclass(frozen=True)
class SuperclassRun:
    ctx: Context
    spec: SuperclassSpec
    source: Path  # CLASS's module
    target: Path  # the base's module (`source` when it is the same)
    source_module: str  # dotted
    cls_ast: ast.ClassDef
    design: Design
    originals: Mapping[Path, Optional[str]]
    render: Callable[[cst.Module], str]
    subclasses: Sequence = ()  # steps.rebase.Sub: --rebase's

    @property
    def same_module(self) -> bool:
        return self.source == self.target
