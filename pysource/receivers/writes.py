"""Where a class's methods bind `self.X` (`=`, `:`, `+=`, `for self.X in`, `del`), `self` being
each method's first parameter."""

from __future__ import annotations

import ast
from typing import Iterable, Iterator, NamedTuple

from pysource.imports import nodes, nodes_on_lines
from pysource.receivers.file import File
from pysource.receivers.syntax import decorated


class Write(NamedTuple):
    method: ast.AST
    statement: ast.AST
    target: ast.Attribute


def writes_of(program, f: File, cls: ast.ClassDef, attr: str) -> list[Write]:
    """`self_writes(f, cls)[attr]`, found on the lines that spell `attr` (the whole class
    without the file's text)."""
    lines = f.names.lines_of(attr)
    if lines is None:
        return self_writes(program, f, cls).get(attr, [])
    return [w for fn in _methods(cls) for w in _writes(fn, nodes_on_lines(fn, lines)) if w.target.attr == attr]


def self_writes(program, f: File, cls: ast.ClassDef) -> dict[str, list[Write]]:
    """{attribute: [Write]} for every `self.attribute = ...` (and `+=`, `for self.x in`, `del`) in
    the class's methods."""
    found = program.memo.writes.get(id(cls))
    if found is None:
        found = program.memo.writes[id(cls)] = {}
        for fn in _methods(cls):
            for w in _writes(fn, nodes(fn)):
                found.setdefault(w.target.attr, []).append(w)
    return found


def _methods(cls: ast.ClassDef) -> Iterator[ast.AST]:
    """The class's methods that take `self` (not static methods)."""
    for fn in cls.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args and not decorated(fn, "staticmethod"):
            yield fn


def _writes(fn: ast.AST, walk: Iterable[ast.AST]) -> Iterator[Write]:
    """A `Write` for each `self.X = ...` (and `+=`, `for self.X in`, `del`) among the nodes `walk`
    gives of method `fn`."""
    me = fn.args.args[0].arg
    for n in walk:
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [n.target]
        elif isinstance(n, ast.Delete):
            targets = n.targets
        else:
            continue
        for t in targets:
            for one in _flat(t):
                if isinstance(one, ast.Attribute) and isinstance(one.value, ast.Name) and one.value.id == me:
                    yield Write(fn, n, one)


def _flat(target: ast.AST) -> list[ast.AST]:
    """The single targets of an assignment target (`a, (b, c)` -> a, b, c)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [x for e in target.elts for x in _flat(e.value if isinstance(e, ast.Starred) else e)]
    return [target]
