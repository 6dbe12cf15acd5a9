"""What binds a name in a body of statements (not in the functions or classes nested in it)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Union


@dataclass(frozen=True, slots=True)
class Value:
    """`NAME = value`, `NAME := value`."""

    value: ast.expr


@dataclass(frozen=True, slots=True)
class Unpacked:
    """`a, NAME = value`: item `index` of the value."""

    value: ast.expr
    index: int


@dataclass(frozen=True, slots=True)
class Annotation:
    """`NAME: annotation`."""

    annotation: ast.expr


@dataclass(frozen=True, slots=True)
class Definition:
    """`def NAME` or `class NAME`."""

    node: ast.AST


@dataclass(frozen=True, slots=True)
class LocalImport:
    node: ast.AST


@dataclass(frozen=True, slots=True)
class Other:
    """A binding that says nothing of the value (`for NAME in`, `with ... as NAME`, `NAME += 1`)."""

    node: ast.AST


Binding = Union[Value, Unpacked, Annotation, Definition, LocalImport, Other]


def assignments(body: list[ast.stmt], name: str) -> Optional[list[Binding]]:
    """The bindings of `name` in `body` (not in nested functions or classes); None when nothing
    binds it there."""
    found: list[Binding] = []
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n.name == name:
                found.append(Definition(n))
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    found.append(Value(n.value))
                elif isinstance(t, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Name) and e.id == name for e in ast.walk(t)):
                    flat = [isinstance(e, ast.Name) and e.id == name for e in t.elts]
                    if any(flat) and not any(isinstance(e, ast.Starred) for e in t.elts):
                        found.append(Unpacked(n.value, flat.index(True)))
                    else:
                        found.append(Other(n))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            found.append(Annotation(n.annotation))
        elif isinstance(n, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr,
                            ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.comprehension)):
            bound = {t.id for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            if isinstance(n, ast.ExceptHandler) and n.name:
                bound.add(n.name)
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name).split(".")[0] == name for a in n.names):
                    found.append(LocalImport(n))
                continue
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name) and n.target.id == name:
                found.append(Value(n.value))
            elif name in bound and not isinstance(n, (ast.For, ast.With, ast.AsyncFor, ast.AsyncWith)):
                found.append(Other(n))
            elif isinstance(n, (ast.For, ast.AsyncFor)) and any(
                    isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)):
                found.append(Other(n))
            elif isinstance(n, (ast.With, ast.AsyncWith)) and any(
                    item.optional_vars is not None and any(isinstance(t, ast.Name) and t.id == name
                                                           for t in ast.walk(item.optional_vars)) for item in n.items):
                found.append(Other(n))
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.stmt, ast.expr, ast.ExceptHandler, ast.comprehension)):
                todo.append(child)
    return found if found else None
