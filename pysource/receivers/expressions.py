"""What an expression is: the entry point of the resolvers, and the expressions whose type their
form says (a literal, `a or b`, `x if c else y`, `x[i]`)."""

from __future__ import annotations

import ast

from pysource.receivers.attributes import attribute_of
from pysource.receivers.calls import call_type
from pysource.receivers.file import File
from pysource.receivers.model import NONE, Instance, Sequence, Types, element, union
from pysource.receivers.names import name_type

MAX_DEPTH = 12


def type_of(program, f: File, node: ast.AST, depth: int = 0) -> Types:
    """What `node` (an expression of file `f`) is, as the code declares it (`pysource.receivers`).
    An expression whose type depends on itself contributes nothing there."""
    if depth > MAX_DEPTH:
        return None
    memo = program.memo
    key = (id(f), id(node))
    if key in memo.expressions:
        memo.tainted.update(memo.looking_up)
        return frozenset()
    memo.expressions.add(key)
    try:
        return _type_of(program, f, node, depth + 1)
    finally:
        memo.expressions.discard(key)


def _type_of(program, f: File, node: ast.AST, depth: int) -> Types:
    if isinstance(node, ast.Constant):
        if node.value is None:
            return frozenset([NONE])
        return frozenset([Instance(f"builtins.{type(node.value).__name__}")])
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return frozenset([Instance("builtins.list")])
    if isinstance(node, (ast.Dict, ast.DictComp, ast.JoinedStr)):
        return frozenset([Instance("builtins.dict" if not isinstance(node, ast.JoinedStr) else "builtins.str")])
    if isinstance(node, ast.IfExp):
        return union([type_of(program, f, node.body, depth), type_of(program, f, node.orelse, depth)])
    if isinstance(node, ast.BoolOp):
        return union(type_of(program, f, v, depth) for v in node.values)
    if isinstance(node, ast.NamedExpr):
        return type_of(program, f, node.value, depth)
    if isinstance(node, ast.Name):
        return name_type(program, f, node, depth)
    if isinstance(node, ast.Attribute):
        return attribute_of(program, f, node, depth)
    if isinstance(node, ast.Call):
        return call_type(program, f, node, depth)
    if isinstance(node, ast.Subscript):
        inner = type_of(program, f, node.value, depth)
        if inner is None:
            return None
        if isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
            return element(inner, node.slice.value)
        items = [t.items for t in inner if isinstance(t, Sequence)]
        if len(items) != len(inner):
            return None
        return union(items)
    if isinstance(node, ast.Await):
        return None
    return None
