"""The methods moved into one component are checked together (they share state); when that check
finds a difference, each move gets the verdict of what concerns it, not the group's. A difference
concerns a moved method when its body reads a module global bound differently, when a sequence
showing a difference calls it or reaches its changed body, or when it calls (on its instance, or
through its class) a method so concerned. A method no difference concerns is judged by its body:
the same as the old one modulo the component's map (docstrings aside) is equivalent; changed is
inconclusive (the runs showed no difference there, but a changed body is proven only by running
every branch). A difference no changed body explains (the component's construction, its map)
keeps the group's verdict for every move."""

from __future__ import annotations

import ast

from pysource.moves import Move


def attribute(report: dict, group: list[Move], edits: dict[str, list[dict]]) -> dict[str, dict] | None:
    """Each move's verdict fields (by its `source`) when the group's check diverged and every
    difference can be told to concern given methods; None to keep the group's verdict for all.
    `edits`: each move's own other edits (by `source`)."""
    pairs = report.get("pairs") or []
    if report.get("verdict") != "divergent" or len(group) < 2 or len(pairs) != 1:
        return None
    names = {m.destination.name: m for m in group}
    own = {name: [e for e in edits.get(m.source, []) if e.get("method") == name and not e.get("docstring")]
           for name, m in names.items()}
    calls = {name: _reached(m.destination.node, set(names)) for name, m in names.items()}
    concerned = _concerned(pairs[0], lambda m: _changes_within(m, calls, own))
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
    out = {}
    for name, move in names.items():
        if name in concerned:
            out[move.source] = {"verdict": "divergent", "verdict_line": f"divergent: {concerned[name]}"}
        elif own[name]:
            count = len(own[name])
            out[move.source] = {"verdict": "inconclusive", "verdict_line":
                                f"inconclusive: its body changed ({count} edit{'s' if count != 1 else ''} "
                                f"below) and no configuration showed a difference there; the group's differences "
                                f"are in {_listed(concerned)}"}
        else:
            out[move.source] = {"verdict": "equivalent", "verdict_line":
                                f"equivalent: the moved body is the old one, modulo the component's map; the "
                                f"group's differences are in {_listed(concerned)}"}
    return out


def _changes_within(name: str, calls: dict[str, set[str]], own: dict[str, list]) -> set[str]:
    """The methods, `name` or those it reaches, whose body changed."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += calls.get(m, ())
    return {m for m in seen if own.get(m)}


def _concerned(pair: dict, changed) -> dict[str, str] | None:
    """The moved methods each divergence concerns -> why: a changed global's readers; a sequence's
    methods and the changed bodies they reach. None when one cannot be placed: a sequence showing
    a difference while no method it reaches has a changed body (the difference is then in what
    they share: the component's construction, its map)."""
    out: dict[str, str] = {}
    for d in pair.get("divergences", []):
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
