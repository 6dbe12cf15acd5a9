"""What an attribute is: `x.attr` for an instance (looked up in its class, its bases, and where
no base declares it, its subclasses) or a class (its class and static methods)."""

from __future__ import annotations

import ast

from pysource.receivers.file import File
from pysource.receivers.members import members
from pysource.receivers.model import NONE, ClassObject, Function, Instance, Types, union
from pysource.receivers.names import global_type
from pysource.receivers.syntax import decorated


def attribute_of(program, f: File, node: ast.Attribute, depth: int) -> Types:
    q = f.names.qualify(node)
    if q is not None:
        if program.class_def(q) is not None:
            return frozenset([ClassObject(program.canonical(q))])
        module, _, attr = q.rpartition(".")
        path = program.module_path(module)
        if path is not None:
            other = program.file(path)
            return None if other is None else global_type(program, other, attr, depth)
        if program.outside(q):
            return frozenset([ClassObject(q)]) if attr[:1].isupper() else None
    owner = program.type_of(f, node.value, depth)
    if owner is None:
        return None
    out = []
    for t in owner:
        if t == NONE:
            continue
        if not isinstance(t, (Instance, ClassObject)) or t.qualname.startswith("builtins.") \
                or program.outside(t.qualname):
            return None
        out.append(attribute_type(program, t.qualname, node.attr, depth) if isinstance(t, Instance)
                   else class_attribute_type(program, t.qualname, node.attr))
    return union(out)


def attribute_type(program, qualname: str, attr: str, depth: int = 0) -> Types:
    """The type of `attr` on an instance of class `qualname` (module docstring). A lookup that
    comes back to itself (`self.model = load(self.model)`) contributes nothing there: the
    least solution; what was computed inside such a cycle is not kept, but for its start."""
    memo = program.memo
    key = (qualname, attr)
    if key in memo.attributes:
        return memo.attributes[key]
    if key in memo.looking_up:
        memo.tainted.update(memo.looking_up[memo.looking_up.index(key) + 1:])
        return frozenset()
    memo.looking_up.append(key)
    try:
        result = _attribute_type(program, qualname, attr, depth)
    finally:
        memo.looking_up.pop()
    if key in memo.tainted:
        memo.tainted.discard(key)
    else:
        memo.attributes[key] = result
    return result


def _attribute_type(program, qualname: str, attr: str, depth: int) -> Types:
    line = program.lineage(qualname)
    if line is None:
        return None
    assigned, found = [], False
    for q in line:
        got = program.class_def(q)
        if got is None:
            if program.outside(q):
                continue
            return None
        declared, a, seen = members(program, *got, attr, depth)
        if declared is not None:
            return declared  # the first class of the line declaring it says what it is
        found |= seen
        assigned += a
    here = union(assigned)
    if here is None:
        return None
    for q in sorted(program.subclasses(qualname)):  # an instance typed `qualname` may be one of them
        got = program.class_def(q)
        if got is None:
            return None
        declared, a, seen = members(program, *got, attr, depth)
        found |= seen
        assigned += [declared] if declared is not None else a
    return union(assigned) if found else None


def class_attribute_type(program, qualname: str, attr: str) -> Types:
    """`CLS.attr`: what calling a class method or static method of the class returns."""
    line = program.lineage(qualname)
    for q in line or ():
        got = program.class_def(q)
        if got is None:
            continue
        cf, cls = got
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                if decorated(stmt, "classmethod"):
                    return frozenset([Function(cf.path, stmt, True)])
                if decorated(stmt, "staticmethod"):
                    return frozenset([Function(cf.path, stmt, False)])
                return None
    return None
