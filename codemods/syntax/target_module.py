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
from typing import Callable, Optional, Sequence

import libcst as cst

from codemods.syntax.nodes import binding_line, code, parse
from codemods.core.render import Renderer
from codemods.core.errors import Refusal
from codemods.core.formatting import Style, format_statement
from codemods.syntax.travelling_code import free_names
from codemods.syntax.import_placement import add_import
from codemods.syntax.import_statements import Binding, absolute_module, bound_name, index_bindings, is_import_line
from codemods.syntax.import_statements import module_name as module_name_of
from codemods.syntax.type_checking import add_type_checking_imports, type_checking_imports


def merge_into(text: str, path: Path, module_name: str, package: str, imports: Sequence[cst.SimpleStatementLine],
               type_imports: Sequence[cst.SimpleStatementLine], globals_: Sequence[cst.BaseStatement],
               moved: Sequence[cst.BaseStatement], function: cst.FunctionDef, style: Style,
               source_line: Callable[[str], str]) -> str:
    """The target module's new text: `merged_module(...)`'s code, the lines of what it kept copied
    (a later parse of the text reuses the tree)."""
    merged = merged_module(text, path, module_name, package, imports, type_imports, globals_, moved, function, style,
                           source_line)
    return code(merged, Renderer(parse(path, text), text).render)


def merged_module(text: str, path: Path, module_name: str, package: str, imports: Sequence[cst.SimpleStatementLine],
                  type_imports: Sequence[cst.SimpleStatementLine], globals_: Sequence[cst.BaseStatement],
                  moved: Sequence[cst.BaseStatement], function: cst.FunctionDef, style: Style,
                  source_line: Callable[[str], str]) -> cst.Module:
    """The target module (`module_name`, in `package`) with what moves merged in. `type_imports`: for under
    `if TYPE_CHECKING:`; an import of a name from the target itself is its own global there.
    `source_line(name)`: where the source module binds `name` ("path:line"); `source_line(function
    name)`: where the method is defined."""
    module = original = parse(path, text)
    bindings = index_bindings(original)  # indices into `original`: `module` changes as imports are added

    def clash(name: str, what: str) -> Refusal:
        return Refusal(f"{what}: the target already binds {name} here, otherwise than {source_line(name)}; "
                       f"rename one of them first", path, binding_line(text, name) or 1)

    name = function.name.value
    if name in bindings:
        raise Refusal(f"the target already binds {name}, the name of the function moving here from "
                      f"{source_line(name)}; choose another name with --name", path, binding_line(text, name) or 1)
    guarded = type_checking_imports(original)
    for stmt in [*imports, *type_imports]:
        if _from_itself(stmt, module_name, package):
            for alias in stmt.body[0].names:
                name = bound_name(alias, True)
                own = module_name_of(alias.name)
                if name != own or name not in bindings:
                    why = f"spelled {name} for the target's {own}" if name != own else f"which binds no {own}"
                    raise Refusal(f"the moved code reads {name}, imported by {source_line(name)} from this very "
                                  f"module, {why}; spell it as the target does in the method first", path,
                                  binding_line(text, own) or 1)
    imports = [s for s in imports if not _from_itself(s, module_name, package)]
    type_imports = [s for s in type_imports if not _from_itself(s, module_name, package)]
    for stmt in imports:
        missing = _missing(stmt, original, bindings, package, clash)
        if missing is not None:
            module = add_import(module, missing, style, package)
    module = add_type_checking_imports(module, [m for s in type_imports if (
        m := _missing(s, original, bindings, package, clash, guarded)) is not None], style, package)
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
    return module.with_changes(body=body)


def _from_itself(stmt: cst.SimpleStatementLine, module_name: str, package: str) -> bool:
    """Whether `stmt` imports from the target module itself (the class's module imported those
    names from there: in the target they are its own globals, the same objects; 0.5.15.post1:
    RoutedExpertsCapturer, into sglang.srt.state_capturer.routed_experts)."""
    small = stmt.body[0]
    return isinstance(small, cst.ImportFrom) and absolute_module(small, package) == module_name


def _missing(stmt: cst.SimpleStatementLine, original: cst.Module, bindings: dict, package: str,
             clash: Callable[[str, str], Refusal], guarded: Optional[dict] = None
             ) -> Optional[cst.SimpleStatementLine]:
    """The part of import `stmt` the target lacks (None: it binds every name the same way);
    `guarded`: for an import under TYPE_CHECKING, the target's own such import lines."""
    small = stmt.body[0]
    is_from = isinstance(small, cst.ImportFrom)
    missing = []
    for alias in small.names:
        bound = bound_name(alias, is_from)
        found = bindings.get(bound)
        if found is None:
            missing.append(alias)
            continue
        where = original
        if guarded is not None and bound in guarded:  # the target imports it under TYPE_CHECKING already
            line = guarded[bound]
            where = cst.Module(body=[line])
            found = [Binding(bound, 0, "import", next(a for a in line.body[0].names if bound_name(
                a, isinstance(line.body[0], cst.ImportFrom)) == bound))]
        if not is_from and not alias.asname and "." in _code(alias.name) and guarded is None:
            # `import a.b`: the target lacks it unless it has that very import (`import a` alone
            # binds the same name without loading a.b)
            if not any(b.kind == "import" and b.alias is not None and not b.alias.asname
                       and _code(b.alias.name) == _code(alias.name) for b in found):
                if all(b.kind == "import" for b in found):
                    missing.append(alias)
                    continue
                raise clash(bound, f"the moved code imports {bound}")
            continue
        if not same_import(where, found, small, alias, package):
            raise clash(bound, f"the moved code imports {bound}")
    return stmt.with_changes(body=[small.with_changes(names=missing)]) if missing else None


def same_import(module: cst.Module, found: list[Binding], small, alias: cst.ImportAlias, package: str) -> bool:
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
