"""Step 2: cut the static method and its module globals out into a new module.

The new module gets exactly the imports and globals the moved code needs (found by scope
analysis on the moved code alone). The method is cut out of the class entirely (as
upstream's step 2 does), and the call site step 1 wrote calls the module function directly:
`resolved, self.attr = module.name(...)`, still followed by the record. The source module
imports the target module (`from package import module`), so the tree keeps working between
steps. `move_function` returns the method's index in the class body: a run that goes on
to step 3 puts the wrapper back exactly there (see `leave_wrapper`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.refactoring.cstutil import (
    ReplaceStatement,
    binding_line,
    text_line,
    class_members,
    def_line,
    plain_names,
    top_class,
    visit_holder,
)
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_module, format_statement
from codemods.refactoring.free_names import travelling_code
from codemods.refactoring.imports import index_bindings, insert_from_import
from codemods.refactoring.make_static import find_single_call
from codemods.refactoring.recipe import Recipe


def _comments_only(lines) -> list[cst.EmptyLine]:
    return [ln for ln in lines if ln.comment is not None]


def _blank(n: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine() for _ in range(n)]


def move_function(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style
                  ) -> tuple[cst.Module, str, tuple[int, list[cst.EmptyLine]]]:
    """(new source module, target module text, (index the method had in the class body,
    its blank leading lines)): where a run that goes on to step 3 puts the wrapper."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    line = def_line(text, recipe.class_name, recipe.method_name)
    (index, func), = class_members(cls, recipe.method_name)
    bindings = index_bindings(module)
    alias = recipe.target_alias
    if alias in bindings:
        raise Refusal(f"the module already binds {alias!r}; the module import would clash", path,
                      binding_line(text, alias) or line)
    if class_members(cls, alias):
        raise Refusal(f"{recipe.class_name} already binds {alias!r}; the module import would clash", path,
                      def_line(text, recipe.class_name, alias) or line)

    moved_idx: list[int] = []
    for name in recipe.moved_globals:
        found = bindings.get(name, [])
        if not found:  # older releases have no such global (0.5.7-0.5.8.post1: no table)
            continue
        if len(found) != 1 or found[0].kind != "assign":
            raise Refusal(f"{name} is not bound exactly once by a plain module-level assignment", path,
                          binding_line(text, name, 1) or binding_line(text, name) or line)
        moved_idx.append(found[0].index)
    moved_globals = [module.body[i] for i in moved_idx]
    function = func.with_changes(decorators=[], leading_lines=[*_blank(2), *_comments_only(func.leading_lines)])

    package = recipe.source_module.rpartition(".")[0]
    imports, globals_ = travelling_code(module, text, [*moved_globals, function], package, path,
                                        set(recipe.moved_globals), lambda name: _use_line(text, name, line))
    body = [*imports]
    for g in globals_:
        body.append(g.with_changes(leading_lines=_blank(1)))
    for g in moved_globals:
        body.append(g.with_changes(leading_lines=[*_blank(1), *_comments_only(g.leading_lines)]))
    body.append(function)
    target_code = format_module(cst.Module(body=body).code, style)

    # The source module: drop the moved globals and the method, call the module function at
    # the call site, import the new module.
    new_body = [s for i, s in enumerate(module.body) if i not in moved_idx]
    members = list(cls.body.body)
    hole = (index, [ln for ln in func.leading_lines if ln.comment is None])
    del members[index]
    new_cls = cls.with_changes(body=cls.body.with_changes(body=members))
    new_cls = _retarget_call_site(new_cls, text, path, recipe, style)
    new_body[new_body.index(cls)] = new_cls
    new_module = module.with_changes(body=new_body)
    new_module, _ = insert_from_import(new_module, recipe.target_package, alias, path, text)

    moved_text = "".join(cst.Module(body=[s]).code for s in [*moved_globals, func])
    for name in recipe.moved_globals:
        pat = re.compile(rf"\b{re.escape(name)}\b")
        if len(pat.findall(text)) > len(pat.findall(moved_text)):
            # the source module still uses a moved global: import it from its new home
            new_module, _ = insert_from_import(new_module, recipe.target_module, name, path, text)
    return new_module, target_code, hole


def _retarget_call_site(cls: cst.ClassDef, text: str, path: Path, recipe: Recipe, style: Style) -> cst.ClassDef:
    """`resolved, self.attr = self.name(...)` (step 1's call site) -> `... = module.name(...)`."""
    callee = f"self.{recipe.method_name}"
    call, stack, depth = find_single_call(cls, text, path, recipe, callee)
    line = stack[-1] if stack else None
    where = text_line(text, rf"{re.escape(callee)}\s*\(")
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Assign) and line.body[0].value is call):
        raise Refusal(f"the call of {callee}(...) is not the unpacking assignment step 1 writes", path, where)
    funcs = [n for n in stack if isinstance(n, cst.FunctionDef)]
    alias = recipe.target_alias
    if funcs and alias in plain_names(funcs[-1]):
        raise Refusal(f"{funcs[-1].name.value} already uses the name {alias!r}, which would hide the module "
                      f"{recipe.target_module} at the call site", path, where)
    new_call = call.with_changes(func=cst.parse_expression(f"{alias}.{recipe.method_name}"))
    new_line = line.with_changes(body=[line.body[0].with_changes(value=new_call)])
    new_line = format_statement(new_line, depth, style)
    return visit_holder(cls, stack, ReplaceStatement(line, [new_line]))


def _use_line(text: str, name: str, def_at: Optional[int]) -> int:
    """The line where the moved method first spells `name` (else the first line that does)."""
    pat = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    start = sum(len(ln) for ln in text.splitlines(True)[:(def_at or 1) - 1])
    hit = pat.search(text, start) or pat.search(text)
    return text.count("\n", 0, hit.start()) + 1 if hit else (def_at or 1)
