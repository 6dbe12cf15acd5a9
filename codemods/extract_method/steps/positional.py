"""`--positional` (step 3): the moved function's keyword-only parameters become
positional-or-keyword, as far as Python allows (a parameter without a default after one with a
default stays keyword-only, and those after it), and its calls in the class pass them by position.

`--no-wrapper` (step 3): no wrapper goes back; the call sites step 2 made call the function."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from codemods.core.formatting import Style, format_statement
from codemods.syntax.nodes import dotted, parse


def positional_params(func: cst.FunctionDef) -> tuple[cst.FunctionDef, list[str]]:
    """`func` with its keyword-only parameters positional-or-keyword where Python allows; the
    names of the leading ones without a default (its calls pass those by position, the others
    by keyword as they did)."""
    p = func.params
    moved, seen_default = [], any(q.default is not None for q in p.params)
    for q in p.kwonly_params:
        if seen_default and q.default is None:
            break
        seen_default |= q.default is not None
        moved.append(q)
    rest = list(p.kwonly_params[len(moved):])
    params = [*p.params, *(q.with_changes(comma=cst.MaybeSentinel.DEFAULT) for q in moved)]
    new = p.with_changes(params=params, kwonly_params=rest,
                         star_arg=cst.ParamStar() if rest else cst.MaybeSentinel.DEFAULT)
    leading = []
    for q in moved:
        if q.default is not None:
            break
        leading.append(q.name.value)
    return func.with_changes(params=new), leading


def make_positional(target_text: str, target: Path, function: str, style: Style) -> tuple[str, list[str]]:
    module = parse(target, target_text)
    body, names = [], []
    for s in module.body:
        if isinstance(s, cst.FunctionDef) and s.name.value == function:
            s, names = positional_params(s)
            s = format_statement(s, 0, style)
        body.append(s)
    return module.with_changes(body=body).code, names


class _PassPositionally(cst.CSTTransformer):
    """Calls of `callee` pass `names` by position (in that order), the rest by keyword as they
    were; each statement holding one is formatted again at its depth."""

    def __init__(self, callee: str, names: list[str], style: Style):
        self.callee, self.names, self.style = callee, names, style
        self.found = 0
        self.depth = 0
        self.changed: list[bool] = []

    def visit_IndentedBlock(self, node):
        self.depth += 1

    def leave_IndentedBlock(self, original, updated):
        self.depth -= 1
        return updated

    def visit_SimpleStatementLine(self, node):
        self.changed.append(False)

    def leave_SimpleStatementLine(self, original, updated):
        if self.changed.pop():
            return format_statement(updated, self.depth, self.style)
        return updated

    def leave_Call(self, original, updated):
        if dotted(updated.func) != self.callee:
            return updated
        if any(a.star for a in updated.args) or any(a.keyword is None for a in updated.args):
            return updated
        by_name = {a.keyword.value: a for a in updated.args}
        lead = []
        for n in self.names:
            if n not in by_name:
                break
            lead.append(n)
        if not lead:
            return updated
        plain = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        first = [cst.Arg(by_name[n].value, comma=plain) for n in lead]
        rest = [a.with_changes(comma=plain) for a in updated.args if a.keyword.value not in lead]
        args = [*first, *rest]
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.found += 1
        if self.changed:
            self.changed[-1] = True
        return updated.with_changes(args=args, whitespace_before_args=cst.SimpleWhitespace(""))


def pass_positionally(cls: cst.ClassDef, callee: str, names: list[str], style: Style) -> tuple[cst.ClassDef, int]:
    """`cls` with every call of `callee` passing `names` by position, and how many calls it
    changed; statements touched are formatted again. None found is no error: a call by keyword
    still binds a positional-or-keyword parameter (a method called only from other files, or
    not at all)."""
    if not names:
        return cls, 0
    changer = _PassPositionally(callee, names, style)
    changer.depth = 0
    new = cls.visit(changer)
    return new, changer.found
