"""The statements that bind a module global, by `ast`: what import time runs, and every way a
name gets bound there (assignment, import, def, class, except-as, `global` in a function)."""

from __future__ import annotations

import ast
import functools

from pysource.imports import nodes


def _module_level(tree: ast.Module):
    """(node, innermost statement holding it) for nodes run at import time: not inside
    function or class bodies (or lambdas)."""
    stack = [(n, n) for n in tree.body]
    while stack:
        node, stmt = stack.pop()
        yield node, stmt
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend((c, c if isinstance(c, ast.stmt) else stmt) for c in ast.iter_child_nodes(node))


@functools.lru_cache(maxsize=16)  # per module (by identity); callers do not change it
def binding_index(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """The statements binding each module global (one walk of the module)."""
    out: dict[str, list[ast.stmt]] = {}

    def add(name, stmt):
        out.setdefault(name, []).append(stmt)

    for node, stmt in _module_level(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            add(node.id, stmt)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                add(alias.asname or alias.name.split(".")[0], stmt)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name, stmt)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name, stmt)
    for node in nodes(tree):
        if node.__class__ is ast.Global:
            for name in node.names:
                add(name, node)
    return {name: sorted(set(stmts), key=lambda n: (n.lineno, n.col_offset)) for name, stmts in out.items()}
