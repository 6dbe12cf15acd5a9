"""Small statements under a strict recipe: its one result and its record (#31147's resolved string).

A record is a write to `record.attribute` or a call `record.method(x)` in the method; it
becomes `record.local = x`, returned first, and the caller records it when it is not None
(`make_static.call_site_block`). Any other write to `self` is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import dotted
from codemods.refactoring.not_none import is_not_none

if TYPE_CHECKING:
    from codemods.refactoring.flow import Analysis, State

# In `possible`: a record may have come before the result was written on every path to it.
EARLY_RECORD = "<record before the result is written>"


def strict_small(a: "Analysis", s: cst.BaseSmallStatement, state: "State") -> "State":
    rec = a.recipe.record
    (res_attribute, res_local), = a.result_locals.items()
    if isinstance(s, cst.Assign) and len(s.targets) == 1:
        target = dotted(s.targets[0].target)
        if target == res_attribute or (rec is not None and target == rec.attribute):
            a.check(s.value, state)
            local = res_local if target == res_attribute else rec.local
            if target != res_attribute:
                _style(a, "attribute", s)
                _record(a, s, s.value, state, f"write to {rec.attribute}")
            elif EARLY_RECORD in state[1]:
                raise a.refuse(s, f"write to {res_attribute} after a record of the resolved value that "
                                  f"may come before its first write on this path: the call site "
                                  f"writes {res_attribute} first, then records")
            elif rec is not None and rec.local in state[1] and a.out.record_style == "method" and not a.record_blind:
                raise a.refuse(s, f"write to {res_attribute} after the resolved value may have been "
                                  f"recorded, and {rec.method} may read {res_attribute}: the call site "
                                  f"records after the last write")
            a.out.stmts[s] = s.with_changes(targets=[s.targets[0].with_changes(target=cst.Name(local))])
            return _assigned(a, local, state)
    if rec is not None and isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) \
            and dotted(s.value.func) == rec.method:
        call = s.value
        if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            raise a.refuse(s, f"{rec.method}(...) called with other than one positional argument")
        a.check(call.args[0].value, state)
        _style(a, "method", s)
        _record(a, s, call.args[0].value, state, f"call of {rec.method}(...)")
        a.out.stmts[s] = cst.Assign(targets=[cst.AssignTarget(cst.Name(rec.local))], value=call.args[0].value)
        return _assigned(a, rec.local, state)
    targets = []
    if isinstance(s, cst.Assign):
        targets = [t.target for t in s.targets]
    elif isinstance(s, (cst.AugAssign, cst.AnnAssign, cst.Del)):
        targets = [s.target]
    for t in targets:
        for node in m.findall(t, m.Attribute()):
            d = dotted(node)
            if d and d.startswith("self."):
                raise a.refuse(s, f"write to {d}, which the recipe does not map")
    a.check(s, state)
    return state


def _assigned(a: "Analysis", local: str, state: "State") -> "State":
    rec = a.recipe.record
    (res_local,) = a.result_locals.values()
    early = {EARLY_RECORD} if rec is not None and local == rec.local and res_local not in state[0] else set()
    return state[0] | {local}, state[1] | {local} | early


def _record(a: "Analysis", s: cst.CSTNode, value: cst.BaseExpression, state: "State", what: str) -> None:
    """A record keeps its meaning at the call site only once per path and when never None."""
    if a.recipe.record.local in state[1]:
        raise a.refuse(s, f"a second record of the resolved value ({what}) on a path that may have "
                          f"recorded it already: the call site records once")
    if not is_not_none(value, a.tables):
        raise a.refuse(s, f"{what} with a value that may be None: the call site records only a value "
                          f"that is not None (record a string literal or a subscript of "
                          f"{' or '.join(sorted(a.tables)) or 'a table of strings'})")


def _style(a: "Analysis", style: str, node: cst.CSTNode) -> None:
    if a.out.record_style not in (None, style):
        raise a.refuse(node, "the method records the resolved value both by attribute and by call")
    a.out.record_style = style
