"""Run the extraction of a superclass over a tree, in memory: read how far the tree is, analyse
CLASS (`analysis`), then the step; the result is a `Plan` that `core.writer.write_files` puts
on disk all-or-nothing.

How far a tree is: 0, CLASS defines every member asked for; 1 (done), BASE in TARGET.MODULE
defines them, CLASS none, and CLASS inherits from BASE.
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path
from typing import Optional, Sequence

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, Conflicts, Location, NoSuchMethod
from codemods.core.packages import check_new_packages
from codemods.core.plan import Plan
from codemods.core.render import Renderer
from codemods.core.runner import Tree, run_steps, steps_to_run
from codemods.core.steps import Steps
from codemods.extract_superclass import analysis
from codemods.extract_superclass.analysis import Design
from codemods.extract_superclass.models import Reading, SuperclassRun, defined, names_base
from codemods.extract_superclass.spec import SuperclassSpec, source_file
from codemods.extract_superclass.steps.extract import Extract
from codemods.extract_superclass.steps.rebase import Rebase, Sub, check as check_rebase
from codemods.syntax.nodes import binding_line, parse, top_class
from pysource import parsing
from pysource.classes import classes
from pysource.modules import module_files

STEPS = Steps([Extract(), Rebase()])


def locate(ctx: Context, spec: SuperclassSpec) -> tuple[Path, Path, str]:
    """(CLASS's module file, the base's module file, CLASS's dotted module)."""
    rel = source_file(ctx, spec)
    module = rel[:-3].replace("/", ".").removesuffix(".__init__")
    if module == spec.target_module:
        return ctx.root / rel, ctx.root / rel, module
    target_rel = module_files(spec.target_module)[0]
    if (ctx.root / module_files(spec.target_module)[1]).is_file():
        target_rel = module_files(spec.target_module)[1]
    return ctx.root / rel, ctx.root / target_rel, module


def _class(tree: ast.Module, name: str, path: Path) -> ast.ClassDef:
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    if not found:
        raise BadInput(f"no top-level class {name}", path)
    if len(found) > 1:
        raise BadInput(f"class {name} is defined {len(found)} times at module level", path, found[1].lineno)
    return found[0]


def _parse(ctx: Context, path: Path, text: str) -> ast.Module:
    try:
        return parsing.parse(text, str(path))
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", path, e.lineno) from None


def steps_done(ctx: Context, spec: SuperclassSpec) -> int:
    source, target, _ = locate(ctx, spec)
    tree = _parse(ctx, source, ctx.read(source))
    target_tree = tree if target == source else _parse(ctx, target, ctx.read(target)) if target.exists() else None
    return STEPS.progress(_reading(tree, target_tree, spec, source, subclasses(ctx, spec, source, ctx.read(source))))


def _reading(tree: ast.Module, target_tree: Optional[ast.Module], spec: SuperclassSpec, source: Path,
             subs: Sequence[Sub] = ()) -> Reading:
    cls = _class(tree, spec.class_name, source)
    base = None
    if target_tree is not None:
        base = next((s for s in target_tree.body if isinstance(s, ast.ClassDef) and s.name == spec.base), None)
    return Reading(cls, base, spec, {s.name: s.node for s in subs})


def subclasses(ctx: Context, spec: SuperclassSpec, source: Path, text: str) -> list[Sub]:
    """--rebase's classes: top-level classes naming CLASS (or, re-parented, BASE) among their bases."""
    if not spec.rebase:
        return []
    out = []
    files = {Path(ctx.checkout.path(p)) for name in (spec.class_name, spec.base)
             for p in ctx.checkout.naming_a_base(name.encode())}
    known = {source.resolve(): source}
    for name in spec.rebase:
        found = []
        for path in sorted(files):
            path = known.get(path.resolve(), path)
            tree = _parse(ctx, path, text if path == source else ctx.read(path))
            found += [Sub(name, path, c) for c in tree.body if isinstance(c, ast.ClassDef) and c.name == name
                      and (names_base(c, spec.class_name) or names_base(c, spec.base))]
        if len(found) != 1:
            raise BadInput(f"--rebase {name}: {'no' if not found else len(found)} top-level class(es) {name} with "
                           f"{spec.class_name} (or {spec.base}) among their bases in the checkout", source)
        out += found
    return out


def run(ctx: Context, spec: SuperclassSpec, steps: Optional[range]) -> Plan:
    source, target, source_module = locate(ctx, spec)
    if target != source and (steps is None or 1 in steps):
        check_new_packages(ctx.root, target, spec.target, "TARGET.MODULE.BASE")
    text = ctx.read(source)
    tree = _parse(ctx, source, text)
    old_target = None if target == source else ctx.read(target) if target.exists() else None
    target_tree = tree if target == source else _parse(ctx, target, old_target) if old_target is not None else None
    if spec.rebase and target != source:
        raise BadInput("--rebase: the base must be in CLASS's module (TARGET.MODULE the module of CLASS)", source)
    subs = subclasses(ctx, spec, source, text)
    reading = _reading(tree, target_tree, spec, source, subs)
    cls = reading.cls
    done = STEPS.progress(reading)
    if not done and not reading.has_members:
        names = sorted(defined(cls))
        missing = [m for m in spec.methods if m not in names]
        if len(missing) < len(spec.methods):
            close = {m: difflib.get_close_matches(m, names, n=2) for m in missing}
            hint = "; ".join(f"{m}: did you mean {' or '.join(c)}?" for m, c in close.items() if c)
            raise BadInput(f"{spec.class_name} has no method {', '.join(missing)}" + (f" ({hint})" if hint else ""),
                           source, cls.lineno)
        raise NoSuchMethod(f"{spec.class_name} has no method {', '.join(missing)} and {spec.target} does not hold "
                           f"them: nothing to do", source, cls.lineno)
    steps = steps_to_run(STEPS, done, steps, lambda: AlreadyApplied(
        f"already applied: {spec.target} holds "
        f"{', '.join(spec.methods) if len(spec.methods) <= 6 else f'the {len(spec.methods)} members asked for'} "
        f"and {spec.class_name} inherits from it",
        source), source, cls.lineno)
    if not spec.rebase:
        steps = range(steps.start, min(steps.stop, 2))  # step 2 re-parents nothing
    originals = {source: text} if target == source else {source: text, target: old_target}
    plan = Plan(root=ctx.root, shape="", originals=dict(originals))
    plan.messages.append(f"found {source} ({spec.class_name} at line {cls.lineno}) in {ctx.found.how}")
    module = parse(source, text)
    if done == 0:
        design = analyse(ctx, spec, source, source_module, text, tree, cls, module, target, old_target)
        kept = _members(cls) - set(design.moved) - ({"__init__"} if design.init is not None and design.init.whole
                                                    else set())
    else:
        design = Design(tuple(spec.methods), (), None, (), frozenset(spec.methods), ())
        kept = _members(cls)
    if 2 in steps:
        problems: list[Location] = []
        check_rebase(spec.class_name, kept, subs, problems)
        if problems:
            raise Conflicts(problems)
    plan.shape = f"{len(design.moved)} member(s), {len(design.state)} attribute(s) of state"
    plan.messages.append(f"recognised shape: {plan.shape}")
    render = Renderer(module, text).render
    state = SuperclassRun(ctx, spec, source, target, source_module, cls, design, dict(originals), render, tuple(subs))
    current = {source: text} if target == source else {source: text, target: old_target}
    run_steps(STEPS, steps, state, Tree(source, module, text, current), None, plan, render)
    return plan


def analyse(ctx: Context, spec: SuperclassSpec, source: Path, source_module: str, text: str, tree: ast.Module,
            cls: ast.ClassDef, module, target: Path, old_target: Optional[str]) -> Design:
    """The design, or every problem at once (`Conflicts`)."""
    problems: list[Location] = []
    notes: list[str] = []
    _, cls_cst = top_class(module, spec.class_name, source, text)
    defs = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    moved = tuple(dict.fromkeys(s.name for s in defs if s.name in spec.methods))
    moved_defs = [s for s in defs if s.name in moved]
    # the class statement
    for d in cls.decorator_list:
        problems.append(Location(source, d.lineno, f"{spec.class_name} is decorated ({ast.unparse(d)}): the "
                                                   f"decorator would not apply to what moves into {spec.base}"))
    for k in cls.keywords:
        if k.arg != "metaclass" or ast.unparse(k.value) not in analysis.ABC_METAS:
            problems.append(Location(source, cls.lineno, f"{spec.class_name}'s class statement passes "
                                                         f"{ast.unparse(k)}: it would act on {spec.base} as well"))
    lineage = classes(text, spec.class_name, ctx.root, source_module)
    ancestors = lineage[1:]
    for anc, _ in ancestors:
        if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init_subclass__"
               for s in anc.body):
            problems.append(Location(source, cls.lineno, f"{anc.name}, an ancestor of {spec.class_name}, defines "
                                                         f"__init_subclass__: it would run once more, for {spec.base}"))
    # the moved code
    for fn in moved_defs:
        for line, what in analysis.private_names(fn):
            problems.append(Location(source, line, f"{spec.class_name}.{fn.name} {what}"))
    class_body = _members(cls) - set(moved)
    for fn in moved_defs:  # what the class body evaluates: decorators, defaults (and annotations, if eager)
        header = [*fn.decorator_list, *fn.args.defaults, *(d for d in fn.args.kw_defaults if d is not None)]
        if not _lazy(tree):
            header += [a.annotation for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)
                       if a.annotation is not None] + ([fn.returns] if fn.returns is not None else [])
        for name in sorted({n.id for h in header for n in ast.walk(h) if isinstance(n, ast.Name)} & class_body):
            problems.append(Location(source, fn.lineno, f"{spec.class_name}.{fn.name}'s header reads {name}, which "
                                                        f"{spec.class_name}'s body binds and keeps: {spec.base}'s "
                                                        f"body would not have it"))
    refs: set[str] = set()
    for fn in moved_defs:
        me = analysis.first_param(fn)
        if me:
            refs |= analysis.facts(fn.body, me).self_refs
    # the state
    init_ast = next((s for s in defs if s.name == "__init__"), None)
    init_cst = next((s for s in cls_cst.body.body if getattr(getattr(s, "name", None), "value", None) == "__init__"),
                    None)
    if spec.all_init and init_ast is None:
        problems.append(Location(source, cls.lineno, f"--all-init: {spec.class_name} has no __init__ of its own"))
    if spec.state is not None:
        state = tuple(spec.state)
    elif spec.all_init:
        state = analysis.infer_state(None, init_ast, module, init_cst)
    else:
        state = analysis.infer_state(refs, init_ast, module, init_cst)
    split = None
    if state:
        if init_ast is None:
            problems.append(Location(source, cls.lineno, f"--state {', '.join(state)}: {spec.class_name} has no "
                                                         f"__init__ of its own to take it from"))
        else:
            split = analysis.split_init(source, module, init_cst, init_ast, state, problems, spec.all_init)
            if split is not None and split.also_set:
                notes.append(f"{spec.base}.__init__ also sets {', '.join(split.also_set)}: set between the "
                             f"state's statements, they go with them (the order of construction kept)")
            if split is not None:
                groups = analysis.init_statements(module, init_cst, init_ast)
                for line, what in [w for i in split.span for st in groups[i] for w in analysis.private_names(st)]:
                    problems.append(Location(source, line, f"{spec.class_name}.__init__ {what}"))
    read_elsewhere = sorted((refs & _set_in(init_ast)) - set(state)) if init_ast is not None else []
    if read_elsewhere:
        notes.append(f"the moved members read {', '.join(read_elsewhere)}, which {spec.class_name}.__init__ still "
                     f"sets (add them to --state for {spec.base} to set them)")
    # hooks: the class's methods that stay and that the moved code calls on self
    base_code_refs = set(refs)
    if split is not None and init_ast is not None:
        me = analysis.first_param(init_ast) or "self"
        groups = analysis.init_statements(module, init_cst, init_ast)
        base_code_refs |= analysis.facts([s for i in split.span for s in groups[i]], me).self_refs
    inherited = {s.name for anc, _ in ancestors for s in anc.body if isinstance(s, (ast.FunctionDef,
                                                                                       ast.AsyncFunctionDef))}
    staying = {s.name: s for s in defs if s.name not in moved and s.name != "__init__"}
    stubs = tuple(n for n in staying if n in base_code_refs and n not in inherited
                  and not analysis.is_property(staying[n]))
    base_names = frozenset({*moved, *stubs, *(["__init__"] if split is not None else [])})
    # super(CLASS, x).X anywhere in the checkout, X now the base's
    pattern = re.compile(rb"super\(\s*" + re.escape(spec.class_name.encode()) + rb"\s*,[^)]*\)\s*\.\s*(\w+)")
    for path in ctx.checkout.select(lambda b: bool(pattern.search(b)), mentioning=spec.class_name.encode()):
        data = ctx.checkout.data(path)
        for m in pattern.finditer(data):
            if m.group(1).decode() in base_names:
                problems.append(Location(ctx.root / path if not Path(path).is_absolute() else Path(path),
                                         data[:m.start()].count(b"\n") + 1,
                                         f"super({spec.class_name}, ...).{m.group(1).decode()} would find the "
                                         f"member {spec.base} now defines instead of skipping {spec.class_name}'s"))
    # the name
    if target == source:
        if binding_line(text, spec.base):
            problems.append(Location(source, binding_line(text, spec.base), f"{source_module} already binds "
                                                                           f"{spec.base}: choose another name"))
    elif old_target is not None and binding_line(old_target, spec.base):
        problems.append(Location(target, binding_line(old_target, spec.base),
                                 f"{spec.target_module} already binds {spec.base}: choose another name"))
    if problems:
        places: dict = {}
        for p in problems:
            places.setdefault((p.path, p.line, p.what), p)
        raise Conflicts(sorted(places.values(), key=lambda p: (str(p.path), p.line)))
    if split is not None and split.extra:
        notes.append(f"{spec.base}.__init__ takes {', '.join(split.extra)}, computed before the state's "
                     f"statements in {spec.class_name}.__init__, as keyword-only parameters")
    return Design(moved, state, split, stubs, base_names, tuple(notes))


def _set_in(init: Optional[ast.FunctionDef]) -> set[str]:
    if init is None:
        return set()
    me = analysis.first_param(init) or "self"
    return analysis.facts(init.body, me).self_writes


def _class_attrs(cls: ast.ClassDef) -> set[str]:
    out = set()
    for s in cls.body:
        for t in (s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []):
            if isinstance(t, ast.Name):
                out.add(t.id)
    return out


def _members(cls: ast.ClassDef) -> set[str]:
    """What a class body binds: its defs and class attributes."""
    out = set(defined(cls)) | _class_attrs(cls)
    out |= {s.name for s in cls.body if isinstance(s, ast.ClassDef)}
    return out


def _lazy(tree: ast.Module) -> bool:
    """`from __future__ import annotations`: annotations are not evaluated."""
    return any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations"
                                                                                  for a in s.names)
               for s in tree.body)
