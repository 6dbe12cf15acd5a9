"""Which recorded values are provably not None.

The call site step 1 writes records the resolved value only `if resolved is not None`, while
the old body recorded whatever it was given; the two agree only when the value can never be
None. Proven here, conservatively, by the form of the expression: a string (or number)
literal, a subscript of a module-level table whose values are all string literals and which
nothing else in the module may change, or a conditional expression of such values.
"""

from __future__ import annotations

import re
from typing import Iterable

import libcst as cst
import libcst.matchers as m

STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def tables_of_strings(module: cst.Module, text: str, names: Iterable[str]) -> frozenset[str]:
    """The `names` bound once at module level to a dict display of string literals, never rebound
    (`global`) or mutated (`NAME[...] = `, `NAME.update(...)`, ...) anywhere in the text."""
    out = set()
    for name in names:
        binds = [small for s in module.body if isinstance(s, cst.SimpleStatementLine) for small in s.body
                 if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign))
                 and any(m.matches(t, m.Name(name)) for t in _targets(small))]
        if len(binds) != 1 or not isinstance(binds[0], cst.Assign) or not isinstance(binds[0].value, cst.Dict):
            continue
        if not all(isinstance(e, cst.DictElement) and isinstance(e.value, STRINGS) for e in binds[0].value.elements):
            continue
        n = re.escape(name)
        changed = (rf"\b{n}\s*\[[^\n]*\]\s*(?:[-+*/|&^%@]|//|\*\*|<<|>>)?=(?!=)",
                   rf"\b{n}\s*\.\s*(?:update|setdefault|pop|popitem|clear|__setitem__)\b",
                   rf"\bglobal\b[^\n]*\b{n}\b", rf"\bdel\s+{n}\b", rf"\b{n}\s*(?:\|=|:=)",
                   rf"\bas\s+{n}\b", rf"\bfor\b[^\n]*\b{n}\b[^\n]*\bin\b")
        assigned = re.findall(rf"(?<![\w.]){n}\s*(?::[^=\n]*)?=(?!=)", text)
        if len(assigned) == 1 and not any(re.search(p, text) for p in changed):
            out.add(name)
    return frozenset(out)


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
