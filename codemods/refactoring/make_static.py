"""Step 1: turn the instance method into a keyword-only `@staticmethod` returning a tuple.

Writes to the result attribute become a local, writes/record-calls of the resolved value
become a second local; both are returned and applied by the (single) call site, which
records the resolved value the way the old body did.
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import (
    CallFinder,
    LineMap,
    ReplaceStatement,
    call_lines,
    carry_lost_comments,
    class_members,
    def_line,
    dotted,
    plain_names,
    visit_holder,
    stmt,
    top_class,
)
from codemods.refactoring.errors import Refusal
from codemods.refactoring.flow import Analysis, Rewrites
from codemods.refactoring.formatting import Style, format_statement
from codemods.refactoring.not_none import tables_of_strings
from codemods.refactoring.recipe import Read, Recipe


class _ApplyRewrites(cst.CSTTransformer):
    """Swap the expressions and small statements chosen by the flow analysis."""

    def __init__(self, rewrites: Rewrites):
        self.rw = rewrites

    def on_leave(self, original, updated):
        if original in self.rw.exprs:
            new = self.rw.exprs[original]
            if isinstance(updated, cst.BaseExpression) and (updated.lpar or updated.rpar):
                new = new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return new
        if original in self.rw.stmts:
            new = self.rw.stmts[original]
            if isinstance(updated, cst.Assign) and isinstance(new, cst.Assign):
                return updated.with_changes(targets=new.targets)
            if isinstance(updated, cst.Expr):  # record call -> assignment of its argument
                return new.with_changes(value=updated.value.args[0].value, semicolon=updated.semicolon)
            return new
        if isinstance(original, cst.SimpleStatementLine) and any(s in self.rw.stmts for s in original.body):
            return carry_lost_comments(original, updated)  # e.g. from inside the record call's parentheses
        return updated


def keyword_params(reads: list[Read]) -> list[Read]:
    seen: dict[str, Read] = {}
    for r in reads:
        seen.setdefault(r.param, r)
    return list(seen.values())


def make_static(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style) -> cst.Module:
    cls_index, cls = top_class(module, recipe.class_name, path)
    members = class_members(cls, recipe.method_name)
    name = f"{recipe.class_name}.{recipe.method_name}"
    if len(members) != 1:
        raise Refusal(f"{name} is defined {len(members)} times in the class", path,
                      def_line(text, recipe.class_name, recipe.method_name, 1))
    index, func = members[0]
    line = def_line(text, recipe.class_name, recipe.method_name)
    if not isinstance(func, cst.FunctionDef):
        raise Refusal(f"{name} is not a plain method definition", path, line)
    if func.decorators:
        raise Refusal(f"{name} has a decorator (@{cst.Module([]).code_for_node(func.decorators[0].decorator)})",
                      path, line)
    if func.asynchronous:
        raise Refusal(f"{name} is async", path, line)
    p = func.params
    if len(p.params) != 1 or p.params[0].name.value != "self" or p.kwonly_params or p.posonly_params or \
            not isinstance(p.star_arg, cst.MaybeSentinel) or p.star_kwarg:
        raise Refusal(f"{name} takes parameters other than self", path, line)

    rec, res = recipe.record, recipe.result
    line_of = LineMap(func, line)
    tables = tables_of_strings(module, text, recipe.moved_globals)
    rewrites = Analysis(recipe, path, line_of, tables, _record_blind(cls, recipe)).run(func.body)
    params = keyword_params(rewrites.used_reads)
    clash = plain_names(func.body) & ({rec.local, res.local} | {r.param for r in params})
    if clash:
        raise Refusal(f"{name} already uses the name(s) {', '.join(sorted(clash))}", path, line)

    body = func.body.visit(_ApplyRewrites(rewrites))
    stmts = list(body.body)
    at = 1 if stmts and _is_docstring(stmts[0]) else 0
    init = stmt(f"{rec.local}: {rec.annotation} = None\n")
    ret = stmt(f"return {rec.local}, {res.local}\n").with_changes(leading_lines=[cst.EmptyLine()])
    stmts = [*stmts[:at], init, *stmts[at:], ret]
    new_func = func.with_changes(
        decorators=[cst.Decorator(cst.Name("staticmethod"))],
        params=cst.Parameters(
            star_arg=cst.ParamStar(),
            kwonly_params=[
                cst.Param(cst.Name(r.param), annotation=cst.Annotation(cst.parse_expression(r.annotation))
                          if r.annotation else None)
                for r in params
            ],
        ),
        returns=cst.Annotation(cst.parse_expression(recipe.return_annotation)),
        body=body.with_changes(body=stmts),
    )
    new_func = format_statement(new_func, 1, style)
    members_body = list(cls.body.body)
    members_body[index] = new_func
    cls = cls.with_changes(body=cls.body.with_changes(body=members_body))
    cls = _rewrite_call_site(cls, text, path, recipe, params, rewrites.record_style, style)
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1 :]))


def _record_blind(cls: cst.ClassDef, recipe: Recipe) -> bool:
    """Whether the class's record method provably cannot see the result attribute: it uses `self`
    only through `self.<first attribute of the record attribute>` (`self.server_args...`), so when
    the caller writes the result relative to the record makes no difference to it."""
    name = recipe.record.method.rpartition(".")[2]
    found = class_members(cls, name)
    if len(found) != 1 or not isinstance(found[0][1], cst.FunctionDef):
        return False
    func = found[0][1]
    allowed = ".".join(recipe.record.attribute.split(".")[:2])  # self.server_args
    selfs = [n for n in m.findall(func.body, m.Name("self"))]
    chains = [d for a in m.findall(func.body, m.Attribute(value=m.Name("self"))) if (d := dotted(a))]
    return len(chains) == len(selfs) and all(d == allowed for d in chains)


def _is_docstring(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr) and \
        isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def call_site_block(recipe: Recipe, callee: str, params: list[Read], record_style) -> str:
    rec, res = recipe.record, recipe.result
    args = ", ".join(f"{r.param}={r.arg_text}" for r in params)
    first = rec.local if record_style else "_"
    code = f"{first}, {res.attribute} = {callee}({args})\n"
    if record_style == "method":
        code += f"if {rec.local} is not None:\n    {rec.method}({rec.local})\n"
    elif record_style == "attribute":
        code += f"if {rec.local} is not None:\n    {rec.attribute} = {rec.local}\n"
    return code


def _member_holding_the_only_call(cls: cst.ClassDef, text: str, name: str):
    """Fast path, text first: when the file spells `.name(` exactly once, inside a method of the
    class (found by the nearest class-level `def` above it), that method; else None."""
    hits = [h.start() for h in re.finditer(rf"\.[\s\\]*{re.escape(name)}[\s\\]*\(", text)]
    if len(hits) != 1:
        return None
    defs = list(re.finditer(r"^    (?:async\s+)?def\s+(\w+)", text[:hits[0]], re.M))
    if not defs:
        return None
    member = defs[-1].group(1)
    found = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == member]
    return found[0] if len(found) == 1 else None


def find_single_call(cls: cst.ClassDef, text: str, path: Path, recipe: Recipe, callee: str):
    """The one statement `<callee>(...)` in the class: (call, enclosing nodes, depth).

    The stack starts at the class member holding the call (the class itself is not in it)."""
    member = _member_holding_the_only_call(cls, text, recipe.method_name)
    finder = CallFinder(recipe.method_name)
    if member is not None:
        member.visit(finder)
        finder.hits = [(c, s, d + 1) for c, s, d in finder.hits]  # + the class body's block
    if len(finder.hits) != 1:  # not the plain case: search the whole class, exactly
        finder = CallFinder(recipe.method_name)
        cls.visit(finder)
    lines = [n for n in call_lines(text, recipe.method_name)]
    if len(finder.hits) != 1:
        raise Refusal(f"expected exactly one call of {recipe.method_name} in {recipe.class_name}, "
                      f"found {len(finder.hits)}", path, lines[1] if len(lines) > 1 else None)
    call, stack, depth = finder.hits[0]
    if dotted(call.func) != callee:
        raise Refusal(f"the call of {recipe.method_name} is not {callee}(...)", path, lines[0] if lines else None)
    return call, stack, depth


def _rewrite_call_site(cls, text, path, recipe, params, record_style, style):
    callee = f"self.{recipe.method_name}"
    call, stack, depth = find_single_call(cls, text, path, recipe, callee)
    where = call_lines(text, recipe.method_name)
    line = where[0] if where else None
    stmt_line = stack[-1] if stack and isinstance(stack[-1], cst.SimpleStatementLine) else None
    if (stmt_line is None or len(stmt_line.body) != 1 or not isinstance(stmt_line.body[0], cst.Expr)
            or stmt_line.body[0].value is not call or call.args):
        raise Refusal(f"the call {callee}() is not a bare statement of its own", path, line)
    funcs = [n for n in stack if isinstance(n, cst.FunctionDef)]
    if funcs and recipe.record.local in plain_names(funcs[-1]):
        raise Refusal(f"{funcs[-1].name.value} already uses the name {recipe.record.local}", path, line)
    code = call_site_block(recipe, callee, params, record_style)
    new = list(cst.parse_module(code).body)
    new[0] = new[0].with_changes(leading_lines=stmt_line.leading_lines,
                                 trailing_whitespace=stmt_line.trailing_whitespace)
    new[0] = carry_lost_comments(stmt_line, new[0])  # from inside `self.method(  # ...\n)`
    new = [format_statement(s, depth, style) for s in new]
    return visit_holder(cls, stack, ReplaceStatement(stmt_line, new))
