"""Extract a component: several methods of a class, and the state only they use, become a class
the owner holds (Fowler's Extract Class), in three reviewable steps.

Python API (the equivalence harness calls it)::

    from codemods.extract_component import ComponentSpec, refactor, write_plan, STEPS
    spec = ComponentSpec(class_name="ModelRunner",
                         target="sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter",
                         methods=("send_weights_to_remote_instance", ...), attr="weight_exporter",
                         pass_owner=None, keep_wrappers=False, fields={}, state=(), source_file=None)
    plan = refactor(path, spec, steps=range(1, 4), format=True)   # nothing written
    write_plan(plan)  # all-or-nothing

Errors as for `codemods.extract_method`: `BadInput` (2), `Refusal` (3), `NoSuchMethod` (4),
`AlreadyApplied` (5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, NoSuchMethod, Refusal
from codemods.core.plan import Plan, StepResult
from codemods.core.writer import write_files
from codemods.extract_component.pipeline import STEPS, run, steps_done
from codemods.extract_component.spec import ComponentSpec, context_for

__all__ = ["ComponentSpec", "refactor", "plan", "write_plan", "Plan", "StepResult", "CodemodError", "BadInput",
           "Refusal", "NoSuchMethod", "AlreadyApplied", "STEPS", "steps_done"]


def refactor(path: Path, spec: ComponentSpec, steps: Optional[range] = STEPS.all, *, format: bool = True) -> Plan:
    """Compute the steps `steps` (None: those the tree lacks) of extracting `spec`; nothing is written."""
    with context_for(path, spec, format=format) as ctx:
        return plan(ctx, spec, steps)


def plan(ctx: Context, spec: ComponentSpec, steps: Optional[range] = STEPS.all) -> Plan:
    return run(ctx, spec, steps)


def write_plan(plan: Plan) -> None:
    write_files(plan.root, plan.changes, plan.originals)
