"""BEFORE AFTER with nothing named (no --method, --component, --preset): find what moved
(`pysource.moves`) and check each move as --method or --component would, the moves listed
first. PR #31147's preset runs when its method is among the moves, or when nothing moved and
both trees hold that method (a tree against a fix of it); otherwise it never runs."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

from equivalence.engine.load.errors import LoadError
from equivalence.engine.report.models import PairEntry
from equivalence.engine.report.verdict import Report, overall
from equivalence.presets.kv_dtype.files import RUNNER_PATH
from equivalence.presets.kv_dtype.preset import KvPreset
from equivalence.subject import Subject
from equivalence.subjects.registration import Options, Registration, option
from pysource import layout
from equivalence.subjects.moves_attribution import attribute
from equivalence.subjects.moves_callers import NotMapped, delegation
from equivalence.subjects.moves_edits import (body_edits, declare_edits, default_edits, function_in, source_edits, undo,
                                              undo_declares, undo_views, undo_wraps, view_edits, wrap_edits)
from pysource.moves import Move, find_moves

NOT_PROVEN = ("inconclusive", "could not run")
NO_CALL_IN_CLASS = "calls it only from other modules"  # pysource.extraction's answer when the class calls it nowhere

PRESET_METHOD = ("ModelRunner", "configure_kv_cache_dtype")
CHECKED = {"function": "method", "function, callers rewritten": "method", "component": "component",
           "other class": "method", "superclass": "method"}
NOT_CHECKED: dict[str, str] = {}
OTHER_CLASS = ("checked as a method of {cls} called on an instance in the same state as the {old} it left "
               "(each attribute of self alike in both): what the moved code does, not who calls it")


class MovesSubject(Subject):
    git_files = None
    codemod_name = "codemods.extract_kv_dtype"

    def __init__(self, args):
        self.args = args
        self.preset = KvPreset(args)
        self.ran_preset = False

    def validate(self, args, error) -> None:
        if getattr(args, "jobs", None) is not None and args.jobs < 1:
            error(f"--jobs {args.jobs}: check at least one move at a time")
        self.preset.validate(args, error)

    def root(self, path: Path) -> Path:
        from equivalence.presets.kv_dtype.files import find_root

        try:
            return find_root(path)
        except LoadError as preset_message:  # no preset tree: any tree holding the package
            try:
                return layout.find_root(Path(path), "sglang/__init__.py").root
            except layout.NotASourceTree:
                raise preset_message from None

    def refactor(self):
        return self.preset.refactor()

    def intended(self):
        return self.preset.intended()

    def check(self, trees, pairs, mutants, intended):
        roots = [self.root(path) for _, path in trees]
        found = {(b, a): find_moves(roots[b], roots[a]) for b, a in pairs}
        moves = [m for ms in found.values() for m in ms]
        if self._preset_applies(moves, roots) and all(_is_preset(m) for m in moves):
            self.ran_preset = True
            for root in roots:
                if not (root / RUNNER_PATH).is_file():
                    raise LoadError(f"{root / RUNNER_PATH} does not exist")
            return self.preset.check(trees, pairs, mutants, intended).adding("moves", [m.to_json() for m in moves])
        if not moves:
            raise LoadError(f"{trees[pairs[0][0]][1]} -> {trees[pairs[0][1]][1]}: no method left its class between "
                            "the versions (none gone or turned into a delegation with its body found elsewhere); "
                            "name what to check with --method CLASS.METHOD or --component CLASS.ATTR")
        return self._check_moves(trees, pairs, found, mutants, intended)

    def _preset_applies(self, moves: list[Move], roots: list[Path]) -> bool:
        if any(_is_preset(m) for m in moves):
            return True
        # nothing moved: the preset's own file decides (a tree against a fix of it; its messages
        # name what is missing when a version lacks the method)
        return not moves and any((root / RUNNER_PATH).is_file() for root in roots)

    def _check_moves(self, trees, pairs, found, mutants, intended):
        """Each move checked as --method / --component would; PR #31147's method, when it is one
        of several, by its preset (its report among the others, the others checked as usual).
        The checks are independent: each runs in a child process of its own (engine.forked),
        `--jobs` at a time."""
        from equivalence.engine.forked import Failed, default_jobs, run_each

        jobs = []
        for index, ((b, a), moves) in enumerate(found.items()):
            groups: dict[tuple, list[Move]] = {}
            for m in moves:
                key = (m.origin.rel, m.origin.class_name, m.attr) if m.kind == "component" else (id(m),)
                groups.setdefault(key, []).append(m)
            jobs += [_Job(index, (trees[b], trees[a]), group, moves) for group in groups.values()]
        # an answer travels back as JSON (what the report is): the harness's own values stay behind
        answers = run_each(lambda job: json.dumps(self._check_job(job, mutants, intended)), jobs,
                           getattr(self.args, "jobs", None) or default_jobs(), "move", lambda job: job.group[0].source)
        checks, listed = [], []
        within: dict[str, tuple[str, str]] = {}  # a method moved along -> (the move whose check ran it, verdict)
        for job, answer in zip(jobs, answers):
            if isinstance(answer, Failed):  # one move's check failing must not hide the others': said, never a pass
                listed += [{**entry, "verdict": "could not run", "why": f"the harness failed on this move: {answer.why}"}
                           for entry in job.entries()]
                continue
            check, entries, ran_within = json.loads(answer)
            listed += entries
            checks += [check] if check else []
            within.update(ran_within)
        for entry in listed:  # a move that could not run alone, run for real within another's check
            name = entry["from"].rsplit(".", 1)[-1]
            if entry["verdict"] == "could not run" and name in within:
                entry.update(verdict=within[name][1], verdict_line=within[name][1],
                             why=f"checked within {within[name][0]}'s check (it calls it; both ran for real, every "
                                 f"branch counted)")
        verdicts = [c["report"]["verdict"] for c in checks] or ["could not run"]
        verdict = overall(verdicts)
        return Report(verdict, verdict, tuple(PairEntry.from_json(p) for c in checks for p in c["report"]["pairs"]),
                      leading=(("moves", listed), ("checks", checks)))

    def _check_job(self, job: _Job, mutants: bool, intended) -> tuple[dict | None, list[dict], dict]:
        """One group of moves checked: (the check, its report in JSON as the answer travels back, or
        None when not run; each move's entry; the methods moved along that ran within it -> (this
        move, its verdict))."""
        group, moves, sub_trees = job.group, job.moves, list(job.trees)
        first = group[0]
        entries = job.entries()
        if first.kind not in CHECKED:
            return None, [{**e, "verdict": "not checked", "why": NOT_CHECKED[first.kind]} for e in entries], {}
        calls = _self_calls(first.origin.node)
        # the methods of its class it calls that moved into functions too: beside it (run for real
        # along with it), or elsewhere (one call in both versions, their own check theirs)
        called = [m for m in moves if m is not first and m.kind.startswith("function") and m.origin.name in calls
                  and (m.origin.rel, m.origin.class_name) == (first.origin.rel, first.origin.class_name)]
        together = tuple((m.origin.name, m.destination.name) for m in called if m.destination.rel == first.destination.rel)
        co_moved = tuple((m.origin.name, _function_key(m)) for m in called
                         if m.destination.rel != first.destination.rel and m.destination.class_name is None)
        kind = "preset" if _is_preset(first) else CHECKED[first.kind]
        try:
            if kind == "preset":
                report = self.preset.check(sub_trees, [(0, 1)], mutants,
                                           {0: intended[job.index]} if job.index in intended else {})
            else:
                report = _check_group(first.kind, group, sub_trees, mutants, together, co_moved)
        except LoadError as e:
            return None, [{**entry, "verdict": "could not run", "why": str(e)} for entry in entries], {}
        alone = report.section("move_alone")
        views = tuple(v for m in group for v, _ in view_edits(m.origin.node, m.destination.node)) if alone else ()
        declares = tuple(d for m in group for d, _ in declare_edits(m.origin.node, m.destination.node)) if alone else ()
        after_path = Path(job.trees[1][1])
        at_calls = {m.source: _call_edits(m, moves, layout.find_root(after_path, m.destination.rel).root)
                    for m in group}
        in_bodies = (alone["edits"] if alone else []) + body_edits(report, bool(alone), views,
                                                                   tuple(alone.get("wrapped_by", ())) if alone else (),
                                                                   declares)
        edits = in_bodies + \
            [e for m in group if m.kind.startswith("function")
             for e in default_edits(m.origin.node, m.destination.node, m.destination.rel)] + \
            [e for m in group for e in at_calls[m.source]]
        own = {m.source: _own_edits(m.destination.name, in_bodies) + at_calls[m.source] for m in group} \
            if kind == "component" else {}
        split = attribute(report, group, own) if own else None
        listed = []
        for m, entry in zip(group, entries):
            verdict = {**_verdicts(report, alone), **(split or {}).get(m.source, {})}
            why = report.section("through_callers") or ""
            if verdict["verdict"] in NOT_PROVEN and m.source not in (split or {}):  # the reason first, in words
                from equivalence.subjects.moves_report import why_not_proven

                why = ((alone or {}).get("why") or why_not_proven(report)) + (f" ({why})" if why else "")
            elif verdict["verdict"] in NOT_PROVEN:  # its own verdict in the group: the line says why
                why = verdict["verdict_line"].removeprefix(f"{verdict['verdict']}: ") + (f" ({why})" if why else "")
            listed.append({**entry, "other_edits": own.get(m.source, edits), **verdict, **({"why": why} if why else {}),
                           **({"one_call_with": [f"{first.origin.class_name}.{method}" for method, _ in co_moved]}
                              if co_moved and kind == "method" and first.kind.startswith("function") else {})})
        check = {"moves": [e["from"] for e in entries], "kind": kind, "report": report.to_json()}
        return check, listed, {method: (first.source, report.verdict) for method, _ in together}

    def markdown(self, report: dict) -> str:
        if self.ran_preset or "checks" not in report:
            return self.preset.markdown(report)
        from equivalence.component.report import markdown as component_markdown
        from equivalence.engine.report.report import markdown as method_markdown
        from equivalence.subjects.moves_report import markdown

        renders = {"component": component_markdown, "preset": self.preset.markdown}
        return markdown(report, lambda c: renders.get(c["kind"], method_markdown)(c["report"]))

    def terminal(self, report: dict) -> str:
        if self.ran_preset or "checks" not in report:
            return self.preset.terminal(report)
        from equivalence.component.report import terminal as component_terminal
        from equivalence.engine.report.report import terminal as method_terminal
        from equivalence.subjects.moves_report import terminal

        renders = {"component": component_terminal, "preset": self.preset.terminal}
        return terminal(report, lambda c: renders.get(c["kind"], method_terminal)(c["report"]))


@dataclasses.dataclass(frozen=True)
class _Job:
    """The moves checked together (one function, or the methods moved into one component), with
    the pair they moved between (`index` of the pair, its trees) and every move of that pair."""

    index: int
    trees: tuple[tuple[str, str], tuple[str, str]]
    group: list[Move]
    moves: list[Move]

    def entries(self) -> list[dict]:
        pair = f"{self.trees[0][0]} -> {self.trees[1][0]}"
        return [dict(m.to_json(), pair=pair) for m in self.group]


def _call_edits(move: Move, moves: list[Move], after_root: Path) -> list[dict]:
    """The move's edits at its call sites, a call the class no longer makes said where it went:
    with the method that made it, when that one moved too, else to the function's callers."""
    from equivalence.subjects.moves_callers import _callers

    out = []
    for edit in move.call_edits:
        entry = edit.to_json()
        if edit.gone_from:
            holder = f"{move.origin.class_name}.{edit.gone_from}"
            carrier = next((o for o in moves if o.origin.name == edit.gone_from and
                            (o.origin.rel, o.origin.class_name) == (move.origin.rel, move.origin.class_name)), None)
            callers = [] if carrier else [c for c in _callers(after_root, move.destination)
                                          if c != f"{move.destination.rel}:{move.destination.node.lineno}"]
            if carrier:
                entry["what"] = (f"the call in {holder} moved with it: {holder} is now {carrier.target} "
                                 f"({carrier.destination.rel}:{carrier.destination.node.lineno})")
            elif callers:
                entry["what"] = (f"the call in {holder} left the class; {move.destination.name} is now called at "
                                 + ", ".join(callers[:3]) + (f" and {len(callers) - 3} more" if len(callers) > 3 else ""))
        out.append(entry)
    return out


def _own_edits(name: str, edits: list[dict]) -> list[dict]:
    """Of a component group's edits, those of the moved method `name`: in its own body, of a
    global it reads, or of no one method."""
    return [e for e in edits if e.get("method", name) == name and name in e.get("read_by", [name])]


def _function_key(move: Move) -> str:
    """`MODULE.function`: where a move to a module-level function went."""
    return f"{move.destination.rel.removesuffix('.py').removesuffix('/__init__').replace('/', '.')}.{move.destination.name}"


def _is_preset(move: Move) -> bool:
    return (move.origin.class_name, move.origin.name) == PRESET_METHOD and move.origin.rel == RUNNER_PATH


def _check_group(kind: str, group: list[Move], trees, mutants: bool, together: tuple = (), co_moved: tuple = ()
                 ) -> Report:
    """One move (a function) or the moves into one component, checked as --method / --component;
    `co_moved`: the methods it calls that moved to functions elsewhere (check.Method)."""
    first = group[0]
    if kind == "component":
        from equivalence.component.check import Component, check

        owner_rel, owner = first.owner or (first.origin.rel, first.origin.class_name)  # a mixin's: its user
        # a mixin's methods: the user before runs them as it inherits them
        bases = (first.origin.class_name,) if owner != first.origin.class_name else ()
        renames = tuple((m.destination.name, m.origin.name) for m in group if m.destination.name != m.origin.name)
        moved_file = owner == first.origin.class_name and owner_rel != first.origin.rel  # the class moved with it
        subject = Component(owner, first.attr, owner_rel, tuple(m.destination.name for m in group), bases, together,
                            renames, first.origin.rel if moved_file else None, new_code_runs=True)
        sides = (subject.before(), subject)
        versions = [side.load(layout.find_root(Path(path), side.owner_rel).root, label)
                    for side, (label, path) in zip(sides, trees)]
        return check(versions, [(versions[0], versions[1])], subject, mutants)
    from equivalence.engine.check import Method, Unloaded, check
    from equivalence.engine.load.version import CouldNotImport
    from equivalence.engine.run.frozen import frozen

    if kind in ("other class", "superclass"):  # a pulled-up method: its base's, on the same state
        return _check_in_other_class(first, trees, mutants)

    name = first.destination.name if first.destination.name != first.origin.name else None
    method = Method(first.origin.class_name, first.origin.name, first.origin.rel, name, together=together,
                    co_moved=co_moved, new_code_runs=True)
    versions, notes, overrides = [], [], {}
    after_rel = first.owner[0] if first.owner else first.origin.rel
    if NO_CALL_IN_CLASS in _located(_after_side(method, first), layout.find_root(Path(trees[1][1]), after_rel).root):
        method = dataclasses.replace(method, direct=True)  # the after version is driven directly: the before too
    for index, (label, path) in enumerate(trees):
        side = _after_side(method, first) if index else method
        root = layout.find_root(Path(path), side.source_rel).root
        try:
            try:
                versions.append(side.load(root, label))
            except LoadError as e:
                if index == 0 or NO_CALL_IN_CLASS not in str(e):
                    raise
                try:  # only other modules call the function: drive it through a delegation written for the check
                    written = delegation(_at_owner(first), root)
                except NotMapped as why:
                    raise LoadError(f"{e} The function could not be driven from the class either: {why}") from None
                versions.append(side.load(root, label, written.override))
                notes.append(written.describe())
                overrides = written.override
        except CouldNotImport as e:
            versions.append(Unloaded(label, str(e)))
    with frozen():
        report = check(versions, [(versions[0], versions[1])], method, mutants)
    if notes:
        report = report.adding("through_callers", notes[0])
    if report.verdict == "divergent" and not isinstance(versions[1], Unloaded):
        alone = _move_alone(first, method, versions, trees[1], report, overrides)
        if alone:
            report = report.adding("move_alone", alone)
            if alone["verdict"] == "equivalent" and all(e["changes_behaviour"] is None for e in alone["edits"]):
                report = dataclasses.replace(report, verdict="inconclusive", verdict_line="inconclusive: the move is "
                                             "equivalent, and what the reads through a view the check does not run "
                                             "give is not proven")
    return report


def _check_in_other_class(move: Move, trees, mutants: bool) -> Report:
    """A method moved into a class the owner does not hold: each version's method called directly
    on an instance of its own class, the attributes of self the same world's."""
    from equivalence.engine.check import Method, Unloaded, check
    from equivalence.engine.load.version import CouldNotImport
    from equivalence.engine.run.frozen import frozen

    sides = (Method(move.origin.class_name, move.origin.name, move.origin.rel, direct=True, new_code_runs=True),
             Method(move.destination.class_name, move.destination.name, move.destination.rel, direct=True,
                    new_code_runs=True))
    versions = []
    for side, (label, path) in zip(sides, trees):
        try:
            versions.append(side.load(layout.find_root(Path(path), side.source_rel).root, label))
        except CouldNotImport as e:
            versions.append(Unloaded(label, str(e)))
    with frozen():
        report = check(versions, [(versions[0], versions[1])], sides[0], mutants)
    return report.adding("through_callers", OTHER_CLASS.format(cls=move.destination.class_name,
                                                               old=move.origin.class_name))


def _move_alone(move: Move, method, versions, after_tree, report: Report, base: dict[str, str] | None = None
                ) -> dict | None:
    """The move judged without the fields' sources the after version changed (moves_edits: an
    argument passed from elsewhere than the old body read, reads through a view of the
    instance): its verdict, and those edits, each with its places, changing behaviour when the
    move alone does not diverge (the whole path's first difference shows it). `base`: the text
    overrides the after version was loaded with (a delegation written for the check)."""
    from equivalence.engine.check import check
    from equivalence.engine.run.frozen import frozen

    pair = report.pairs[0]
    side = _after_side(method, move)
    root = layout.find_root(Path(after_tree[1]), side.source_rel).root
    override, edits = dict(base or {}), []
    sources = source_edits(pair.static)
    undone = undo(root, side.source_rel, move.destination.name, sources, override.get(side.source_rel)) \
        if sources else None
    if undone is not None:
        override.update(undone.override)
        edits += [{"file": side.source_rel, "line": line, "before": _read_at(move, e.was), "what": e.what()}
                  for e, line in undone.places]
    text = override.get(side.source_rel) or (root / side.source_rel).read_text(encoding="utf-8")
    wraps = wrap_edits(move.origin.node, text, side.source_rel, side.class_name, move.destination.name)
    if wraps:
        override[side.source_rel] = undo_wraps(text, wraps)
        # the old body's last statement: where it went on with what the function now returns
        went_on = move.origin.node.body[-1].lineno
        edits += [{"file": side.source_rel, "line": call.lineno, "before": f"{move.origin.rel}:{went_on}",
                   "what": wrap.what()} for wrap, call in wraps]
    views = view_edits(move.origin.node, move.destination.node)
    declares = declare_edits(move.origin.node, move.destination.node)
    dest_rel = move.destination.rel
    if (views or declares) and dest_rel not in override:
        text, function = (root / dest_rel).read_text(encoding="utf-8"), move.destination.node
        if declares:  # the writes put back first, then the view read as the instance in them too
            text = undo_declares(text, declares)
            function = function_in(text, dest_rel, function)
        override[dest_rel] = undo_views(text, function, view_edits(move.origin.node, function)) if views else text
        edits += [{"file": dest_rel, "line": stmt.lineno, "before": f"{move.origin.rel}:{move.origin.node.lineno}",
                   "what": view.what()} for view, stmt in views]
        edits += [{"file": dest_rel, "line": stmt.lineno, "before": _written_at(move, declare),
                   "what": declare.what()} for declare, stmt in declares]
    if not edits:
        return None
    try:
        after = side.load(root, f"{after_tree[0]} (the move alone)", override)
    except LoadError:
        return None
    with frozen():
        alone = check([versions[0], after], [(versions[0], after)], method, False)
    shown = (pair.divergences or (None,))[0]
    changes = alone.verdict == "equivalent"
    # a view the check did not run (its module is stubbed: its call is an event of the runs): what
    # reads through it give is not known, so whether the edit changes behaviour is not either
    stubbed = [v for v, _ in views if changes and _called_in(v.call.partition("(")[0], pair)]
    out = []
    for e in edits:
        unknown = any(e["what"] == v.what() for v in stubbed)
        out.append({**e, "changes_behaviour": None if unknown else changes,
                    **({"why": f"the check does not run `{e['what'].split('`')[1].split('= ')[1]}` (another module: "
                               f"stubbed), so what the reads through it give is not known"} if unknown else {}),
                    **({"shown_by": shown} if changes and shown and not unknown else {})})
    first = next((d for p in alone.pairs for d in p.divergences), None)
    if alone.verdict in NOT_PROVEN:  # said from the move alone's own check, not the whole path's
        from equivalence.subjects.moves_report import why_not_proven

        why = why_not_proven(alone)
    return {"verdict": alone.verdict, "edits": out, **({"first_difference": first} if first else {}),
            **({"why": why} if alone.verdict in NOT_PROVEN else {}),
            **({"wrapped_by": [wrap.wrapper for wrap, _ in wraps]} if wraps else {})}


def _written_at(move: Move, declare) -> str:
    """Where the old body first assigned one of the fields a call now declares."""
    me = move.origin.node.args.args[0].arg if move.origin.node.args.args else "self"
    lines = [n.lineno for n in ast.walk(move.origin.node) if isinstance(n, ast.Attribute)
             and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == me
             and n.attr in declare.fields]
    return f"{move.origin.rel}:{min(lines) if lines else move.origin.node.lineno}"


def _called_in(function: str, pair: PairEntry) -> bool:
    """Whether a run recorded a call of `function` (a stub's, whose result the check made up)."""
    name = function.rpartition(".")[2]
    return any(e and e[0] == "call" and str(e[1]).rpartition(".")[2] == name
               for d in pair.divergences for side in ("before", "after")
               for e in ((d.get(side) or {}).get("events") or []) if isinstance(d.get(side), dict))


def _read_at(move: Move, expression: str) -> str:
    """file:line of the old body's first read of `expression`."""
    line = next((n.lineno for n in ast.walk(move.origin.node) if isinstance(n, ast.expr)
                 and ast.unparse(n) == expression), move.origin.node.lineno)
    return f"{move.origin.rel}:{line}"


def _after_side(method, move: Move):
    """The method as the after version holds it: in the class's new file or under its new name
    when the class moved or was renamed."""
    if move.owner is None:
        return method
    return dataclasses.replace(method, source_rel=move.owner[0], class_name=move.owner[1])


def _at_owner(move: Move) -> Move:
    """The move with its origin where the after version keeps the class (its new file or name; a
    mixin's user): where a delegation written for the check goes."""
    if move.owner is None:
        return move
    rel, class_name = move.owner
    return dataclasses.replace(move, origin=dataclasses.replace(move.origin, rel=rel, class_name=class_name))


def _verdicts(report: Report, alone: dict | None) -> dict:
    """A move's verdict: the move alone's when the fields' sources changed on its way (the whole
    path's kept as `path_verdict`), else the whole path's."""
    if not alone:
        return {"verdict": report.verdict, "verdict_line": report.verdict_line}
    changing = sum(e["changes_behaviour"] is True for e in alone["edits"])
    unknown = sum(e["changes_behaviour"] is None for e in alone["edits"])
    line = f"the move is {alone['verdict']}" + (f"; {changing} other edit{'s' if changing != 1 else ''} on its "
                                                f"path change{'s' if changing == 1 else ''} behaviour"
                                                if changing else "") \
        + (f"; {unknown} other edit{'s' if unknown != 1 else ''} not proven" if unknown else "")
    return {"verdict": alone["verdict"], "verdict_line": line, "path_verdict": report.verdict}


def _located(method, root: Path) -> str:
    """Why `method` cannot be located in the tree at `root` ("" when it can), by `ast` alone."""
    from pysource.extraction import LocateError, locate

    try:
        locate(root, method.source_rel, method.class_name, method.method_name, method.function_name)
    except LocateError as e:
        return str(e)
    return ""


def _self_calls(node) -> set[str]:
    """The methods a method calls on its instance (`self.m(...)`)."""
    me = node.args.args[0].arg if node.args.args else "self"
    return {c.func.attr for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == me}


TUNING = Options((
    option("--jobs", type=int, default=None, metavar="N",
           help="with nothing named: check N moves at a time, each in a process of its own (default: one per core)"),
))

# nothing named: what moved
REGISTRATION = Registration("moves", MovesSubject, chosen=lambda args: True, priority=3, options={"tuning": TUNING})
