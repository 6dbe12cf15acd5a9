"""Step 2 into a module that already exists: append the function, add only what it lacks.

A needed import or module global the target already binds the same way (same module and
name; the same assignment) is reused. One it binds differently, or the function's own name
already bound there, is refused naming both lines: the function would see another value
than it did in the class's module. New imports join an existing `from X import ...` line or
go where isort would put them; new copied globals go after the target's leading block of
imports and assignments; moved globals and the function go at the end. Only those pieces
are formatted.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, Sequence

import libcst as cst

from codemods.refactoring.cstutil import binding_line, parse
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_statement
from codemods.refactoring.free_names import free_names
from codemods.refactoring.import_placement import add_import
from codemods.refactoring.imports import Binding, absolute_module, bound_name, index_bindings, is_import_line


def merge_into(text: str, path: Path, package: str, imports: Sequence[cst.SimpleStatementLine],
               globals_: Sequence[cst.BaseStatement], moved: Sequence[cst.BaseStatement],
               function: cst.FunctionDef, style: Style, source_line: Callable[[str], str]) -> str:
    """The target module's new text. `source_line(name)`: where the source module binds `name`
    ("path:line"); `source_line(function name)`: where the method is defined."""
    module = original = parse(path, text)
    bindings = index_bindings(original)  # indices into `original`: `module` changes as imports are added

    def clash(name: str, what: str) -> Refusal:
        return Refusal(f"{what}: the target already binds {name} here, otherwise than {source_line(name)}; "
                       f"rename one of them first", path, binding_line(text, name) or 1)

    name = function.name.value
    if name in bindings:
        raise Refusal(f"the target already binds {name}, the name of the function moving here from "
                      f"{source_line(name)}; choose another name with --name", path, binding_line(text, name) or 1)
    for stmt in imports:
        small = stmt.body[0]
        is_from = isinstance(small, cst.ImportFrom)
        missing = []
        for alias in small.names:
            bound = bound_name(alias, is_from)
            found = bindings.get(bound)
            if found is None:
                missing.append(alias)
            elif not _same_import(original, found, small, alias, package):
                raise clash(bound, f"the moved code imports {bound}")
        if missing:
            module = add_import(module, stmt.with_changes(body=[small.with_changes(names=missing)]), style, package)
    new_globals = []
    for g in globals_:
        bound = _assigned_name(g)
        found = bindings.get(bound)
        if found is None:
            new_globals.append(g)
        elif not (len(found) == 1 and found[0].kind == "assign" and _same_code(original.body[found[0].index], g)):
            raise clash(bound, f"the moved code reads the module global {bound}")
    for g in moved:
        if _assigned_name(g) in bindings:
            raise clash(_assigned_name(g), f"{_assigned_name(g)} moves here")
    body = list(module.body)
    at = _after_header(body)
    if new_globals:  # after whatever binds the names they read
        needed = free_names(new_globals) - {_assigned_name(g) for g in new_globals}
        now = index_bindings(module)
        at = max([at, *(b.index + 1 for n in needed for b in now.get(n, []))])
    body[at:at] = [g.with_changes(leading_lines=[cst.EmptyLine()]) for g in new_globals]
    for g in moved:
        body.append(format_statement(g.with_changes(leading_lines=[cst.EmptyLine()] * 2), 0, style))
    body.append(format_statement(function, 0, style))
    return module.with_changes(body=body).code


def _same_import(module: cst.Module, found: list[Binding], small, alias: cst.ImportAlias, package: str) -> bool:
    """Whether the target's one binding of the name is an import of the same thing as `alias` in `small`."""
    if len(found) != 1 or found[0].kind != "import":
        return False
    theirs = module.body[found[0].index].body
    other = next((s for s in theirs if isinstance(s, (cst.Import, cst.ImportFrom)) and found[0].alias in (
        s.names if not isinstance(s.names, cst.ImportStar) else ())), None)
    if other is None or type(other) is not type(small):
        return False
    same_name = _code(found[0].alias.name) == _code(alias.name)
    if isinstance(small, cst.ImportFrom):
        return same_name and absolute_module(other, package) == absolute_module(small, package)
    return same_name


def _assigned_name(stmt: cst.BaseStatement) -> str:
    small = stmt.body[0]
    target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
    return target.value


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _same_code(a: cst.BaseStatement, b: cst.BaseStatement) -> bool:
    """Same statement up to layout and comments."""
    return ast.dump(ast.parse(cst.Module(body=[a]).code)) == ast.dump(ast.parse(cst.Module(body=[b]).code))


def _after_header(body: list) -> int:
    """Index right after the leading run of imports, plain assignments and the docstring."""
    at = 0
    for i, s in enumerate(body):
        if not isinstance(s, cst.SimpleStatementLine):
            break
        if is_import_line(s) or all(isinstance(x, (cst.Assign, cst.AnnAssign, cst.Expr)) for x in s.body):
            at = i + 1
            continue
        break
    return at
