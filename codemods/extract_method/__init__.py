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

`path` is a git checkout (with python/<package>) or any folder holding the package. `steps`
is a contiguous range that must start right after the steps the tree already has (None: the
steps it lacks). Errors (all `CodemodError`, with `.path`, `.line`, `.why`, `.exit_code`):
`BadInput` (2), `Refusal` (3: a construct the rewrite cannot carry), `NoSuchMethod` (4),
`AlreadyApplied` (5).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from codemods.extract_method.spec import MethodSpec, checkout_for, recipe_for
from pysource.checkout import Checkout
from codemods.core.errors import AlreadyApplied, BadInput, CodemodError, NoSuchMethod, Refusal
from codemods.core.formatting import find_style
from codemods.extract_method.steps.make_static import Static
from codemods.core.plan import Plan, StepResult
from codemods.extract_method.pipeline import locate, missing_steps, run
from codemods.extract_method.recipe import Recipe
from codemods.core.writer import write_files

__all__ = ["MethodSpec", "refactor", "write_plan", "Plan", "StepResult", "CodemodError", "BadInput", "Refusal",
           "NoSuchMethod", "AlreadyApplied"]


def describe(static: Optional[Static]) -> str:
    """The method's shape, as step 1 found it: parameters, results, returns."""
    if static is None:
        return "unknown"
    params = ", ".join(f"{p.name}={p.argument}" for p in static.params) or "none"
    own = f"; own parameters: {', '.join(static.own)}" if static.own else ""
    if static.results:
        out = f"results: {', '.join(static.attributes[r] for r in static.results)}"
    else:
        out = "returns a value" if static.returns_value else "no results"
    return f"parameters from self: {params}{own}; {out}"


def refactor(path: Path, spec: MethodSpec, steps: Optional[range] = range(1, 5), *, format: bool = True) -> Plan:
    """Compute the steps `steps` of extracting `spec`'s method; nothing is written."""
    checkout = checkout_for(Path(path), spec)
    return refactor_recipe(Path(path), recipe_for(Path(path), spec, checkout), steps, format=format,
                           checkout=checkout)


def refactor_recipe(path: Path, recipe: Recipe, steps: Optional[range] = range(1, 5), *, format: bool = True,
                    checkout: Optional[Checkout] = None) -> Plan:
    """`refactor` for a recipe already made from a `MethodSpec` (`spec.recipe_for`)."""
    if steps is None:
        steps = missing_steps(path, recipe)
    if not (len(steps) and steps.step == 1 and 1 <= steps.start and steps.stop <= 5):
        raise BadInput(f"steps must be a contiguous range within 1-4, got {steps}")
    style = find_style(locate(path, recipe), enabled=format)
    return run(path, recipe, steps, style, lambda code, static: describe(static), checkout)


def write_plan(plan: Plan) -> None:
    """Write every change of `plan`, all or nothing."""
    write_files(plan.root, plan.changes, plan.originals)
