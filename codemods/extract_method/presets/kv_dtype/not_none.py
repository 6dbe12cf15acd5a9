"""Which recorded values are provably not None.

The call site step 1 writes records the resolved value only `if resolved is not None`, while
the old body recorded whatever it was given; the two agree only when the value can never be
None. Proven here, conservatively, by the form of the expression: a string (or number)
literal, a subscript of a module-level table whose values are all string literals and which
nothing else in the module may change, or a conditional expression of such values.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst
import libcst.matchers as m

from codemods.syntax.rebinding import changes

STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def tables_of_strings(module: cst.Module, text: str, names: Iterable[str]) -> frozenset[str]:
    """The `names` bound once at module level to a dict display of string literals, and never
    rebound or mutated anywhere in the module (`rebinding.changes`)."""
    out = set()
    for name in names:
        binds = [small for s in module.body if isinstance(s, cst.SimpleStatementLine) for small in s.body
                 if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign))
                 and any(m.matches(t, m.Name(name)) for t in _targets(small))]
        if len(binds) != 1 or not isinstance(binds[0], cst.Assign) or not isinstance(binds[0].value, cst.Dict):
            continue
        if all(isinstance(e, cst.DictElement) and isinstance(e.value, STRINGS) for e in binds[0].value.elements):
            out.add(name)
    return frozenset(out - set(changes(text, out)))


def _targets(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    return [small.target]


def is_not_none(node: cst.BaseExpression, tables: frozenset[str]) -> bool:
    if isinstance(node, (*STRINGS, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Name) and node.value.value in tables and len(node.slice) == 1 \
            and isinstance(node.slice[0].slice, cst.Index) and node.slice[0].slice.star is None
    if isinstance(node, cst.IfExp):
        return is_not_none(node.body, tables) and is_not_none(node.orelse, tables)
    return False
