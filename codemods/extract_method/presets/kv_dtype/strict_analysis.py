"""The analysis of #31147's recipe, which spells out every `self.` use it accepts.

It accepts only its mapped reads, its one result and its record, and no `return` at all. Its
call site writes the result, then records the resolved value if it is not None, so a record is
refused when the path may have recorded already, when its value may be None (`not_none`), and
when a result write follows it on a path where the result was not yet written (or the record
method may read the result: `record_blind`).

A record is a write to `record.attribute` or a call `record.method(x)` in the method; it
becomes `record.local = x`, returned first, and the caller records it when it is not None
(`make_static.call_site_block`). Any other write to `self` is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import libcst.matchers as m

from codemods.core.errors import Refusal
from codemods.extract_method.analysis.definite_assignment import Analysis, State, UseVisitor, _first_per_param
from codemods.extract_method.analysis.rewrites import Param, Rewrites
from codemods.extract_method.presets.kv_dtype.not_none import is_not_none, tables_of_strings
from codemods.extract_method.recipe import Recipe
from codemods.syntax.nodes import class_members, dotted


class StrictUses(UseVisitor):
    """Only the mapped chains, the result and the record."""

    SELF_USED = "self used other than through a mapped attribute"

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        d = dotted(node)
        """A recipe that maps every `self.` use (#31147): the mapped chains, the result, the record."""
        if not d or not d.startswith("self."):
            return True
        a, rec = self.a, self.a.recipe.record
        if d in a.result_locals:
            local = a.result_locals[d]
            if local not in self.state[0]:
                raise a.refuse(node, f"read of {d} where it is not assigned on every path")
            a.out.exprs[node] = cst.Name(local)
            return False
        if rec is not None and d == rec.attribute and rec.local in self.state[1]:
            raise a.refuse(node, f"read back of {d} after a possible write to it")
        if d in a.mapped:
            return self._map(node, d)
        parts = d.split(".")
        prefixes = {".".join(parts[:i]) for i in range(2, len(parts))}
        if prefixes & (set(a.mapped) | set(a.result_locals)):
            return True
        raise a.refuse(node, f"read of {d}, which the recipe does not map to a parameter")


class StrictAnalysis(Analysis):
    uses = StrictUses

    def __init__(self, recipe: Recipe, path: Path, line_of: Callable[[cst.CSTNode], Optional[int]],
                 tables: frozenset[str], record_blind: bool):
        super().__init__(recipe, path, line_of)
        self.tables = tables  # module tables whose values are all strings (see not_none)
        self.record_blind = record_blind  # the record method cannot see the result attribute

    def results_of(self, body: cst.BaseSuite) -> dict[str, str]:
        return {r.attribute: r.local for r in self.recipe.results}

    def end(self, body: cst.BaseSuite, state: State) -> None:
        (attribute, local), = self.result_locals.items()
        if state is None or local not in state[0]:
            raise Refusal(f"{attribute} is not assigned on every path through the method", self.path,
                          self.line_of(body))
        self.out.params = [Param(r.param, r.arg_text, r.annotation) for r in _first_per_param(
            [r for r in self.recipe.reads if r.source in self.used_reads])]
        rec = self.recipe.record
        self.out.results = [rec.local, local] if rec else [local]
        self.out.attributes = {local: attribute}

    def compound(self, s: cst.CSTNode, state: State) -> State:
        if m.findall(s, m.Return()):
            raise self.refuse(m.findall(s, m.Return())[0], "early return inside the method")
        if "self" in {n.value for n in m.findall(s, m.Name())}:
            kind = type(s).__name__.lower()
            raise self.refuse(s, f"a {kind} statement that uses self is not supported")
        return state

    def small(self, s: cst.BaseSmallStatement, state: State) -> State:
        if isinstance(s, (cst.Return, cst.Raise, cst.Global, cst.Nonlocal)):
            return super().small(s, state)
        return strict_small(self, s, state)

    def return_(self, s: cst.Return, state: State) -> State:
        raise self.refuse(s, "early return inside the method")


def analyse(func: cst.FunctionDef, module: cst.Module, text: str, cls: cst.ClassDef, recipe: Recipe, path: Path,
            line_of: Callable[[cst.CSTNode], Optional[int]]) -> Rewrites:
    """`Recipe.analysis` for the preset: the method's body under the strict rules."""
    tables = tables_of_strings(module, text, recipe.moved_globals)
    return StrictAnalysis(recipe, path, line_of, tables, _record_blind(cls, recipe)).run(func.body)


# In `possible`: a record may have come before the result was written on every path to it.
EARLY_RECORD = "<record before the result is written>"


def strict_small(a: "StrictAnalysis", s: cst.BaseSmallStatement, state: State) -> State:
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


def _assigned(a: "StrictAnalysis", local: str, state: State) -> State:
    rec = a.recipe.record
    (res_local,) = a.result_locals.values()
    early = {EARLY_RECORD} if rec is not None and local == rec.local and res_local not in state[0] else set()
    return state[0] | {local}, state[1] | {local} | early


def _record(a: "StrictAnalysis", s: cst.CSTNode, value: cst.BaseExpression, state: State, what: str) -> None:
    """A record keeps its meaning at the call site only once per path and when never None."""
    if a.recipe.record.local in state[1]:
        raise a.refuse(s, f"a second record of the resolved value ({what}) on a path that may have "
                          f"recorded it already: the call site records once")
    if not is_not_none(value, a.tables):
        raise a.refuse(s, f"{what} with a value that may be None: the call site records only a value "
                          f"that is not None (record a string literal or a subscript of "
                          f"{' or '.join(sorted(a.tables)) or 'a table of strings'})")


def _style(a: "StrictAnalysis", style: str, node: cst.CSTNode) -> None:
    if a.out.record_style not in (None, style):
        raise a.refuse(node, "the method records the resolved value both by attribute and by call")
    a.out.record_style = style


def _record_blind(cls: cst.ClassDef, recipe: Recipe) -> bool:
    """Whether the class's record method provably cannot see the result attribute: it uses `self`
    only through `self.<first attribute of the record attribute>` (`self.server_args...`), so when
    the caller writes the result relative to the record makes no difference to it."""
    if recipe.record is None:
        return False
    name = recipe.record.method.rpartition(".")[2]
    found = class_members(cls, name)
    if len(found) != 1 or not isinstance(found[0][1], cst.FunctionDef):
        return False
    func = found[0][1]
    allowed = ".".join(recipe.record.attribute.split(".")[:2])  # self.server_args
    selfs = [n for n in m.findall(func.body, m.Name("self"))]
    chains = [d for a in m.findall(func.body, m.Attribute(value=m.Name("self"))) if (d := dotted(a))]
    return len(chains) == len(selfs) and all(d == allowed for d in chains)
