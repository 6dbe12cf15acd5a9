"""Run a range of the extraction's steps over a tree, in memory: detect progress, refuse what the
tree cannot take, then each of `STEPS` in turn.

Nothing is written here; the result is a `Plan` (new full texts per file, per step and in
total) that `core.writer.write_files` puts on disk all-or-nothing.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import libcst as cst

from codemods.core.context import Context
from codemods.core.packages import check_new_packages
from codemods.core.errors import AlreadyApplied, BadInput, Location, NoSuchMethod, Refusal, StepsTogether
from codemods.core import runner
from codemods.core.plan import Plan
from codemods.core.runner import Tree, steps_to_run
from codemods.core.render import Renderer
from codemods.extract_method.move_conflicts import outside_uses, refuse_uses
from codemods.extract_method.outside_callers import find_outside_calls
from codemods.extract_method.properties import property_member
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.models import Handed, MethodRun, Static
from codemods.core.steps import Steps
from codemods.extract_method.steps.leave_wrapper import LeaveWrapper
from codemods.extract_method.steps.make_static import MakeStatic
from codemods.extract_method.steps.move_function import MoveFunction
from codemods.extract_method.steps.narrow_and_tidy import NarrowAndTidy
from codemods.extract_method.steps_done import LAST, NOT_FOUND, progress
from codemods.syntax.nodes import parse, top_class

STEPS = Steps([MakeStatic(), MoveFunction(), LeaveWrapper(), NarrowAndTidy()])
assert LAST == len(STEPS)


def steps_done(ctx: Context, recipe: Recipe) -> int:
    """How many of the steps the tree has (NOT_FOUND: no such method)."""
    source, target = ctx.root / recipe.source_file, ctx.root / recipe.target_file
    text = ctx.read(source)
    return progress(ctx.root, parse(source, text), text, source, read_if_there(ctx, target), recipe, STEPS).done


def read_if_there(ctx: Context, path: Path) -> Optional[str]:
    """The file's text, None when it does not exist (in a run of several methods, `group`, as the
    earlier ones left it)."""
    texts = getattr(ctx, "texts", {})
    if path in texts:
        return texts[path]
    return ctx.read(path) if path.exists() else None


def missing_steps(ctx: Context, recipe: Recipe) -> range:
    """The steps the tree lacks; all of them when it has none or all (the run then says why)."""
    done = steps_done(ctx, recipe)
    return STEPS.after(done) if 0 <= done < LAST else STEPS.all


def run(ctx: Context, recipe: Recipe, steps: range,
        classify: Callable[[str, Optional[Static]], str] = lambda code, static: "unknown") -> Plan:
    root = ctx.root
    source, target = root / recipe.source_file, root / recipe.target_file
    if recipe.package_inits and 2 in steps:  # a typo of a sibling package is refused before anything is read
        check_new_packages(root, target, recipe.target_module, "TARGET.MODULE")
    text = ctx.read(source)
    target_text = read_if_there(ctx, target)
    module = parse(source, text)
    status = progress(root, module, text, source, target_text, recipe, STEPS, steps)
    name = recipe.qualified
    if status.done == NOT_FOUND:
        if not recipe.infer:  # a preset's method: an older release predates it
            raise NoSuchMethod(f"{name} not found: this release predates it, nothing to do", source)
        raise BadInput(f"{name} not found, nor {recipe.callee} in {recipe.target_file}"
                       f"{_did_you_mean(module, source, recipe)}", source)
    left = "" if not recipe.infer or recipe.narrows or status.line is None else (
        f"; step {LAST} has nothing left to do (nothing to narrow, nothing only {recipe.function} used left in "
        f"{source.name})")
    steps_to_run(STEPS, status.done, steps, lambda: AlreadyApplied(
        f"already applied: {recipe.target_file} holds {recipe.function}{left}", source), source, status.line)
    if recipe.new_target and status.done < 2 and target_text is not None and 2 not in steps:
        raise BadInput("target module already present", target)

    left: list[Location] = []
    if status.done == 0 and recipe.infer and property_member(module, text, source, recipe):
        recipe = replace(recipe, is_property=True)
        if 3 not in steps:
            raise StepsTogether(f"{name} is a property: steps 1-3 run together (the tree between them holds no "
                                f"property for a later run to put back): --steps 1-3 or 1-4", range(1, 4), source,
                                status.line)
    plan = Plan(root=root, shape="", originals={source: text, target: target_text})
    if status.done == 2:
        plan.messages.append(f"found {source} ({recipe.class_name} calls {recipe.callee} at line {status.line}) "
                             f"in {ctx.found.how}")
    else:
        plan.messages.append(f"found {source} ({name} at line {status.line}) in {ctx.found.how}")
    if recipe.is_property:
        plan.messages.append(f"{name} is a property: its reads become calls of {recipe.function}"
                             + ("" if recipe.no_wrapper else ", but for the property step 3 puts back"))
    uses, mended = outside_uses(ctx.checkout, recipe, 3 in steps, left) if status.done < 2 \
        else ([], [])  # steps 1-2 would break them; step 3's wrapper (or rewrite) mends `mended`
    outside = None
    if recipe.no_wrapper and mended:
        outside, refused = find_outside_calls(ctx.checkout, recipe, mended)
        uses += refused
        mended = [Location(c.path, c.line, f"reads {ast.unparse(c.call)}" if recipe.is_property else
                           f"calls {ast.unparse(c.call.func)}") for c in outside.calls]
    plan.broken_between_steps = mended
    render = Renderer(module, text).render
    state = MethodRun(ctx, recipe, status, source, target, dict(plan.originals), render, outside)
    try:
        tree = Tree(source, module, text, {source: text, target: target_text})
        _, handed = runner.run_steps(STEPS, steps, state, tree, Handed(), plan, render)
    except Refusal as exc:
        if uses:
            raise refuse_uses(uses, recipe, exc) from None
        raise
    if uses:
        raise refuse_uses(uses, recipe)
    if mended:
        how = "are rewritten by step 3 to call the function" if recipe.no_wrapper else \
            "go on through the wrapper of step 3"
        plan.messages.append(f"{len(mended)} use(s) outside the class {how} (steps 1-2 alone would break them, so "
                             f"the steps are written together, never with --commit):")
        plan.messages += [f"  {u.path}:{u.line}: {u.what.removesuffix(': steps 1-2 would break it')}" for u in mended]
    if left:
        plan.messages.append(f"{len(left)} override(s) of the property left as they are (--leave-overrides): "
                             f"its callers now call {recipe.callee} and no longer read them:")
        plan.messages += [f"  {u.path}:{u.line}: {u.what}" for u in left]
    plan.shape = classify(plan.originals[source], handed.static) if status.done == 0 else \
        f"partially extracted (steps 1-{status.done} applied)"
    plan.messages.insert(1, f"recognised shape: {plan.shape}")
    return plan


def _did_you_mean(module, source, recipe: Recipe) -> str:
    """`: did you mean ...?` naming the class's methods closest to the one asked for."""
    _, cls = top_class(module, recipe.class_name, source)
    names = [s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)]
    close = difflib.get_close_matches(recipe.method_name, names, n=3)
    return f": did you mean {' or '.join(close)}?" if close else " (the class has no method of that name)"
