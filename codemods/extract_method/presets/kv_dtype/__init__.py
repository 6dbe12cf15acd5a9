"""sglang PR #31147 as a codemod: ModelRunner.configure_kv_cache_dtype -> mem_cache/kv_cache_dtype.py.

Python API (stable; the equivalence harness calls it)::

    from codemods.extract_kv_dtype import refactor, write_plan, Refusal  # this package, re-exported by the command
    plan = refactor(root, steps=range(1, 5), format=True)   # nothing written
    plan.changes   # {absolute Path: new full text} for every file that changes
    plan.shape     # "record_call", "server_args_write_log", ... (see fixtures/trees)
    plan.messages  # what was found and done, one line each
    plan.steps     # [StepResult(number, subject, changes)] one per step, for commits
    write_plan(plan)  # all-or-nothing

    plan = refactor(root, steps=None, fixes=["fp4-fallback", "kv-str-lookup"])
    # steps=None: the steps the tree lacks (none on a refactored tree), then the fixes,
    # each a `FixResult` in plan.steps (see fixes.py: FIXES, each naming its finding)

`root` is a git checkout (with python/sglang) or any folder holding the `sglang` package.
`steps` is a contiguous range that must start right after the steps the tree already has.
Errors (all `CodemodError`, with `.path`, `.line`, `.why`, `.exit_code`):
`BadInput` (2), `Refusal` (3: a construct the rewrite cannot carry), `NoSuchMethod` (4:
release predates the method), `AlreadyApplied` (5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, NoSuchMethod, Refusal
from codemods.core.plan import Plan, StepResult
from codemods.core.writer import write_files
from codemods.extract_method.pipeline import LAST, STEPS, run, steps_done
from codemods.extract_method.presets.kv_dtype.fixes import FIXES, FixResult, apply_fixes, empty_plan
from codemods.extract_method.presets.kv_dtype.recipe import RECIPE, classify
from codemods.extract_method.steps_done import NOT_FOUND

__all__ = ["refactor", "write_plan", "Plan", "StepResult", "CodemodError", "BadInput", "Refusal",
           "NoSuchMethod", "AlreadyApplied", "RECIPE", "FIXES", "FixResult", "STEPS"]


def refactor(root: Path, steps: Optional[range] = STEPS.all, *, format: bool = True,
             fixes: Sequence[str] = ()) -> Plan:
    """Compute PR #31147's steps `steps` (None: those the tree lacks), then `fixes`; nothing is written."""
    with Context.open(Path(root), RECIPE.source_file, format=format) as ctx:
        return plan(ctx, steps, fixes)


def plan(ctx: Context, steps: Optional[range] = STEPS.all, fixes: Sequence[str] = ()) -> Plan:
    """`refactor` in the run `ctx`."""
    if steps is None:
        done = steps_done(ctx, RECIPE)
        steps = STEPS.after(done) if done != NOT_FOUND and (done < LAST or fixes) else STEPS.all
    else:
        STEPS.check(steps)
    if fixes and len(steps) and steps.stop != LAST + 1:
        raise BadInput(f"fixes apply after step {LAST}: run --steps {steps.start}-{LAST}, or omit --steps")
    plan = run(ctx, RECIPE, steps, lambda code, _: classify(code)) if len(steps) else empty_plan(ctx)
    return apply_fixes(plan, fixes, ctx.style) if fixes else plan


def write_plan(plan: Plan) -> None:
    """Write every change of `plan`, all or nothing."""
    write_files(plan.root, plan.changes, plan.originals)
