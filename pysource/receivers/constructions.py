"""What the constructions of a class pass for one of its fields (or `__init__` parameters)."""

from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from pysource.receivers.file import File
from pysource.receivers.model import ClassObject, Types, union
from pysource.receivers.syntax import spells
from pysource.text_search import search_near


def constructed(program, f: File, cls: ast.ClassDef, name: str, depth: int, init=None) -> Types:
    """What every `CLS(...)` of the checkout passes for the field (or `__init__` parameter)
    `name`, when each one can be read (by keyword, or by position)."""
    out: list[Types] = []
    for other, value in _passed(program, f, cls, name, depth, init):
        if value is None:
            return None
        out.append(program.type_of(other, value, depth))
    return union(out) if out else None


def construction_values(program, f: File, cls: ast.ClassDef, name: str, depth: int = 0, init=None
                        ) -> Optional[list[tuple[File, ast.expr]]]:
    """(file, expression) for what each `CLS(...)` of the checkout passes for the field (or
    `__init__` parameter) `name` (a construction leaving it out is not listed); None when one
    cannot be read (`*args`, `**kwargs`, an unparsable file)."""
    out = []
    for other, value in _passed(program, f, cls, name, depth, init):
        if value is None:
            return None
        out.append((other, value))
    return out


def _passed(program, f: File, cls: ast.ClassDef, name: str, depth: int, init) -> Iterator[tuple]:
    """(file, what a construction passes for `name`) for each `CLS(...)` passing it; (file, None)
    for one that cannot be read, after which the search stops."""
    qualname = program.qualified(f, cls)
    if init is not None:
        params = [p.arg for p in [*init.args.posonlyargs, *init.args.args][1:]]
    else:
        params = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    spelled = cls.name.encode()
    called = re.compile(rb"\b" + re.escape(spelled) + rb"\s*\(")
    for path in program.checkout.select(lambda data: search_near(called, data, spelled, 0), mentioning=spelled):
        other = program.file(path)
        if other is None:
            yield path, None
            return
        for n in other.nodes_spelling([cls.name]):
            if not (isinstance(n, ast.Call) and spells(n.func, cls.name)):
                continue
            callee = program.type_of(other, n.func, depth)
            if callee is None or ClassObject(qualname) not in callee:
                continue
            if any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None for k in n.keywords):
                yield other, None
                return
            value = next((k.value for k in n.keywords if k.arg == name), None)
            if value is None and name in params and params.index(name) < len(n.args):
                value = n.args[params.index(name)]
            if value is None:
                continue  # its default (or absent)
            yield other, value
