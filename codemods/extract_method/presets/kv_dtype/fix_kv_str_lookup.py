"""Fix: a lookup in a module-level table fails with a clear ValueError, not a bare KeyError.

Adds a helper right after the table::

    def helper(key):
        if key not in TABLE:
            raise ValueError(<message naming the key and the accepted keys>)
        return TABLE[key]

and turns every `TABLE[x]` read in the named function into `helper(x)`. Keys the table has
give exactly what the subscript gave.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods.syntax.nodes import module_function
from codemods.core.errors import AlreadyApplied, Refusal
from codemods.core.formatting import Style, format_module


@dataclass(frozen=True)
class TableLookup:
    function: str  # the function whose lookups are guarded
    table: str  # module-level dict
    helper: str  # name of the new helper
    helper_code: str  # the helper's full definition (module level)


def _lookup(table: str) -> m.BaseMatcherNode:
    return m.Subscript(value=m.Name(table))


def fix_lookup(code: str, path: Path, spec: TableLookup, style: Style) -> str:
    """The fixed module text; `AlreadyApplied` if no lookup is left, `Refusal` off shape."""
    module, func, line = module_function(code, path, spec.function)
    tables = [i for i, s in enumerate(module.body) if m.matches(s, m.SimpleStatementLine(
        body=[m.Assign(targets=[m.AssignTarget(m.Name(spec.table))])]))]
    if not tables and not m.findall(func, _lookup(spec.table)):
        raise Refusal(f"{spec.function}: nothing to fix: this module has no {spec.table}, so no "
                      "lookup can raise KeyError (releases before 0.5.9)", path, line(func))
    if len(tables) != 1:
        raise Refusal(f"{spec.table} is not assigned exactly once at module level", path,
                      line(module.body[tables[1]]) if len(tables) > 1 else line(func))
    helpers = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == spec.helper]
    lookups = m.findall(func, _lookup(spec.table))
    if not lookups:
        if helpers and m.findall(func, m.Call(func=m.Name(spec.helper))):
            raise AlreadyApplied(f"{spec.function}: already applied: its lookups call {spec.helper}()",
                                 path, line(func))
        raise Refusal(f"{spec.function}: no {spec.table}[...] lookup to guard", path, line(func))
    for node in lookups:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) or node.slice[0].slice.star:
            raise Refusal(f"{spec.function}: {spec.table}[...] with a slice or several keys", path, line(node))
    stores = m.findall(func, m.AssignTarget(target=_lookup(spec.table))) + m.findall(
        func, m.AugAssign(target=_lookup(spec.table))) + m.findall(func, m.Del(target=_lookup(spec.table)))
    if stores:
        raise Refusal(f"{spec.function}: writes {spec.table}[...]; only reads can be guarded", path, line(stores[0]))
    if spec.helper in {n.value for n in m.findall(module, m.Name())} and not helpers:
        raise Refusal(f"the name {spec.helper} is already used in this module", path,
                      line(next(n for n in m.findall(module, m.Name(spec.helper)))))

    class _Guard(cst.CSTTransformer):
        def leave_Subscript(self, original, updated):
            if m.matches(original, _lookup(spec.table)):
                return cst.Call(func=cst.Name(spec.helper), args=[cst.Arg(updated.slice[0].slice.value)],
                                lpar=updated.lpar, rpar=updated.rpar)
            return updated

    new_func = func.visit(_Guard())
    body = [new_func if s is func else s for s in module.body]
    if not helpers:
        helper = cst.parse_module(spec.helper_code).body[0]
        helper = helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        body.insert(tables[0] + 1, helper)
    return format_module(module.with_changes(body=body).code, style)
