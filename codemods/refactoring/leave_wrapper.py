"""Step 3: put back an instance method of the same name that calls the moved function.

The call site's unpack-and-record statements move into the wrapper (calling
`module.function` instead of `self.function`), and the original bare call
`self.method()` is restored in their place.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import class_members, dotted, top_class
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_statement
from codemods.refactoring.make_static import find_single_call
from codemods.refactoring.recipe import Recipe


class _TakeCallSite(cst.CSTTransformer):
    """Cut the unpacking statement (and its record `if`) out; leave `self.method()` instead."""

    def __init__(self, target: cst.SimpleStatementLine, recipe: Recipe, style: Style):
        self.target, self.recipe, self.style = target, recipe, style
        self.taken: list[cst.BaseStatement] = []
        self.depth = 0

    def visit_IndentedBlock(self, node) -> None:
        self.depth += 1

    def leave_IndentedBlock(self, original, updated):
        self.depth -= 1
        body = list(updated.body)
        for i, s in enumerate(original.body):
            if s is not self.target:
                continue
            n = 1
            rec = self.recipe.record.local
            if i + 1 < len(body) and m.matches(body[i + 1], m.If(
                    test=m.Comparison(left=m.Name(rec), comparisons=[m.ComparisonTarget(m.IsNot(), m.Name("None"))]),
                    orelse=None)):
                n = 2
            self.taken = body[i:i + n]
            call = cst.parse_statement(f"self.{self.recipe.method_name}()\n").with_changes(
                leading_lines=body[i].leading_lines, trailing_whitespace=body[i].trailing_whitespace)
            body[i:i + n] = [call]
            return updated.with_changes(body=body)
        return updated


class _Retarget(cst.CSTTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def leave_Call(self, original, updated):
        if dotted(updated.func) == self.old:
            return updated.with_changes(func=cst.parse_expression(self.new))
        return updated


def leave_wrapper(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style) -> cst.Module:
    cls_index, cls = top_class(module, recipe.class_name, path)
    (index, alias), = class_members(cls, recipe.method_name)
    callee = f"self.{recipe.method_name}"
    call, stack, depth = find_single_call(cls, text, path, recipe, callee)
    line = stack[-1] if stack else None
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Assign) and line.body[0].value is call):
        raise Refusal(f"the call of {callee}(...) is not the unpacking assignment step 1 writes", path)
    taker = _TakeCallSite(line, recipe, style)
    cls = cls.visit(taker)
    moved = [s.visit(_Retarget(callee, f"{recipe.target_alias}.{recipe.method_name}")) for s in taker.taken]
    moved[0] = moved[0].with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace())
    wrapper = cst.FunctionDef(
        name=cst.Name(recipe.method_name),
        params=cst.Parameters(params=[cst.Param(cst.Name("self"))]),
        body=cst.IndentedBlock(body=moved),
        leading_lines=alias.leading_lines,
    )
    wrapper = format_statement(wrapper, 1, style)
    members = list(cls.body.body)
    members[index] = wrapper
    cls = cls.with_changes(body=cls.body.with_changes(body=members))
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:]))
