"""Small questions about a syntax tree that the resolvers share."""

from __future__ import annotations

import ast
from typing import Iterator


def own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's own body (not of functions, lambdas or classes nested in it)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def rebinds(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in own_nodes(fn))


def head_name(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def spells(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def decorator_name(d: ast.AST) -> str:
    d = d.func if isinstance(d, ast.Call) else d
    return ast.unparse(d)


def decorated(fn: ast.AST, name: str) -> bool:
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(d, ast.Name) and d.id == name for d in fn.decorator_list)


def local_classes(tree: ast.Module) -> set[str]:
    return {s.name for s in tree.body if isinstance(s, ast.ClassDef)}
