"""Run a pull-up over a tree, in memory: find BASE and its subclasses (`family`), read how far the
tree has got, analyse every step asked for (every problem at once), then the steps; the result
is a `Plan` that `core.writer.write_files` puts on disk all-or-nothing.

How far a tree is, per step asked for: step 1 (`--members`) is done when BASE holds every member
and no direct subclass defines one; step 2 (`--init-tail`) when the direct subclasses' `__init__`
share no statement right after `super().__init__(...)`. A run does the steps asked for that the
tree lacks; none left is `AlreadyApplied` (exit 5).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied, BadInput, Conflicts, Location, NoSuchMethod
from codemods.core.plan import Plan
from codemods.core.render import Renderer
from codemods.core.runner import Tree, run_steps
from codemods.core.steps import Steps
from codemods.pull_up import analysis
from codemods.pull_up.analysis import Reads, SubInit
from codemods.pull_up.family import Family
from codemods.pull_up.models import MembersDesign, PullUpRun, Reading, Source, TailDesign
from codemods.pull_up.spec import PullUpSpec, source_file
from codemods.pull_up.steps.init_tail import InitTail
from codemods.pull_up.steps.members import Members
from codemods.syntax.nodes import parse, top_class
from pysource import parsing

STEPS = Steps([Members(), InitTail()])


class _Sources:
    """Each file read once, as a `Source`."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.read: dict[Path, Source] = {}

    def __getitem__(self, path: Path) -> Source:
        path = Path(path)
        if path not in self.read:
            text = self.ctx.read(path)
            try:
                tree = parsing.parse(text, str(path))
            except SyntaxError as e:
                raise BadInput(f"syntax error: {e.msg}", path, e.lineno) from None
            checkout = self.ctx.checkout
            module = checkout.module_of(path) or path.stem
            self.read[path] = Source(path, text, tree, module, checkout.package_of(path))
        return self.read[path]


def open_family(ctx: Context, spec: PullUpSpec) -> tuple[Source, Family, _Sources]:
    sources = _Sources(ctx)
    path = ctx.root / source_file(ctx, spec)
    src = sources[path]
    found = [s for s in src.tree.body if isinstance(s, ast.ClassDef) and s.name == spec.base]
    if not found:
        raise BadInput(f"no top-level class {spec.base}", path)
    if len(found) > 1:
        raise BadInput(f"class {spec.base} is defined {len(found)} times at module level", path, found[1].lineno)
    family = Family(ctx.checkout, path, found[0], src.module)
    if not family.direct:
        raise BadInput(f"no class of the checkout has {spec.base} among its bases: nothing to pull up from", path,
                       found[0].lineno)
    return src, family, sources


def _sub_inits(family: Family, sources: _Sources, problems: list[Location]) -> Optional[list[SubInit]]:
    """Each direct subclass's __init__ and where it calls super().__init__(...); None when one has no
    __init__ of its own (nothing runs after that call there)."""
    out = []
    for c in family.direct:
        init = analysis.own_def(c.node, "__init__")
        if init is None:
            if analysis.functions(c.node, "__init__"):
                problems.append(Location(c.path, c.node.lineno, f"{c.name} binds __init__ otherwise than by one def"))
            return None
        at, lines = analysis.super_init_at(init)
        if at is None:
            problems.append(Location(c.path, lines[1] if len(lines) > 1 else lines[0] if lines else init.lineno,
                                     f"{c.name}.__init__ {_calls(lines)}: no place is right after it"))
            continue
        src = sources[c.path]
        module = parse(c.path, src.text)
        _, cls = top_class(module, c.name, c.path)
        init_cst = next(s for s in cls.body.body if getattr(getattr(s, "name", None), "value", None) == "__init__")
        out.append(SubInit(c, src, init, at, list(range(at + 1, len(init.body))),
                           analysis.cst_indices(init_cst, init)))
    return out


def read_tree(ctx: Context, spec: PullUpSpec, family: Family, sources: _Sources
              ) -> tuple[Reading, list, Optional[list[SubInit]], list[list[int]], list[str]]:
    states = analysis.member_states(family, spec.members)
    applied = bool(spec.members) and all(s.applied for s in states)
    subs, taken, notes = None, [], []
    if spec.init_tail:
        subs = _sub_inits(family, sources, [])
        if subs:
            subs_copy = [SubInit(s.cls, s.src, s.init, s.at, list(s.rest), s.indices) for s in subs]
            taken, notes = analysis.common_tail(family, subs_copy, ctx.checkout)
    return Reading(applied, not taken), states, subs, taken, notes


def run(ctx: Context, spec: PullUpSpec, steps: Optional[range] = None) -> Plan:
    src, family, sources = open_family(ctx, spec)
    base = family.base
    reading, states, subs, taken, tail_notes = read_tree(ctx, spec, family, sources)
    asked = spec.steps
    if steps is not None:
        STEPS.check(steps)
        for n in steps:
            if n not in asked:
                raise BadInput(f"--steps {n}: step {n} needs {'--members' if n == 1 else '--init-tail'}")
        asked = steps
    todo = [n for n in asked if not STEPS[n].done(reading)]
    if steps is not None and todo and todo != list(asked):
        done = [n for n in asked if n not in todo]
        raise BadInput(f"step {done[0]} is already applied here; run --steps {todo[0]}", base.path,
                       base.node.lineno)
    if not todo:
        what = []
        if 1 in asked:
            what.append(f"{base.name} holds {', '.join(spec.members)} and no direct subclass defines them")
        if 2 in asked:
            what.append(f"the __init__ of {base.name}'s direct subclasses share no statement right after "
                        f"super().__init__(...)" + ("" if subs else " (one has no __init__ of its own)"))
        raise AlreadyApplied(f"nothing to pull up (already applied, or never shared): {'; '.join(what)}", base.path, base.node.lineno)
    todo_range = STEPS.check(range(todo[0], todo[-1] + 1))
    problems: list[Location] = list(family.problems)
    members = tail = None
    notes: list[str] = []
    if 1 in todo_range:
        members = _members(ctx, spec, family, states, sources, src, problems)
    if 2 in todo_range:
        tail = _tail(ctx, family, subs, taken, tail_notes, sources, src, problems)
    attributes = set(members.members if members else ()) | ({"__init__"} if tail else set())
    analysis.uses(ctx.checkout, family, attributes, problems)
    if problems:
        said = []
        if members is not None and members.members:
            said.append(f"the members: {', '.join(members.members)}")
        if tail is not None:
            said.append(f"the statements every direct subclass runs after super().__init__(...): "
                        f"{'; '.join(f'`{t}`' for t in tail.texts)}" + (f" ({'; '.join(tail.notes)})" if tail.notes
                                                                       else ""))
        raise Conflicts(_unique(problems), note=f"What would be pulled up into {base.name}: {'; '.join(said)}."
                        if said else "")
    plan = Plan(root=ctx.root, shape="", originals={src.path: src.text})
    plan.messages.append(f"found {src.path} ({base.name} at line {base.node.lineno}) in {ctx.found.how}; "
                         f"{len(family.direct)} direct subclass(es), {len(family.subclasses)} in all")
    plan.shape = ", ".join(filter(None, [f"{len(members.members)} member(s)" if members else "",
                                         f"{len(tail.statements)} statement(s) of __init__" if tail else ""]))
    plan.messages.append(f"recognised shape: {plan.shape}")
    module = parse(src.path, src.text)
    render = Renderer(module, src.text).render
    state = PullUpRun(ctx, spec, src.path, family, members, tail, render, src.package, {src.path: src.text})
    run_steps(STEPS, todo_range, state, Tree(src.path, module, src.text, {src.path: src.text}), None, plan, render,
              notes)
    return plan


def _calls(lines: list[int]) -> str:
    """How an __init__ calls super().__init__(...) when not once at its body's top level."""
    if not lines:
        return "does not call super().__init__(...)"
    if len(lines) == 1:
        return "calls super().__init__(...) inside a block, not as a statement of its body's top level"
    return f"calls super().__init__(...) {len(lines)} times"


def _unique(problems: list[Location]) -> list[Location]:
    return list({(p.path, p.line, p.what): p for p in problems}.values())


def _members(ctx: Context, spec: PullUpSpec, family: Family, states, sources: _Sources, src: Source,
             problems: list[Location]) -> MembersDesign:
    base = family.base
    nowhere = [s.name for s in states if s.nowhere]
    if nowhere:
        known = {n for c in family.direct for n in analysis.body_bindings(c.node)}
        if len(nowhere) == len(states):
            raise NoSuchMethod(f"neither {base.name} nor its direct subclasses define {', '.join(nowhere)}: nothing "
                               f"to pull up", base.path, base.node.lineno)
        hints = "; ".join(f"{m}: did you mean {' or '.join(c)}?" for m in nowhere
                          if (c := analysis.close(m, known)))
        raise BadInput(f"no direct subclass of {base.name} defines {', '.join(nowhere)}" + (f" ({hints})" if hints
                                                                                          else ""),
                       base.path, base.node.lineno)
    for c in family.direct:
        sources[c.path]
    pulled, templates, replaces, notes, imports = analysis.analyse_members(
        family, states, sources.read, src, ctx.checkout, problems)
    return MembersDesign(pulled, templates, replaces, tuple(imports[n] for n in sorted(imports)), tuple(notes))


def _tail(ctx: Context, family: Family, subs: Optional[list[SubInit]], taken: list[list[int]], notes: list[str],
          sources: _Sources, src: Source, problems: list[Location]) -> Optional[TailDesign]:
    base = family.base
    _sub_inits(family, sources, problems)  # the problems of each __init__ (none read: nothing to pull)
    init = analysis.own_def(base.node, "__init__")
    if init is None:
        problems.append(Location(base.path, base.node.lineno, f"{base.name} has no __init__ of its own to end "
                                                              f"with the subclasses' statements"))
        return None
    for line in analysis.returns(init):
        problems.append(Location(base.path, line, f"{base.name}.__init__ returns here: a statement appended at its "
                                                  f"end would not run on this path, where every subclass runs it "
                                                  f"after super().__init__(...)"))
    # every class of the family defining __init__ calls super().__init__(...) once, at its body's top level
    for c in family.subclasses:
        fn = analysis.own_def(c.node, "__init__")
        if fn is not None and c not in family.direct:
            at, lines = analysis.super_init_at(fn)
            if at is None:
                problems.append(Location(c.path, lines[1] if len(lines) > 1 else lines[0] if lines else fn.lineno,
                                         f"{c.name}.__init__ {_calls(lines)}: the pulled-up statements would run "
                                         f"otherwise than before"))
    # between each direct subclass and BASE, no class defines __init__; one direct subclass per order
    direct = {c.qualname: c for c in family.direct}
    for c in family.subclasses:
        line = family.mro(c.qualname)
        if line is None:
            continue
        holding = [q for q in line if q in direct]
        if len(holding) > 1:
            problems.append(Location(c.path, c.node.lineno, f"{c.name} derives from {', '.join(direct[q].name for q in holding)}: "
                                                            f"their __init__ would each run the pulled-up statements "
                                                            f"once before, once in all after"))
        for q in holding:
            for between in family.between(line, q, base.qualname):
                d = family.defines(between, "__init__")
                if d is not False:
                    problems.append(Location(c.path, c.node.lineno,
                                             f"{between.rpartition('.')[2]} comes between {direct[q].name} and "
                                             f"{base.name} in {c.name}'s order and "
                                             f"{'defines __init__' if d else 'is outside the checkout'}: the "
                                             f"statements would run before the end of its __init__"))
    if not subs or not taken:
        return None
    template = subs[0]
    reads = Reads(ctx.checkout, src, problems)
    reads.base_locals = analysis.pynames.function_locals(init) - {analysis.first_param(init) or "self"}
    base_me = analysis.first_param(init) or "self"
    removed: dict[str, tuple[int, ...]] = {}
    read_names: set[str] = set()
    for k, s in enumerate(subs):
        stmts = [s.init.body[picked[k]] for picked in taken]
        tail_binds = analysis.bound_by(stmts)
        names: set[str] = set()
        bound: set[str] = set()
        for st in stmts:
            names |= analysis.check_tail_statement(st, s, base_me, reads, problems, tail_binds)
            bound |= analysis.bound_by([st])
        rest = [s.init.body[i] for i in range(len(s.init.body)) if i not in {p[k] for p in taken}]
        later = {n.id for st in rest for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in sorted(tail_binds & later):
            problems.append(Location(s.cls.path, s.init.lineno, f"{s.cls.name}.__init__ reads {name}, which the "
                                                                f"pulled-up statements bind: it would be the base's "
                                                                f"local"))
        indices = []
        for picked in taken:
            i = s.indices[picked[k]]
            if i is None:
                problems.append(Location(s.cls.path, s.init.body[picked[k]].lineno,
                                         f"{s.cls.name}.__init__: this statement shares its line with another; put "
                                         f"each on a line of its own first"))
            indices.append(i)
        removed[s.cls.qualname] = tuple(indices)
        read_names |= names
    reads.check(read_names, [(s.src, s.init.body[taken[0][k]].lineno, f"{s.cls.name}.__init__")
                             for k, s in enumerate(subs)])
    texts = tuple(ast.unparse(template.init.body[p[0]]) for p in taken)
    return TailDesign(template.cls, removed.get(template.cls.qualname, ()), removed, texts,
                      tuple(reads.imports[n] for n in sorted(reads.imports)), tuple(notes))
