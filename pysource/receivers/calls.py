"""What a call gives: an instance of the class called, or what the function called returns."""

from __future__ import annotations

import ast

from pysource.receivers.annotations import annotation, uninformative
from pysource.receivers.file import File
from pysource.receivers.model import NONE, ClassObject, Function, Instance, Types, union
from pysource.receivers.syntax import own_nodes, rebinds


def call_type(program, f: File, node: ast.Call, depth: int) -> Types:
    func = node.func
    if isinstance(func, ast.Name) and func.id == "super":
        return None
    callee = program.type_of(f, func, depth)
    if callee is None:
        q = f.names.qualify(func)
        outside = q is not None and program.outside(q) and q.rpartition(".")[2][:1].isupper()
        return frozenset([Instance(q)]) if outside else None
    out: list[Types] = []
    for t in callee:
        if t == NONE:
            continue
        if isinstance(t, ClassObject):
            out.append(frozenset([Instance(t.qualname)]))
        elif isinstance(t, Function):
            out.append(_call_returns(program, t, f, node, depth))
        else:
            return None
    return union(out)


def _call_returns(program, callee: Function, f: File, call: ast.Call, depth: int) -> Types:
    """What calling `callee` as `call` (in file `f`) returns: its return annotation, else what its
    `return`s give, a returned parameter being what the call passes."""
    fn, bound = callee.node, callee.bound
    home = program.file(callee.path)
    if home is None:
        return None
    if fn.returns is not None:
        declared = annotation(program, home, fn.returns)
        if declared is not None or not uninformative(fn.returns):
            return declared
    returns = [n.value for n in own_nodes(fn) if isinstance(n, ast.Return)]
    if not returns:
        return frozenset([NONE])
    args = fn.args
    params = [p.arg for p in [*args.posonlyargs, *args.args]][1 if bound else 0:]
    out = []
    for r in returns:
        if r is None:
            out.append(frozenset([NONE]))
        elif isinstance(r, ast.Name) and r.id in params + [p.arg for p in args.kwonlyargs] \
                and not rebinds(fn, r.id):
            passed = next((k.value for k in call.keywords if k.arg == r.id), None)
            if passed is None and r.id in params and params.index(r.id) < len(call.args):
                passed = call.args[params.index(r.id)]
            if passed is None or isinstance(passed, ast.Starred):
                return None
            out.append(program.type_of(f, passed, depth))
        else:
            out.append(program.type_of(home, r, depth))
    return union(out)
