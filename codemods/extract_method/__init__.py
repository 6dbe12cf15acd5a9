"""Extract any method of a class into a module function, in PR #31147's four reviewable steps.

Python API (stable; the equivalence harness calls it)::

    from codemods.extract_method import MethodSpec, refactor, write_plan
    spec = MethodSpec(class_name="ModelRunner", method_name="init_threads_binding",
                      target_module="sglang.srt.utils.numa_utils",
                      function_name=None,      # --name, default: the method's name
                      renames={},              # --rename OLD=NEW (inferred parameter names)
                      narrows=(),              # --narrow PARAM.ATTR[=NEW] (step 4)
                      pass_self=None,          # --pass-self NAME
                      moved_globals=(),        # --move-global NAME (repeatable)
                      source_file=None)        # --source FILE, default: found by the class
    plan = refactor(path, spec, steps=range(1, 5), format=True)   # nothing written
    plan.changes   # {absolute Path: new full text} for every file that changes
    plan.shape     # what the method turned out to be: its parameters, results, returns
    plan.messages  # what was found and done, one line each
    plan.steps     # [StepResult(number, subject, changes)] one per step, for commits
    write_plan(plan)  # all-or-nothing
    STEPS  # the kind's steps (`core.steps.Steps`): len(STEPS) == 4

`path` is a git checkout (with python/<package>) or any folder holding the package. `steps`
is a contiguous range that must start right after the steps the tree already has (None: the
steps it lacks). Errors (all `CodemodError`, with `.path`, `.line`, `.why`, `.exit_code`):
`BadInput` (2), `Refusal` (3: a construct the rewrite cannot carry), `NoSuchMethod` (4),
`AlreadyApplied` (5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst.matchers as m

from codemods.core.context import Context, located
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, NoSuchMethod, Refusal
from codemods.core.plan import Plan, StepResult
from codemods.core.writer import write_files
from codemods.extract_method.pipeline import STEPS, missing_steps, run
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.spec import MethodSpec, context_for, recipe_for
from codemods.extract_method.models import Static
from codemods.extract_method.group import plan_group

__all__ = ["MethodSpec", "refactor", "write_plan", "Plan", "StepResult", "CodemodError", "BadInput", "Refusal",
           "NoSuchMethod", "AlreadyApplied", "STEPS"]


def describe(static: Optional[Static]) -> str:
    """The method's shape, as step 1 found it: parameters, results, returns."""
    if static is None:
        return "unknown"
    params = ", ".join(f"{p.name}={p.argument}" for p in static.params) or "none"
    me = static.original.params.params[0].name.value if static.original.params.params else None
    if me and any(p.argument == me for p in static.params) and not m.findall(static.original.body, m.Name(me)):
        params += f" (the method never uses {me}: without --pass-self the function does not take it)"
    own = f"; own parameters: {', '.join(static.own)}" if static.own else ""
    if static.flag is not None:
        out = f"returns whether it wrote self.{static.flag[0]} = {static.flag[1]} (--write-back)"
    elif static.results:
        out = f"results: {', '.join(static.attributes[r] for r in static.results)}"
    else:
        out = "returns a value" if static.returns_value else "no results"
    return f"parameters from self: {params}{own}; {out}"


def refactor(path: Path, spec: MethodSpec, steps: Optional[range] = STEPS.all, *, format: bool = True) -> Plan:
    """Compute the steps `steps` of extracting `spec`'s method (its methods: `spec.methods`, several
    in one run); nothing is written."""
    with context_for(path, spec, format=format) as ctx:
        return plan_spec(ctx, spec, steps)


def plan_spec(ctx: Context, spec: MethodSpec, steps: Optional[range] = STEPS.all) -> Plan:
    """The plan of `spec` in the run `ctx`: one method, or several (`group`)."""
    if len(spec.methods) > 1:
        return plan_group(ctx, spec, steps, plan)
    return plan(ctx, recipe_for(ctx, spec), steps)


def plan(ctx: Context, recipe: Recipe, steps: Optional[range] = STEPS.all) -> Plan:
    """The plan of `steps` (None: those the tree lacks) of `recipe` in the run `ctx`."""
    located(ctx.path, recipe.source_file)  # --source names a file of the tree
    steps = missing_steps(ctx, recipe) if steps is None else STEPS.check(steps)
    return run(ctx, recipe, steps, lambda code, static: describe(static))


def write_plan(plan: Plan) -> None:
    """Write every change of `plan`, all or nothing."""
    write_files(plan.root, plan.changes, plan.originals)
