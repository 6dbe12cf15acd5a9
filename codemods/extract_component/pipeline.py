"""Run a range of the component extraction's steps over a tree, in memory: read how far the tree
is, infer (or read back) the design, then each of `STEPS` in turn; the result is a `Plan` that
`core.writer.write_files` puts on disk all-or-nothing.

How far a tree is (`progress`):
0  the owner has the methods, and no builder `init_ATTR`;
1  the owner builds the component (`init_ATTR`), whose class holds none of the methods yet;
2  the component holds them, the owner delegates to it;
3  done: the owner holds none of them (but delegations something hands around as a value, or
   every one with `--keep-wrappers`, its callers going through the component).
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.checkout.callers import method_uses
from codemods.core.packages import check_new_packages
from codemods.core.errors import AlreadyApplied, BadInput, Conflicts, Location, NoSuchMethod, Refusal
from codemods.core.plan import Plan
from codemods.core.render import Renderer
from codemods.core.runner import Tree, run_steps, steps_to_run
from codemods.core.steps import Steps
from codemods.extract_component import analysis, build
from codemods.extract_component.design import Design
from codemods.extract_component.models import ComponentRun, Owner, Reading
from codemods.extract_component.spec import ComponentSpec, source_file
from codemods.extract_component.steps.callers import RewriteCallers
from codemods.extract_component.steps.introduce import Introduce
from codemods.extract_component.steps.move import Move
from codemods.syntax.nodes import binding_line, parse
from pysource import parsing
from pysource.classes import classes
from pysource.modules import module_files
from pysource.receivers import Program

STEPS = Steps([Introduce(), Move(), RewriteCallers()])
LAST = len(STEPS)


def locate(ctx: Context, spec: ComponentSpec) -> tuple[Path, Path, str]:
    """(the owner's module file, the component's module file, the owner's dotted module)."""
    rel = source_file(ctx, spec)
    target_rel = module_files(spec.target_module)[0]
    if (ctx.root / module_files(spec.target_module)[1]).is_file():
        target_rel = module_files(spec.target_module)[1]
    module = rel[:-3].replace("/", ".").removesuffix(".__init__")
    if module == spec.target_module:
        raise BadInput(f"TARGET.MODULE {spec.target_module} is the module {spec.class_name} is in")
    return ctx.root / rel, ctx.root / target_rel, module


def _refusal_note(spec: ComponentSpec) -> str:
    methods = ", ".join(spec.methods)
    if spec.keep_wrappers:
        return (f"Step 3 rewrites every caller of {methods} it can tell is an owner's to go through {spec.attr} and "
                f"keeps the delegations (--keep-wrappers), which the others go on reaching; what overrides a moved "
                f"method, patches one by name or reaches it through the class would break all the same. Update "
                f"those places first, then run again.")
    return (f"Step 3 rewrites every caller of {methods} to go through {spec.attr} and drops the delegations: a use it "
            f"cannot tell is an owner's (another class has a method of the same name and the code does not say what "
            f"the receiver is) would break; so would one that reaches a method by name or through the class, or "
            f"overrides it. Update those places first (annotate the receiver, or rename the other class's method; "
            f"--keep-wrappers leaves the ambiguous ones going through the delegation), then run again.")


def progress(owner: ast.ClassDef, target_tree: Optional[ast.Module], spec: ComponentSpec) -> int:
    """How many steps the tree has (see the module docstring: each step says whether the tree has
    it); -1: neither the methods nor the component."""
    component = None
    if target_tree is not None:
        component = next((s for s in target_tree.body if isinstance(s, ast.ClassDef) and s.name == spec.component), None)
    reading = Reading(owner, component, spec)
    done = STEPS.progress(reading)
    return -1 if done == 0 and not all(m in reading.defs for m in spec.methods) else done


def _request(spec: ComponentSpec) -> analysis.Request:
    return analysis.Request(spec.class_name, spec.component, spec.target_module, tuple(spec.methods), spec.attr,
                            spec.pass_owner, dict(spec.fields), tuple(spec.state), spec.keep_wrappers)


def steps_done(ctx: Context, spec: ComponentSpec) -> int:
    source, target, _ = locate(ctx, spec)
    owner = _owner_class(ctx, source, spec)
    return progress(owner, _target_tree(ctx, target), spec)


def _owner_class(ctx: Context, source: Path, spec: ComponentSpec) -> ast.ClassDef:
    text = ctx.read(source)
    try:
        tree = parsing.parse(text, str(source))
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", source, e.lineno) from None
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == spec.class_name]
    if not found:
        raise BadInput(f"no top-level class {spec.class_name}", source)
    if len(found) > 1:
        raise BadInput(f"class {spec.class_name} is defined {len(found)} times at module level", source,
                       found[1].lineno)
    return found[0]


def _target_tree(ctx: Context, target: Path) -> Optional[ast.Module]:
    if not target.exists():
        return None
    try:
        return parsing.parse(ctx.read(target), str(target))
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", target, e.lineno) from None


def run(ctx: Context, spec: ComponentSpec, steps: Optional[range]) -> Plan:
    source, target, source_module = locate(ctx, spec)
    if steps is None or 1 in steps:  # a typo of a sibling package is refused before anything is read
        check_new_packages(ctx.root, target, spec.target, "TARGET.MODULE.COMPONENT")
    text = ctx.read(source)
    owner_cls = _owner_class(ctx, source, spec)
    target_tree = _target_tree(ctx, target)
    done = progress(owner_cls, target_tree, spec)
    if done < 0:
        names = [s.name for s in owner_cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        missing = [m for m in spec.methods if m not in names]
        if len(missing) < len(spec.methods):  # some are there: a typo, not a release that predates them
            close = {m: difflib.get_close_matches(m, names, n=2) for m in missing}
            hint = "; ".join(f"{m}: did you mean {' or '.join(c)}?" for m, c in close.items() if c)
            raise BadInput(f"{spec.class_name} has no method {', '.join(missing)}" + (f" ({hint})" if hint else ""),
                           source, owner_cls.lineno)
        for base, _ in classes(text, spec.class_name, ctx.root, source_module)[1:]:
            there = [m for m in spec.methods if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                    and s.name == m for s in base.body)]
            if there:
                raise Refusal(f"{spec.class_name} inherits {', '.join(there)} from {base.name}, which defines them: "
                              f"the owner must define the methods it hands to its component (move them into "
                              f"{spec.class_name} first, or extract them from {base.name}, which then needs an "
                              f"__init__ to build the component in)", source, owner_cls.lineno)
        raise NoSuchMethod(f"{spec.class_name} has no method {', '.join(missing)} and {spec.target} does not hold "
                           f"the component: nothing to do", source, owner_cls.lineno)
    steps = steps_to_run(STEPS, done, steps, lambda: AlreadyApplied(
        f"already applied: {module_files(spec.target_module)[0]} holds {spec.component} with "
        f"{', '.join(spec.methods)}", source), source, owner_cls.lineno)
    plan = Plan(root=ctx.root, shape="", originals={source: text, target: ctx.read(target) if target.exists() else None})
    plan.messages.append(f"found {source} ({spec.class_name} at line {owner_cls.lineno}) in {ctx.found.how}")
    module = parse(source, text)
    program = Program(ctx.checkout)
    owner = Owner(source, text, parsing.parse(text, str(source)), spec.class_name, source_module, ctx.root)
    problems: list = []
    notes: list[str] = []
    inferred = design = None
    try:
        if done == 0:
            inferred = analysis.infer(owner, _request(spec), program)
            design = inferred.design
            notes += [f"  {n}" for n in inferred.notes]
        else:
            design = design_from_tree(spec, owner, done, program, target_tree)
    except Conflicts as e:
        problems += e.locations
    except Refusal as e:
        problems.append(Location(e.path or source, e.line or 0, e.why))
    uses = method_uses(program, f"{source_module}.{spec.class_name}", list(spec.methods),
                       skip_classes={f"{spec.target_module}.{spec.component}"})
    problems += uses.conflicts
    if done == 0 and plan.originals[target] is not None:  # step 1's own refusal, listed with the others
        bound = binding_line(plan.originals[target], spec.component)
        if bound:
            problems.append(Location(target, bound, f"{spec.target_module} already binds {spec.component}: choose "
                                                    f"another component name (or module)"))
    problems += [Location(p.path, p.node.lineno, f"patches {p.node.value!r}, a subclass's {p.method}: after the move "
                                                 f"that would patch {spec.component}.{p.method} for every owner")
                 for p in uses.patches if p.owner != f"{source_module}.{spec.class_name}"]
    if spec.keep_wrappers:  # the delegations stay: an untyped receiver, or a read by name, still finds them
        notes += [f"  left as it is, through the kept delegation: {a}" for a in uses.ambiguous]
        notes += [f"  {a.path}:{a.line}: {a.what}; the delegations are kept, so it still finds them"
                  for a in uses.by_name]
    else:
        problems += uses.ambiguous + [
            Location(a.path, a.line, f"{a.what}: the delegation goes in step 3 (pass --keep-wrappers to keep it), "
                                     f"or reach it through the component instead") for a in uses.by_name]
    places: dict = {}
    for p in problems:  # one line per place (overrides are found by both analyses)
        places.setdefault((p.path, p.line), p)
    problems = list(places.values())
    if problems:
        raise Conflicts(problems, note=_refusal_note(spec) if uses.ambiguous or uses.conflicts
                        or uses.by_name else "")
    plan.shape = "partially extracted (steps 1-%d applied)" % done if done else "component of %d method(s)" % len(
        design.methods)
    plan.messages.append(f"recognised shape: {plan.shape}")
    render = Renderer(module, text).render
    state = ComponentRun(ctx, spec, done, source, target, source_module, program, owner, design, inferred, uses,
                         dict(plan.originals), render)
    run_steps(STEPS, steps, state, Tree(source, module, text, {source: text, target: plan.originals[target]}), None,
              plan, render, notes)
    return plan


def design_from_tree(spec: ComponentSpec, owner: Owner, done: int, program: Program, target_tree: ast.Module) -> Design:
    """The design a tree where step 1 (`done`: and maybe 2) is done holds."""
    cls = next(s for s in target_tree.body if isinstance(s, ast.ClassDef) and s.name == spec.component)
    builder = owner.method(f"init_{spec.attr}")
    design = build.from_tree(cls, builder, spec.class_name, spec.target_module, spec.attr)
    if done == 1:  # the methods are still the owner's: those asked for, and their helpers
        design.methods = list(spec.methods)
        design.helpers = analysis._helpers(owner, list(spec.methods), program)
        design.methods += design.helpers
    else:  # the component's methods: those asked for, and the helpers that came along
        design.helpers = [m for m in design.methods if m not in spec.methods]
    return design
