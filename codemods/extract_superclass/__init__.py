"""Extract a superclass: members of a class, and the state they use, pulled up into a new base
class the class then inherits from (Fowler's Extract Superclass), in one reviewable step.

Python API::

    from codemods.extract_superclass import SuperclassSpec, refactor, write_plan
    spec = SuperclassSpec(class_name="TokenPool", target="sglang.srt.mem_cache.pools.TokenPoolBase",
                          methods=("available_size", "debug_print"), state=None)
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
from codemods.extract_superclass.pipeline import STEPS, run, steps_done
from codemods.extract_superclass.spec import SuperclassSpec, context_for

__all__ = ["SuperclassSpec", "refactor", "plan", "write_plan", "Plan", "CodemodError", "BadInput", "Refusal",
           "NoSuchMethod", "AlreadyApplied", "STEPS", "steps_done"]


def refactor(path: Path, spec: SuperclassSpec, steps: Optional[range] = None, *, format: bool = True) -> Plan:
    """Compute the extraction (`steps`: None, those the tree lacks); nothing is written."""
    with context_for(path, spec, format=format) as ctx:
        return plan(ctx, spec, steps)


def plan(ctx: Context, spec: SuperclassSpec, steps: Optional[range] = None) -> Plan:
    return run(ctx, spec, steps)


def write_plan(plan: Plan) -> None:
    write_files(plan.root, plan.changes, plan.originals)
