"""Step 2: cut the static method and its module globals out into a new module.

The new module gets exactly the imports and globals the moved code needs (found by scope
analysis on the moved code alone). The class keeps a one-line alias
`name = staticmethod(module.name)` at the method's position, so the tree keeps working
between steps and step 3 knows where the wrapper goes.
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import class_members, def_line, top_class
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_module
from codemods.refactoring.free_names import travelling_code
from codemods.refactoring.imports import index_bindings, insert_from_import
from codemods.refactoring.recipe import Recipe


def alias_code(recipe: Recipe) -> str:
    return f"{recipe.method_name} = staticmethod({recipe.target_alias}.{recipe.method_name})\n"


def _comments_only(lines) -> list[cst.EmptyLine]:
    return [ln for ln in lines if ln.comment is not None]


def _blank(n: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine() for _ in range(n)]


def move_function(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style
                  ) -> tuple[cst.Module, str]:
    cls_index, cls = top_class(module, recipe.class_name, path)
    line = def_line(text, recipe.class_name, recipe.method_name)
    (index, func), = class_members(cls, recipe.method_name)
    bindings = index_bindings(module)
    alias = recipe.target_alias
    if alias in bindings:
        raise Refusal(f"the module already binds {alias!r}; the module import would clash", path)
    if class_members(cls, alias):
        raise Refusal(f"{recipe.class_name} already binds {alias!r}; the module import would clash", path)

    moved_idx: list[int] = []
    for name in recipe.moved_globals:
        found = bindings.get(name, [])
        if len(found) != 1 or found[0].kind != "assign":
            raise Refusal(f"{name} is not bound exactly once by a plain module-level assignment", path)
        moved_idx.append(found[0].index)
    moved_globals = [module.body[i] for i in moved_idx]
    function = func.with_changes(decorators=[], leading_lines=[*_blank(2), *_comments_only(func.leading_lines)])

    package = recipe.source_module.rpartition(".")[0]
    imports, globals_ = travelling_code(module, [*moved_globals, function], package, path,
                                        set(recipe.moved_globals))
    body = [*imports]
    for g in globals_:
        body.append(g.with_changes(leading_lines=_blank(1)))
    for g in moved_globals:
        body.append(g.with_changes(leading_lines=[*_blank(1), *_comments_only(g.leading_lines)]))
    body.append(function)
    target_code = format_module(cst.Module(body=body).code, style)

    # The source module: drop the moved globals, leave the alias, import the new module.
    new_body = [s for i, s in enumerate(module.body) if i not in moved_idx]
    members = list(cls.body.body)
    keep_blank = [ln for ln in func.leading_lines if ln.comment is None]
    members[index] = cst.parse_statement(alias_code(recipe)).with_changes(leading_lines=keep_blank)
    new_cls = cls.with_changes(body=cls.body.with_changes(body=members))
    new_body[new_body.index(cls)] = new_cls
    new_module = module.with_changes(body=new_body)
    new_module, _ = insert_from_import(new_module, recipe.target_package, alias)

    moved_text = "".join(cst.Module(body=[s]).code for s in [*moved_globals, func])
    for name in recipe.moved_globals:
        pat = re.compile(rf"\b{re.escape(name)}\b")
        if len(pat.findall(text)) > len(pat.findall(moved_text)):
            new_module, _ = _import_back(new_module, recipe, name)
    return new_module, target_code


def _import_back(module: cst.Module, recipe: Recipe, name: str):
    """The source module still uses a moved global: import it from its new home."""
    return insert_from_import(module, recipe.target_module, name)
