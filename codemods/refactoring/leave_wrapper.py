"""Step 3: put back an instance method of the same name that calls the moved function.

After step 2 the class has no such method and the call site calls the module function
(`resolved, self.attr = module.name(...)`, then the record `if`). Those statements move into
the wrapper unchanged, and the original bare call `self.method()` is restored in their place.

Where the wrapper goes:
- in a run that did step 2 too, exactly where the method was (step 2 hands over the index),
  so the whole refactoring's diff stays minimal;
- in a run that starts at step 3 that place is recorded nowhere, so a fixed rule decides:
  right after the record method (`_record_kv_cache_dtype`) when the class has it - the method
  sat there in every release that has both - else right after the method holding the call
  site, else at the end of the class. The step's message says which.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import class_members, def_line, text_line, top_class, visit_holder
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_statement
from codemods.refactoring.make_static import find_single_call
from codemods.refactoring.recipe import Recipe


class _TakeCallSite(cst.CSTTransformer):
    """Cut the unpacking statement (and its record `if`) out; leave `self.method()` instead."""

    def __init__(self, target: cst.SimpleStatementLine, recipe: Recipe, style: Style):
        self.target, self.recipe, self.style = target, recipe, style
        self.taken: list[cst.BaseStatement] = []

    def leave_IndentedBlock(self, original, updated):
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


def _member_name(s: cst.CSTNode) -> Optional[str]:
    return s.name.value if isinstance(s, (cst.FunctionDef, cst.ClassDef)) else None


def wrapper_position(cls: cst.ClassDef, recipe: Recipe, holder: Optional[cst.CSTNode]) -> tuple[int, str]:
    """Split run: (index in the class body to insert the wrapper at, why there)."""
    members = list(cls.body.body)
    record = recipe.record.method.rpartition(".")[2]
    found = [i for i, s in enumerate(members) if _member_name(s) == record]
    if found:
        return found[-1] + 1, f"after {recipe.class_name}.{record}"
    for i, s in enumerate(members):
        if s is holder and _member_name(s):
            return i + 1, f"after {recipe.class_name}.{_member_name(s)}, which holds the call site"
    return len(members), f"at the end of {recipe.class_name}"


def leave_wrapper(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style,
                  hole: Optional[tuple[int, list[cst.EmptyLine]]] = None) -> tuple[cst.Module, str]:
    """(new module, where the wrapper went). `hole`: where step 2 took the method from, in
    the same run (index in the class body, blank leading lines)."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    if class_members(cls, recipe.method_name):
        raise Refusal(f"{recipe.class_name} already has a member {recipe.method_name}", path,
                      def_line(text, recipe.class_name, recipe.method_name))
    callee = f"{recipe.target_alias}.{recipe.method_name}"
    call, stack, depth = find_single_call(cls, text, path, recipe, callee)
    line = stack[-1] if stack else None
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Assign) and line.body[0].value is call):
        raise Refusal(f"the call of {callee}(...) is not the unpacking assignment step 2 writes", path,
                      text_line(text, rf"{re.escape(callee)}\s*\("))
    if hole is None:
        holder = next((n for n in stack if isinstance(n, cst.FunctionDef)), None)
        at, where = wrapper_position(cls, recipe, holder)
        leading = [cst.EmptyLine(indent=False)]
    else:
        at, leading = hole
        where = "where the method was"
    taker = _TakeCallSite(line, recipe, style)
    cls = visit_holder(cls, stack, taker)
    moved = list(taker.taken)
    moved[0] = moved[0].with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace())
    members = list(cls.body.body)
    wrapper = cst.FunctionDef(
        name=cst.Name(recipe.method_name),
        params=cst.Parameters(params=[cst.Param(cst.Name("self"))]),
        body=cst.IndentedBlock(body=moved),
        leading_lines=leading,
    )
    wrapper = format_statement(wrapper, 1, style)
    members.insert(at, wrapper)
    cls = cls.with_changes(body=cls.body.with_changes(body=members))
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:])), where
