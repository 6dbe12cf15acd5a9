"""Definite-assignment analysis of a method body, deciding how each `self.` use is rewritten.

Walks the if/elif/else tree in order, tracking which result locals are assigned on
every path (`definite`) and on some path (`possible`); `raise` ends a path. The
outcome is a set of node replacements for `make_static`, or a `Refusal` naming the
construct that the tuple-returning rewrite could not carry.

The call site writes the result, then records the resolved value if it is not None. So a
record is refused when the path may have recorded already, when its value may be None
(`not_none`), and when a result write follows it on a path where the result was not yet
written (or the record method may read the result: `make_static._record_blind`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import dotted
from codemods.refactoring.errors import Refusal
from codemods.refactoring.not_none import is_not_none
from codemods.refactoring.recipe import Read, Recipe

State = Optional[tuple[frozenset, frozenset]]  # (definite, possible); None = path ended
# In `possible`: a record may have come before the result was written on every path to it.
EARLY_RECORD = "<record before the result is written>"


@dataclass
class Rewrites:
    exprs: dict = field(default_factory=dict)  # original expr node -> new expr
    stmts: dict = field(default_factory=dict)  # original small statement -> new small statement
    used_reads: list = field(default_factory=list)  # Read entries the body uses, recipe order
    record_style: Optional[str] = None  # "attribute" | "method" | None
    final: State = None


class Analysis:
    def __init__(self, recipe: Recipe, path: Path, line_of: Callable[[cst.CSTNode], Optional[int]],
                 tables: frozenset[str] = frozenset(), record_blind: bool = False):
        self.recipe = recipe
        self.tables = tables  # module tables whose values are all strings (see not_none)
        self.record_blind = record_blind  # the record method cannot see the result attribute
        self.path = path
        self.line_of = line_of
        self.reads: dict[str, Read] = {r.source: r for r in recipe.reads}
        self.out = Rewrites()
        self._used: set[str] = set()

    def refuse(self, node: cst.CSTNode, why: str) -> Refusal:
        return Refusal(why, self.path, self.line_of(node))

    # --- statements -------------------------------------------------------------------
    def run(self, body: cst.BaseSuite) -> Rewrites:
        state = self.block(body.body, (frozenset(), frozenset()))
        res = self.recipe.result
        if state is None or res.local not in state[0]:
            raise Refusal(
                f"{res.attribute} is not assigned on every path through the method", self.path,
                self.line_of(body),
            )
        self.out.final = state
        self.out.used_reads = [r for r in self.recipe.reads if r.source in self._used]
        return self.out

    def block(self, stmts, state: State) -> State:
        for s in stmts:
            if state is None:
                return None
            state = self.statement(s, state)
        return state

    def statement(self, s: cst.CSTNode, state: State) -> State:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if state is None:
                    return None
                state = self.small(small, state)
            return state
        if isinstance(s, cst.If):
            return self.if_(s, state)
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            if "self" in {n.value for n in m.findall(s, m.Name())}:
                raise self.refuse(s, f"nested {'function' if isinstance(s, cst.FunctionDef) else 'class'} "
                                     f"{s.name.value} captures self")
            return state
        if m.findall(s, m.Return()):
            raise self.refuse(m.findall(s, m.Return())[0], "early return inside the method")
        if "self" in {n.value for n in m.findall(s, m.Name())}:
            kind = type(s).__name__.lower()
            raise self.refuse(s, f"a {kind} statement that uses self is not supported")
        return state

    def if_(self, s: cst.If, state: State) -> State:
        self.check(s.test, state)
        branches = [self.block(s.body.body, state)]
        if s.orelse is None:
            branches.append(state)
        elif isinstance(s.orelse, cst.If):
            branches.append(self.if_(s.orelse, state))
        else:
            branches.append(self.block(s.orelse.body.body, state))
        live = [b for b in branches if b is not None]
        if not live:
            return None
        definite = frozenset.intersection(*[b[0] for b in live])
        possible = frozenset.union(*[b[1] for b in live])
        return definite, possible

    def small(self, s: cst.BaseSmallStatement, state: State) -> State:
        rec, res = self.recipe.record, self.recipe.result
        if isinstance(s, cst.Return):
            raise self.refuse(s, "early return inside the method")
        if isinstance(s, cst.Raise):
            if s.exc is not None:
                self.check(s.exc, state)
            if s.cause is not None:
                self.check(s.cause, state)
            return None
        if isinstance(s, cst.Assign) and len(s.targets) == 1:
            target = dotted(s.targets[0].target)
            if target in (res.attribute, rec.attribute):
                self.check(s.value, state)
                local = res.local if target == res.attribute else rec.local
                if target == rec.attribute:
                    self._style("attribute", s)
                    self._record(s, s.value, state, f"write to {rec.attribute}")
                elif EARLY_RECORD in state[1]:
                    raise self.refuse(s, f"write to {res.attribute} after a record of the resolved value that "
                                         f"may come before its first write on this path: the call site "
                                         f"writes {res.attribute} first, then records")
                elif rec.local in state[1] and self.out.record_style == "method" and not self.record_blind:
                    raise self.refuse(s, f"write to {res.attribute} after the resolved value may have been "
                                         f"recorded, and {rec.method} may read {res.attribute}: the call site "
                                         f"records after the last write")
                self.out.stmts[s] = s.with_changes(
                    targets=[s.targets[0].with_changes(target=cst.Name(local))]
                )
                return self._assigned(local, state)
        if isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) and dotted(s.value.func) == rec.method:
            call = s.value
            if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
                raise self.refuse(s, f"{rec.method}(...) called with other than one positional argument")
            self.check(call.args[0].value, state)
            self._style("method", s)
            self._record(s, call.args[0].value, state, f"call of {rec.method}(...)")
            self.out.stmts[s] = cst.Assign(
                targets=[cst.AssignTarget(cst.Name(rec.local))], value=call.args[0].value
            )
            return self._assigned(rec.local, state)
        targets = []
        if isinstance(s, cst.Assign):
            targets = [t.target for t in s.targets]
        elif isinstance(s, (cst.AugAssign, cst.AnnAssign)):
            targets = [s.target]
        elif isinstance(s, cst.Del):
            targets = [s.target]
        for t in targets:
            for node in m.findall(t, m.Attribute()):
                d = dotted(node)
                if d and d.startswith("self."):
                    raise self.refuse(s, f"write to {d}, which the recipe does not map")
        self.check(s, state)
        return state

    def _assigned(self, local: str, state: State) -> State:
        early = {EARLY_RECORD} if local == self.recipe.record.local and self.recipe.result.local not in state[0] \
            else set()
        return state[0] | {local}, state[1] | {local} | early

    def _record(self, s: cst.CSTNode, value: cst.BaseExpression, state: State, what: str) -> None:
        """A record keeps its meaning at the call site only once per path and when never None."""
        if self.recipe.record.local in state[1]:
            raise self.refuse(s, f"a second record of the resolved value ({what}) on a path that may have "
                                 f"recorded it already: the call site records once")
        if not is_not_none(value, self.tables):
            raise self.refuse(s, f"{what} with a value that may be None: the call site records only a value "
                                 f"that is not None (record a string literal or a subscript of "
                                 f"{' or '.join(sorted(self.tables)) or 'a table of strings'})")

    def _style(self, style: str, node: cst.CSTNode) -> None:
        if self.out.record_style not in (None, style):
            raise self.refuse(node, "the method records the resolved value both by attribute and by call")
        self.out.record_style = style

    # --- expressions ------------------------------------------------------------------
    def check(self, node: cst.CSTNode, state: State) -> None:
        node.visit(_ReadVisitor(self, state))


class _ReadVisitor(cst.CSTVisitor):
    def __init__(self, analysis: Analysis, state: State):
        self.a = analysis
        self.state = state

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if "self" in {n.value for n in m.findall(node, m.Name())}:
            raise self.a.refuse(node, "lambda captures self")
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        d = dotted(node)
        if d and d in self.a.reads:
            return self._map(node, d)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        d = dotted(node)
        if not d or not d.startswith("self."):
            return True
        a, rec, res = self.a, self.a.recipe.record, self.a.recipe.result
        if d == res.attribute:
            if res.local not in self.state[0]:
                raise a.refuse(node, f"read of {d} where it is not assigned on every path")
            a.out.exprs[node] = cst.Name(res.local)
            return False
        if d == rec.attribute and rec.local in self.state[1]:
            raise a.refuse(node, f"read back of {d} after a possible write to it")
        if d in a.reads:
            return self._map(node, d)
        parts = d.split(".")
        prefixes = {".".join(parts[:i]) for i in range(2, len(parts))}
        if prefixes & (set(a.reads) | {res.attribute}):
            return True
        raise a.refuse(node, f"read of {d}, which the recipe does not map to a parameter")

    def visit_Name(self, node: cst.Name) -> bool:
        if node.value == "self":
            raise self.a.refuse(node, "self used other than through a mapped attribute")
        return False

    def _map(self, node: cst.CSTNode, d: str) -> bool:
        self.a.out.exprs[node] = cst.parse_expression(self.a.reads[d].new_text)
        self.a._used.add(d)
        return False
