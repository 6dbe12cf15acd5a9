"""Definite-assignment analysis of a method body, deciding how each `self.` use is rewritten.

Walks the statements in order, tracking which result locals are assigned on every path
(`definite`) and on some path (`possible`); `raise` and `return` end a path. `if` is followed
branch by branch; loops may run no time, `try` may leave its body anywhere, so writes inside
them are only possible. The outcome is a set of node replacements for `make_static`, or a
`Refusal` naming the construct the result-returning rewrite could not carry:
- a result written on some paths and not others (the caller cannot reproduce "not written");
- an early `return` where a result is not yet written, or a method that both returns a value
  and writes results;
- a call of another method of the class, `self` used other than through an attribute.

A recipe that spells everything out (#31147's preset) brings its own analysis, a subclass
(`Recipe.analysis`): it overrides `results_of`, `compound`, `small`, `return_` and `uses`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import libcst.matchers as m

from pysource.classes import ClassInfo
from codemods.syntax.nodes import dotted
from codemods.core.errors import Refusal
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.analysis.rewrites import Param, Rewrites

State = Optional[tuple[frozenset, frozenset]]  # (definite, possible); None = path ended
LOOPS = (cst.For, cst.While)


class UseVisitor(cst.CSTVisitor):
    """How each `self.` use in one expression (or statement part) is rewritten, in the state the
    walk has reached there: a first-level `self.X` becomes parameter `X` (named by `--rename`), a
    read of a result attribute reads its local (and, where the local is not yet assigned on every
    path, also makes it a parameter, the local starting from it); a mapped read its replacement."""

    SELF_USED = ("self used other than through an attribute (passed along, getattr(self, ...), ...): "
                 "pass --pass-self NAME to give the function the instance whole")

    def __init__(self, analysis: "Analysis", state: State):
        self.a = analysis
        self.state = state

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if "self" in {n.value for n in m.findall(node, m.Name())}:
            raise self.a.refuse(node, "lambda captures self")
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        d = dotted(node)
        if d and d in self.a.mapped:
            return self._map(node, d)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        d = dotted(node)
        if d is not None and d in self.a.mapped:
            return self._map(node, d)
        if m.matches(node.value, m.Name("self")):
            self.a.first_level(node, self.state)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        if node.value == "self":
            raise self.a.refuse(node, self.SELF_USED)
        if node.value == "super":
            raise self.a.refuse(node, "super() needs the class: the function would have none")
        return False

    def _map(self, node: cst.CSTNode, d: str) -> bool:
        self.a.out.exprs[node] = cst.parse_expression(self.a.mapped[d].new_text)
        self.a.used_reads.add(d)
        return False


class Analysis:
    uses = UseVisitor  # the visitor of each expression the walk checks

    def __init__(self, recipe: Recipe, path: Path, line_of: Callable[[cst.CSTNode], Optional[int]],
                 info: ClassInfo = ClassInfo()):
        self.recipe = recipe
        self.info = info
        self.path = path
        self.line_of = line_of
        self.mapped = {r.source: r for r in recipe.reads}
        self.result_locals = {r.attribute: r.local for r in recipe.results}  # `self.x` -> local
        self.used_reads: set[str] = set()
        self.out = Rewrites()
        self._bare_returns: list[tuple[cst.Return, State, bool]] = []
        self._value_return: Optional[cst.Return] = None
        self._first_write: dict[str, cst.CSTNode] = {}
        self._finally_depth = 0

    def refuse(self, node: cst.CSTNode, why: str) -> Refusal:
        return Refusal(why, self.path, self.line_of(node))

    # --- the whole body ---------------------------------------------------------------
    def run(self, body: cst.BaseSuite) -> Rewrites:
        self.result_locals = self.results_of(body)
        state = self.block(body.body, (frozenset(), frozenset()))
        self.out.final = state
        self.end(body, state)
        return self.out

    def results_of(self, body: cst.BaseSuite) -> dict[str, str]:
        """`self.x` -> the local it becomes, for every attribute the body writes."""
        return {f"self.{a}": self.recipe.name_for(a) for a in _written_attributes(body)}

    def end(self, body: cst.BaseSuite, state: State) -> None:
        """The results, checked against the paths that end: every result written on each."""
        written = list(self._first_write)
        out = self.out
        if written and self._value_return is not None:
            raise self.refuse(self._value_return, f"{self.recipe.qualified} returns a value and also writes "
                                                  f"{', '.join(written)}: only one can be the function's result")
        for attribute in written:
            local = self.result_locals[attribute]
            if state is not None and local not in state[0]:
                raise self.refuse(self._first_write[attribute], f"{attribute} is written on some paths and not "
                                  f"others: the caller cannot reproduce 'not written' (with --pass-self NAME "
                                  f"the function writes it through the instance where the method did)")
            out.results.append(local)
            out.attributes[local] = attribute
        for ret, at, in_finally in self._bare_returns:
            missing = [a for a in written if self.result_locals[a] not in at[0]]
            if missing:
                raise self.refuse(ret, f"early return where {', '.join(missing)} is not written yet: the returned "
                                       f"result cannot say 'not written' (with --pass-self NAME the function writes "
                                       f"through the instance where the method did)")
            if written and in_finally:
                raise self.refuse(ret, "early return inside a try with a finally block: the finally may still "
                                       "change the results after the return")
            if written:
                names = [cst.Name(n) for n in out.results]
                value = names[0] if len(names) == 1 else cst.Tuple([cst.Element(n) for n in names], lpar=[], rpar=[])
                out.stmts[ret] = ret.with_changes(value=value, whitespace_after_return=cst.SimpleWhitespace(" "))
        for p in out.params:
            prop = self.info.properties.get(p.argument.partition(".")[2])
            hit = prop and next((a for a in written if re.search(rf"{re.escape(a)}\b", prop)), None)
            if hit:
                raise Refusal(f"{p.argument} is a property that reads {hit}, which the method writes: read up "
                              f"front, it would not see the write", self.path, self.line_of(self._first_write[hit]))

    # --- parameters and results (called by UseVisitor) --------------------------------
    def first_level(self, node: cst.Attribute, state: State) -> None:
        """`self.X` read in the inferring mode."""
        attribute = f"self.{node.attr.value}"
        if node.attr.value.startswith("__") and node.attr.value.endswith("__"):
            raise self.refuse(node, f"{attribute} is the instance's own, not a value to pass: pass --pass-self NAME "
                                    f"to give the function the instance whole")
        if attribute in self.result_locals:
            local = self.result_locals[attribute]
            if local not in state[0]:  # read before the method writes it on every path: the local starts from it
                self._param(local, attribute, node)
            self.out.exprs[node] = cst.Name(local)
            return
        if node.attr.value in self.info.methods:
            raise self.refuse(node, f"call of another {self.recipe.class_name} method {attribute}(...): the "
                                    f"function could not call it; pass --pass-self NAME to hand it the instance")
        name = self.recipe.name_for(node.attr.value)
        self._param(name, attribute, node)
        self.out.exprs[node] = cst.Name(name)

    def _param(self, name: str, argument: str, node: cst.CSTNode) -> None:
        for p in self.out.params:
            if p.name == name:
                if p.argument != argument:
                    raise self.refuse(node, f"{argument} and {p.argument} would both become parameter {name}")
                return
        self.out.params.append(Param(name, argument))

    # --- statements -------------------------------------------------------------------
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
        return self.compound(s, state)

    def if_(self, s: cst.If, state: State) -> State:
        self.check(s.test, state)
        branches = [self.block(s.body.body, state)]
        if s.orelse is None:
            branches.append(state)
        elif isinstance(s.orelse, cst.If):
            branches.append(self.if_(s.orelse, state))
        else:
            branches.append(self.block(s.orelse.body.body, state))
        return merge(branches)

    def compound(self, s: cst.CSTNode, state: State) -> State:
        """Loops, `with`, `try`, `match` (inferring mode): writes inside loops and `try` are possible only."""
        if isinstance(s, LOOPS):
            if isinstance(s, cst.For):
                self.check(s.iter, state)
                self.no_self_target(s.target)
            else:
                self.check(s.test, state)
            body = self.block(s.body.body, state)
            after = (state[0], state[1] | (body[1] if body else frozenset()))
            return self.block(s.orelse.body.body, after) if s.orelse else after
        if isinstance(s, cst.With):
            for item in s.items:
                self.check(item.item, state)
                if item.asname is not None:
                    self.no_self_target(item.asname.name)
            return self.block(s.body.body, state)
        if isinstance(s, (cst.Try, cst.TryStar)):
            return self.try_(s, state)
        if isinstance(s, cst.Match):
            self.check(s.subject, state)
            ends = [state]
            for case in s.cases:
                self.check(case.pattern, state)
                if case.guard is not None:
                    self.check(case.guard, state)
                ends.append(self.block(case.body.body, state))
            return merge(ends)
        raise self.refuse(s, f"a {type(s).__name__.lower()} statement is not supported here")

    def try_(self, s, state: State) -> State:
        self._finally_depth += bool(s.finalbody)
        body = self.block(s.body.body, state)
        start = (state[0], state[1] | (body[1] if body else frozenset()))
        ends = [self.block(s.orelse.body.body, body) if s.orelse is not None and body is not None else body]
        for h in s.handlers:
            if h.type is not None:
                self.check(h.type, start)
            ends.append(self.block(h.body.body, start))
        self._finally_depth -= bool(s.finalbody)
        merged = merge(ends)
        if s.finalbody is None:
            return merged
        after = self.block(s.finalbody.body.body, merged if merged is not None else start)
        return after if merged is not None else None

    def small(self, s: cst.BaseSmallStatement, state: State) -> State:
        if isinstance(s, cst.Return):
            return self.return_(s, state)
        if isinstance(s, cst.Raise):
            if s.exc is not None:
                self.check(s.exc, state)
            if s.cause is not None:
                self.check(s.cause, state)
            return None
        if isinstance(s, (cst.Global, cst.Nonlocal)):
            raise self.refuse(s, f"a `{'global' if isinstance(s, cst.Global) else 'nonlocal'}` statement: in "
                                 f"another module it would bind another name")
        if isinstance(s, (cst.Break, cst.Continue)):
            return None
        if isinstance(s, cst.Assign):
            self.check(s.value, state)
            for t in s.targets:
                state = self.write(t.target, state)
            return state
        if isinstance(s, cst.AugAssign):
            self.check(s.value, state)
            self.check(s.target, state)  # read first: `self.x += 1` reads self.x
            return self.write(s.target, state)
        if isinstance(s, cst.AnnAssign):
            if s.value is not None:
                self.check(s.value, state)
            return self.write(s.target, state) if s.value is not None else state
        if isinstance(s, cst.Del):
            if m.findall(s.target, m.Attribute(value=m.Name("self"))):
                raise self.refuse(s, f"del of {dotted(m.findall(s.target, m.Attribute(value=m.Name('self')))[0])}: "
                                     f"the caller could not delete it for the function")
        self.check(s, state)
        return state

    def return_(self, s: cst.Return, state: State) -> State:
        if s.value is None or m.matches(s.value, m.Name("None")):
            self._bare_returns.append((s, state, self._finally_depth > 0))
        else:
            self.check(s.value, state)
            self._value_return = self._value_return or s
            self.out.returns_value = True
        return None

    def write(self, target: cst.BaseExpression, state: State) -> State:
        """A write to `target`: `self.Y` becomes the result local Y; `self.Y.z = ...` reads self.Y."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                state = self.write(e.value, state)
            return state
        if isinstance(target, cst.StarredElement):
            return self.write(target.value, state)
        if m.matches(target, m.Attribute(value=m.Name("self"))):
            attribute = f"self.{target.attr.value}"
            local = self.result_locals[attribute]
            self._first_write.setdefault(attribute, target)
            self.out.exprs[target] = cst.Name(local)
            return state[0] | {local}, state[1] | {local}
        if not isinstance(target, cst.Name):
            self.check(target, state)
        return state

    def no_self_target(self, target: cst.CSTNode) -> None:
        if "self" in {n.value for n in m.findall(target, m.Name())}:
            raise self.refuse(target, "a loop or `with` target writes to self")

    def check(self, node: cst.CSTNode, state: State) -> None:
        node.visit(self.uses(self, state))


def merge(states: list[State]) -> State:
    live = [b for b in states if b is not None]
    if not live:
        return None
    return frozenset.intersection(*[b[0] for b in live]), frozenset.union(*[b[1] for b in live])


def _written_attributes(body: cst.CSTNode) -> list[str]:
    """Attributes of self that some statement of the body assigns (`self.x = `, `self.x += `, tuples)."""
    out: dict[str, None] = {}
    found = _Targets()
    body.visit(found)
    for t in found.assigned + found.updated:
        for a in m.findall(t, m.Attribute(value=m.Name("self"))):
            if a is t or _in_unpacking(t, a):
                out.setdefault(a.attr.value)
    return list(out)


class _Targets(cst.CSTVisitor):
    """The targets of the assignments under a node, in the order a walk meets them: plain
    (`x = `) apart from the rest (`x += `, `x: T = `)."""

    def __init__(self) -> None:
        self.assigned: list[cst.BaseExpression] = []
        self.updated: list[cst.BaseExpression] = []

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.assigned.append(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.updated.append(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.updated.append(node.target)


def _in_unpacking(target: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether `node` is itself one of the names `target` (a tuple/list display) assigns."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(e.value is node or _in_unpacking(e.value, node) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return target.value is node or _in_unpacking(target.value, node)
    return False


def _first_per_param(reads: list) -> list:
    seen: dict = {}
    for r in reads:
        seen.setdefault(r.param, r)
    return list(seen.values())
