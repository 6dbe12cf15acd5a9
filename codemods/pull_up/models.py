"""What a pull-up works with: the files read (`Source`), the design of each step (`MembersDesign`,
`TailDesign`), how far a tree has got (`Reading`) and the run the steps read (`PullUpRun`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

import libcst as cst

from codemods.core.context import Context
from codemods.pull_up.family import Cls, Family
from codemods.pull_up.spec import PullUpSpec


@dataclass(frozen=True)
class Source:
    """One file as the analysis read it: its text, `ast`, module and the package its relative imports
    resolve against."""

    path: Path
    text: str
    tree: ast.Module
    module: str
    package: Optional[str]

    def line_of(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1)


@dataclass(frozen=True)
class MembersDesign:
    """Step 1: the members pulled up, each from the copy of `template[m]` (the first direct
    subclass), those that replace a definition of BASE's own, the imports BASE's module gains."""

    members: tuple[str, ...]
    template: Mapping[str, Cls]
    replaces: tuple[str, ...]
    imports: tuple[cst.SimpleStatementLine, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TailDesign:
    """Step 2: the statements appended to BASE.__init__ (the template's, in that order) and, per
    direct subclass, the indices in its __init__'s LibCST body of the statements that go."""

    template: Cls
    statements: tuple[int, ...]  # indices into the template's __init__ body (LibCST), in the tail's order
    removed: Mapping[str, tuple[int, ...]]  # qualname -> indices into its __init__ body (LibCST)
    texts: tuple[str, ...]  # each statement's code, for the messages
    imports: tuple[cst.SimpleStatementLine, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reading:
    """A tree as the steps' `done` read it: members BASE holds and no direct subclass defines, and
    whether the subclasses' __init__ still share a statement after super().__init__(...)."""

    members_applied: bool
    tail_empty: bool


@dataclass(frozen=True)
class PullUpRun:
    ctx: Context
    spec: PullUpSpec
    source: Path  # BASE's file
    family: Family
    members: Optional[MembersDesign]
    tail: Optional[TailDesign]
    render: Callable[[cst.Module], str]
    package: Optional[str] = None  # the package BASE's module's relative imports resolve against
    originals: Mapping[Path, Optional[str]] = field(default_factory=dict)
