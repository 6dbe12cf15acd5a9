"""What an attribute of a given name holds wherever the checkout declares it, whatever its class."""

from __future__ import annotations

import ast
from pathlib import Path

from pysource.attribute_text import binds, bindings
from pysource.receivers.annotations import annotation
from pysource.receivers.members import PROPERTIES
from pysource.receivers.model import Instance, Types
from pysource.receivers.syntax import decorator_name
from pysource.receivers.writes import writes_of
from pysource.text_search import search_near


def attribute_contract(program, attr: str) -> tuple[Types, list[tuple[Path, int]], list[tuple[Path, int]]]:
    """What an attribute named `attr` holds wherever the checkout declares it: (the union of
    those types, where they are declared, the bindings that declare nothing). Declared: a
    property's return annotation, a class-level or `self.attr: T` annotation, `self.attr = p`
    from a parameter annotated `T`, `self.attr = T(...)`. For `x.attr` where nothing says
    what `x` is, a caller may take it as evidence, and must show the bindings it rests on."""
    if attr in program.memo.contracts:
        return program.memo.contracts[attr]
    types, declared, silent = set(), [], []
    name = attr.encode()
    for path in program.checkout.select(lambda data: search_near(binds(attr), data, name, 5), mentioning=name):
        lines, may_declare = bindings(program.checkout.data(path), attr)
        if not may_declare:  # bindings that declare nothing, counted from their text without parsing them
            silent += [(path, line) for line in lines]
            continue
        f = program.file(path)
        if f is None:
            continue
        for cls in f.names.class_defs:
            for stmt in cls.body:
                t, line = None, None
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr \
                        and any(decorator_name(d) in PROPERTIES for d in stmt.decorator_list):
                    t, line = annotation(program, f, stmt.returns), stmt.lineno
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                    t, line = annotation(program, f, stmt.annotation), stmt.lineno
                else:
                    continue
                if t:
                    types.update(t)
                    declared.append((path, line))
                else:
                    silent.append((path, line))
            for fn, n, one in writes_of(program, f, cls, attr):
                t = None
                if isinstance(n, ast.AnnAssign):
                    t = annotation(program, f, n.annotation)
                elif isinstance(n, ast.Assign) and one in n.targets:
                    value = n.value
                    params = {p.arg: p for p in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
                    if isinstance(value, ast.Name) and value.id in params and params[value.id].annotation is not None:
                        t = annotation(program, f, params[value.id].annotation)
                    elif isinstance(value, ast.Call):
                        callee = f.names.qualify(value.func)
                        if callee is not None and program.class_def(callee) is not None:
                            t = frozenset([Instance(program.canonical(callee))])
                if t:
                    types |= t
                    declared.append((path, n.lineno))
                else:
                    silent.append((path, n.lineno))
    result = (frozenset(types) if types else None, declared, silent)
    program.memo.contracts[attr] = result
    return result
