"""Format statements of a file's text after an edit, the way `core.formatting` formats a
touched statement: each alone, at its nesting depth, every other line of the file as it was."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from codemods.core.formatting import Style, format_statement
from pysource import parsing
from pysource.imports import nodes


def touched_statements(tree: ast.Module, lines: set[int]) -> list[ast.stmt]:
    """The innermost simple statements (or compound statements' headers: the whole statement)
    holding any of `lines`, outermost duplicates removed."""
    found = []
    for n in nodes(tree):
        if isinstance(n, ast.stmt) and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                          ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                                                          ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)):
            if any(n.lineno <= line <= n.end_lineno for line in lines):
                found.append(n)
    return sorted(found, key=lambda n: n.lineno)


def restyle(text: str, lines: set[int], style: Style) -> str:
    """`text` with the simple statements on `lines` formatted (black), each at its depth."""
    if not style.enabled or not lines:
        return text
    tree = parsing.parse(text)
    source = text.splitlines(keepends=True)
    for stmt in reversed(touched_statements(tree, lines)):
        first, last = stmt.lineno - 1, stmt.end_lineno
        if not _alone(source, stmt):
            continue
        chunk = "".join(source[first:last])
        indent = chunk[: len(chunk) - len(chunk.lstrip(" \t"))]
        if "\t" in indent:
            continue
        try:
            node = cst.parse_statement(textwrap.dedent(chunk))
        except cst.ParserSyntaxError:
            continue
        formatted = format_statement(node, len(indent) // 4, style)
        code = cst.Module(body=[formatted]).code
        new = textwrap.indent(code, indent, lambda ln: bool(ln.strip()))
        if not new.endswith("\n"):
            new += "\n"
        source[first:last] = [new]
    return "".join(source)


def _alone(source: list[str], stmt: ast.stmt) -> bool:
    """The statement has its lines to itself (no `;` neighbour, nothing before it on its first line)."""
    head = source[stmt.lineno - 1].encode()[:stmt.col_offset].decode(errors="ignore")
    tail = source[stmt.end_lineno - 1].encode()[stmt.end_col_offset:].decode(errors="ignore").strip()
    return not head.strip() and (not tail or tail.startswith("#"))
