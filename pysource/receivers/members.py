"""What a class binds for one of its attributes: a property, a method, a class-level assignment or
annotation, `self.X = ...` in its methods."""

from __future__ import annotations

import ast

from pysource.receivers.annotations import annotation
from pysource.receivers.constructions import constructed
from pysource.receivers.file import File
from pysource.receivers.model import Function, Types, element, union
from pysource.receivers.syntax import decorated, decorator_name, own_nodes
from pysource.receivers.writes import writes_of

PROPERTIES = {"property", "cached_property", "functools.cached_property", "abstractproperty"}


def members(program, f: File, cls: ast.ClassDef, attr: str, depth: int) -> tuple[Types, list, bool]:
    """(the declared type of `attr` in class `cls`, the types of its assignments there, whether
    the class binds it at all)."""
    declared, assigned, seen = None, [], False
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
            seen = True
            if any(decorator_name(d) in PROPERTIES for d in stmt.decorator_list):
                declared = annotation(program, f, stmt.returns) if stmt.returns is not None else None
                if declared is None:
                    assigned.append(_returned(program, f, stmt, depth))
            else:  # a bound method: calling it gives what it returns
                assigned.append(frozenset([Function(f.path, stmt, not decorated(stmt, "staticmethod"))]))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            seen = True
            t = annotation(program, f, stmt.annotation)
            if t is not None:
                declared = t
            else:
                assigned.append(constructed(program, f, cls, attr, depth))
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            seen = True
            assigned.append(program.type_of(f, stmt.value, depth))
    for fn, n, one in writes_of(program, f, cls, attr):
        seen = True
        if isinstance(n, ast.AnnAssign):
            assigned.append(annotation(program, f, n.annotation))
        elif isinstance(n, ast.Assign) and one in n.targets:
            assigned.append(_from_value(program, f, cls, fn, n.value, depth))
        elif isinstance(n, ast.Assign):
            assigned.append(_unpacked(program, f, n, one, depth))
        else:
            assigned.append(None)
    return declared, assigned, seen


def _from_value(program, f: File, cls: ast.ClassDef, fn: ast.FunctionDef, value: ast.expr, depth: int) -> Types:
    """The type of what `self.attr = value` stores; a parameter of `__init__` without a useful
    annotation: what the constructions of the class pass for it."""
    t = program.type_of(f, value, depth)
    if t is not None or fn.name != "__init__" or not isinstance(value, ast.Name):
        return t
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    if not any(p.arg == value.id for p in params):
        return None
    return constructed(program, f, cls, value.id, depth, init=fn)


def _unpacked(program, f: File, n: ast.Assign, target: ast.AST, depth: int) -> Types:
    """The type of one element `target` of a tuple assignment `a, b = value`."""
    for t in n.targets:
        if isinstance(t, (ast.Tuple, ast.List)) and target in t.elts and not any(
                isinstance(e, ast.Starred) for e in t.elts):
            return element(program.type_of(f, n.value, depth), t.elts.index(target))
    return None


def _returned(program, f: File, fn: ast.FunctionDef, depth: int) -> Types:
    returns = [n.value for n in own_nodes(fn) if isinstance(n, ast.Return) and n.value is not None]
    return union(program.type_of(f, r, depth) for r in returns) if returns else None
