"""What an extraction works with, as real types: how far a tree has got (`Status`), what step 1
finds of the method (`Static`), where step 2 took it from (`Hole`), what a step hands on to the
later steps of the same run (`Handed`), and the run every step reads (`MethodRun`: the recipe,
where the files are, what the checkout does with the method, `outside_callers.OutsideCalls`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

import libcst as cst

from codemods.core.context import Context
from codemods.extract_method.analysis.rewrites import Param
from codemods.extract_method.call_sites import Header
from codemods.extract_method.outside_callers import OutsideCalls
from codemods.extract_method.recipe import Recipe

NOT_FOUND = -1

# step 2: where the method sat in the class body (its index, its blank leading lines)
Hole = tuple[int, list[cst.EmptyLine]]


@dataclass(frozen=True)
class Status:
    """How far a tree has got (`steps_done.progress`)."""

    done: int  # last step applied: 0..4, or NOT_FOUND
    line: Optional[int]


@dataclass
class Static:
    """What step 1 found, for the later steps of the same run."""

    params: list[Param]  # inferred from `self` (or the recipe's reads)
    own: list[str]  # names of the method's own parameters, after those in the signature
    results: list[str]
    attributes: dict[str, str]
    record_style: Optional[str]
    returns_value: bool
    original: cst.FunctionDef  # the method as it was (the wrapper gets its signature)
    # call sites as they were: the statement holding each (its header, in a compound statement's)
    sites: list[cst.BaseStatement | Header] = field(default_factory=list)
    members: Optional[dict] = None  # class members holding call sites (`call_sites.holders`)
    # --write-back: (ATTR, the literal written, FLAG or ""): the function returns whether it wrote
    flag: Optional[tuple[str, str, str]] = None



@dataclass(frozen=True)
class Handed:
    """What the steps of a run hand on to the later ones (None: that step did not run here)."""

    static: Optional[Static] = None  # step 1: the method's shape
    hole: Optional[Hole] = None  # step 2: where the method sat

    @property
    def members(self) -> Optional[dict]:
        """Class members holding call sites (`call_sites.holders`), as step 1 found them."""
        return self.static.members if self.static is not None else None


@dataclass(frozen=True)
class MethodRun:
    """One extraction, as the run found it before any step."""

    ctx: Context
    recipe: Recipe
    status: Status  # the steps the tree had when the run began
    source: Path  # the class's module
    target: Path  # the target module
    originals: Mapping[Path, Optional[str]]  # both as the run began (None: absent)
    render: Callable[[cst.Module], str]
    outside: Optional[OutsideCalls] = None  # --no-wrapper: the calls outside the class step 3 rewrites

    @property
    def original(self) -> str:
        """The source module as the user's file holds it."""
        return self.originals[self.source]

    @property
    def original_target(self) -> Optional[str]:
        return self.originals[self.target]
