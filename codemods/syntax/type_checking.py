"""Imports under `if TYPE_CHECKING:`: which names a module binds there, and adding some.

Such an import is only read by type checkers (the block never runs), which is how a module
with `from __future__ import annotations` names in its annotations what it must not import at
run time: a module that would close an import cycle, or the class's own module. New ones join
the module's first top-level `if TYPE_CHECKING:` block (without `else`), an import from the
same module joining its line, or open such a block right after the leading imports, with
`from typing import TYPE_CHECKING` placed as isort would.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence

import libcst as cst

from pysource import parsing
from codemods.core.formatting import Style, format_import
from codemods.syntax.import_placement import add_import, from_import
from codemods.syntax.import_statements import bound_name, drop_aliases, index_bindings, is_import_line


def is_type_checking(test: cst.BaseExpression) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`."""
    if isinstance(test, cst.Attribute):
        return test.attr.value == "TYPE_CHECKING" and isinstance(test.value, cst.Name) and test.value.value == "typing"
    return isinstance(test, cst.Name) and test.value == "TYPE_CHECKING"


def _blocks(module: cst.Module) -> list[int]:
    """Indices of the top-level `if TYPE_CHECKING:` statements without `else`."""
    return [i for i, s in enumerate(module.body) if isinstance(s, cst.If) and s.orelse is None
            and is_type_checking(s.test) and isinstance(s.body, cst.IndentedBlock)]


def type_checking_imports(module: cst.Module) -> dict[str, cst.SimpleStatementLine]:
    """{name: the import line binding it} for the imports of the module's `if TYPE_CHECKING:` blocks."""
    out: dict[str, cst.SimpleStatementLine] = {}
    for i in _blocks(module):
        for s in module.body[i].body.body:
            if is_import_line(s) and len(s.body) == 1 and not isinstance(s.body[0].names, cst.ImportStar):
                is_from = isinstance(s.body[0], cst.ImportFrom)
                for a in s.body[0].names:
                    out.setdefault(bound_name(a, is_from), s)
    return out


def add_type_checking_imports(module: cst.Module, imports: Sequence[cst.SimpleStatementLine], style: Style,
                              package: str) -> cst.Module:
    """`module` with `imports` under its `if TYPE_CHECKING:` (new names only)."""
    have = type_checking_imports(module)
    imports = [s for s in imports if not all(
        bound_name(a, isinstance(s.body[0], cst.ImportFrom)) in have for a in s.body[0].names)]
    if not imports:
        return module
    blocks = _blocks(module)
    if not blocks and "TYPE_CHECKING" not in index_bindings(module):
        module = add_import(module, from_import("typing", ["TYPE_CHECKING"]), style, package)
    blocks = _blocks(module)
    at = blocks[0] if blocks else None
    inner = cst.Module(body=list(module.body[at].body.body) if at is not None else [])
    for s in imports:
        inner = add_import(inner, s, style, package)
    body = list(module.body)
    if at is not None:
        body[at] = body[at].with_changes(body=body[at].body.with_changes(body=inner.body))
    else:
        block = cst.If(test=cst.Name("TYPE_CHECKING"), body=cst.IndentedBlock(body=list(inner.body)),
                       leading_lines=[cst.EmptyLine()])
        body.insert(_after_imports(body), block)
    return module.with_changes(body=body)


def _after_imports(body: list[cst.BaseStatement]) -> int:
    """Index right after the leading block of import lines (after the docstring, if any)."""
    last: Optional[int] = None
    for i, s in enumerate(body):
        if is_import_line(s):
            last = i
        elif not (i == 0 and isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr)):
            break
    return 0 if last is None else last + 1


def drop_imports(module: cst.Module, names: set[str], style: Style) -> cst.Module:
    """`module` without its top-level and TYPE_CHECKING imports of `names`; a block left empty
    goes, and then `TYPE_CHECKING` too when nothing else reads it."""
    blocks = {id(module.body[i]) for i in _blocks(module)}
    body: list[cst.BaseStatement] = []
    carry: Optional[Sequence[cst.EmptyLine]] = None
    emptied = False
    for s in module.body:
        lead = s.leading_lines
        if is_import_line(s) and len(s.body) == 1:
            s = _without(s, names, style)
        elif id(s) in blocks:
            inner = [t for t in (_without(t, names, style) if is_import_line(t) and len(t.body) == 1 else t
                                 for t in s.body.body) if t is not None]
            emptied = emptied or not inner
            s = s.with_changes(body=s.body.with_changes(body=[inner[0].with_changes(leading_lines=()), *inner[1:]])
                               ) if inner else None
        if s is None:
            carry = lead if carry is None else max(carry, lead, key=len)
            continue
        if carry is not None:
            s = s.with_changes(leading_lines=max(carry, s.leading_lines, key=len))
            carry = None
        body.append(s)
    module = module.with_changes(body=body)
    if emptied and not any(isinstance(n, ast.Name) and n.id == "TYPE_CHECKING" for n in ast.walk(
            parsing.parse(module.code))):
        module = drop_imports(module, {"TYPE_CHECKING"}, style)
    return module


def _without(line: cst.SimpleStatementLine, names: set[str], style: Style) -> Optional[cst.SimpleStatementLine]:
    small = line.body[0]
    if isinstance(small.names, cst.ImportStar):
        return line
    gone = {bound_name(a, isinstance(small, cst.ImportFrom)) for a in small.names} & names
    if not gone:
        return line
    kept = drop_aliases(line, gone)
    return None if kept is None else format_import(kept, style)

