"""Pull up: members every direct subclass of a class defines alike, and the statements every
subclass's `__init__` runs right after `super().__init__(...)`, go up into that class (Fowler's
*Pull Up Method* and, for the constructor, *Pull Up Constructor Body*), in two reviewable steps.

Python API::

    from codemods.pull_up import PullUpSpec, refactor, write_plan
    spec = PullUpSpec(base="CommonKVSender", members=("poll", "poll_pp_consensus"), init_tail=True)
    plan = refactor(path, spec)   # nothing written
    write_plan(plan)              # all-or-nothing

Errors as the other kinds': `BadInput` (2), `Refusal` (3), `NoSuchMethod` (4), `AlreadyApplied` (5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, NoSuchMethod, Refusal
from codemods.core.plan import Plan
from codemods.core.writer import write_files
from codemods.pull_up.pipeline import STEPS, run
from codemods.pull_up.spec import PullUpSpec, context_for

__all__ = ["PullUpSpec", "refactor", "plan", "write_plan", "Plan", "CodemodError", "BadInput", "Refusal",
           "NoSuchMethod", "AlreadyApplied", "STEPS"]


def refactor(path: Path, spec: PullUpSpec, steps: Optional[range] = None, *, format: bool = True) -> Plan:
    """Compute the pull-up (`steps`: None, those asked for that the tree lacks); nothing is written."""
    with context_for(path, spec, format=format) as ctx:
        return plan(ctx, spec, steps)


def plan(ctx: Context, spec: PullUpSpec, steps: Optional[range] = None) -> Plan:
    return run(ctx, spec, steps)


def write_plan(plan: Plan) -> None:
    write_files(plan.root, plan.changes, plan.originals)
