"""The methods moved into one component are checked together (they share state); each move then
gets the verdict of what concerns it, not the group's. A difference concerns a moved method when
its body reads a module global bound differently, when a sequence showing a difference calls it or
reaches its changed body, or when it calls (on its instance, or through its class) a method so
concerned. A method no difference concerns is equivalent when its body is the old one modulo the
component's map (docstrings aside) and the runs reached every branch of it in both versions with
nothing left unmodelled; inconclusive, in a group that diverged, when its body changed or was not
run through (a changed body is proven only by running every branch, an unchanged one only by
runs too: a field the owner rebinds after building the component is the map's to answer). A
difference no changed body explains (the component's construction, its map) keeps the group's
verdict for every move.
"""

from __future__ import annotations

import ast
import re

from equivalence.engine.report.models import PairEntry
from equivalence.engine.report.verdict import Report
from pysource.moves import Move


def attribute(report: Report, group: list[Move], edits: dict[str, list[dict]]) -> dict[str, dict] | None:
    """Each move's verdict fields (by its `source`) where they differ from the group's; None to
    keep the group's verdict for all (a difference that cannot be placed). `edits`: each move's own
    other edits (by `source`)."""
    if len(group) < 2 or len(report.pairs) != 1:
        return None
    pair, divergent = report.pairs[0], report.verdict == "divergent"
    names = {m.destination.name: m for m in group}
    own = {name: [e for e in edits.get(m.source, []) if e.get("method") == name and not e.get("docstring")]
           for name, m in names.items()}
    calls = {name: _reached(m.destination.node, set(names)) for name, m in names.items()}
    concerned: dict[str, str] = {}
    if divergent:
        concerned = _concerned(pair, lambda m: _changes_within(m, calls, own))
        if concerned is None:
            return None
    grew = True
    while grew:  # a method calling a concerned one is concerned through it
        grew = False
        for name, callees in calls.items():
            via = next((c for c in sorted(callees) if c in concerned and c != name), None)
            if name not in concerned and via:
                concerned[name] = f"it calls `{via}`, which {concerned[via]}"
                grew = True
    # what the runs prove of a method: every branch of it run in both versions, nothing left unmodelled
    settled = not pair.not_modelled and not pair.budget_reached
    elsewhere = f"; the group's differences are in {_listed(concerned)}" if concerned else ""
    out = {}
    for name, move in names.items():
        ran = settled and _ran_fully(pair, (move.origin.name, name))
        if name in concerned:
            out[move.source] = {"verdict": "divergent", "verdict_line": f"divergent: {concerned[name]}"}
        elif own[name] and divergent:
            count = len(own[name])
            out[move.source] = {"verdict": "inconclusive", "verdict_line":
                                f"inconclusive: its body changed ({count} edit{'s' if count != 1 else ''} "
                                f"below) and no configuration showed a difference there{elsewhere}"}
        elif not own[name] and ran:
            out[move.source] = {"verdict": "equivalent", "verdict_line":
                                f"equivalent: the moved body is the old one, modulo the component's map, and the "
                                f"runs reached every branch of it{elsewhere}"}
        elif not own[name] and divergent:
            out[move.source] = {"verdict": "inconclusive", "verdict_line":
                                f"inconclusive: the moved body is the old one, modulo the component's map, but the "
                                f"runs did not reach every branch of it{elsewhere}"}
    return out or None


def _ran_fully(pair: PairEntry, names: tuple[str, ...]) -> bool:
    """Whether the method (under any of `names`) was called in both versions with every branch of
    it run."""
    never = pair.could_not_run or ""
    if any(re.search(rf"\b(?:method|component|delegation|function) {re.escape(n)}\b", never) for n in names):
        return False
    for side in ("before", "after"):
        units = [u for u in pair.coverage.get(side, {}).get("units", [])
                 if u["unit"].split(" ", 1)[-1] in names]
        if any(u["hit"] < u["branches"] for u in units):  # (a method without branches has no unit)
            return False
    return True


def _changes_within(name: str, calls: dict[str, set[str]], own: dict[str, list]) -> set[str]:
    """The methods, `name` or those it reaches, whose body changed."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += calls.get(m, ())
    return {m for m in seen if own.get(m)}


def _concerned(pair: PairEntry, changed) -> dict[str, str] | None:
    """The moved methods each divergence concerns -> why: a changed global's readers; a sequence's
    methods and the changed bodies they reach. None when one cannot be placed: a sequence showing
    a difference while no method it reaches has a changed body (the difference is then in what
    they share: the component's construction, its map)."""
    out: dict[str, str] = {}
    for d in pair.divergences:
        if d.get("kind") == "changed-module-global":
            for g in d.get("globals", []):
                if not g.get("read_by"):
                    return None
                for m in g["read_by"]:
                    out.setdefault(m, f"reads the module global `{g['name']}`, bound differently")
            continue
        sequence = [c for c in d.get("sequence") or [] if c != "rebind"]
        reached = set().union(*(changed(m) for m in sequence)) if sequence else set()
        if not reached:
            return None
        calls = " then ".join(sequence)
        for m in sequence:
            out.setdefault(m, f"the calls {calls} show a difference ({d['kind']})")
        for m in sorted(reached - set(sequence)):  # a changed body the calls reach may be where it comes from
            out.setdefault(m, f"its body changed and the calls {calls}, which reach it, show a difference ({d['kind']})")
    return out


def _reached(fn: ast.AST, names: set[str]) -> set[str]:
    """The group's methods a moved method's body names as an attribute (`self.m`, `Class.m`)."""
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and n.attr in names}


def _listed(concerned: dict[str, str]) -> str:
    names = sorted(concerned)
    return ", ".join(f"`{n}`" for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
