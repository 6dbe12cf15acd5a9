"""How methods of a class use `self` (Python's `ast`): each attribute chain they read, write or
call, and every use of `self` that is not through an attribute.

`self.model_config.model_path` is one use, chain ("model_config", "model_path"); in
`self.model.named_parameters()` the last attribute is called, so the chain read is ("model",)
and the use is a method call on that value; `self.flush_cache()` calls an owner method (chain
empty once the called name is set aside). `self.x[k] = v` and `del self.x[k]` read `self.x`
(they change the object, not the attribute); `self.x = v`, `self.x += v`, `del self.x` and a
`for self.x in` write it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from pysource.imports import parents_of


@dataclass(frozen=True)
class SelfUse:
    node: ast.AST  # the outermost attribute of the chain (or the `self` name itself)
    names: tuple[str, ...]  # the attribute chain: ("model_config", "model_path"); () for a bare self
    how: str  # "read", "write" (the chain is assigned or deleted), "call" (its last name is called)
    line: int

    @property
    def first(self) -> Optional[str]:
        return self.names[0] if self.names else None

    @property
    def read_chain(self) -> tuple[str, ...]:
        """The chain whose value the use reads: without a called last name."""
        return self.names[:-1] if self.how == "call" else self.names


@dataclass(frozen=True)
class Special:
    node: ast.AST
    what: str  # "super", "by-name" (getattr/setattr/hasattr/delattr on self), "bare" (self passed along, ...)
    line: int
    text: str


BY_NAME = {"getattr", "setattr", "hasattr", "delattr"}


def self_name(fn: ast.FunctionDef) -> Optional[str]:
    args = [*fn.args.posonlyargs, *fn.args.args]
    return args[0].arg if args else None


_CACHE: dict[int, tuple] = {}


def self_uses(fn: ast.FunctionDef) -> tuple[list[SelfUse], list[Special]]:
    """Every use of the method's first parameter in its body (nested functions and lambdas
    included, unless they rebind the name); computed once per function node."""
    key = id(fn)
    got = _CACHE.get(key)
    if got is None or got[0] is not fn:
        got = _CACHE[key] = (fn, _self_uses(fn))
        if len(_CACHE) > 4096:
            _CACHE.clear()
            _CACHE[key] = got
    return got[1]


def _self_uses(fn: ast.FunctionDef) -> tuple[list[SelfUse], list[Special]]:
    me = self_name(fn)
    parents = parents_of(fn)
    uses, special = [], []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super":
            special.append(Special(n, "super", n.lineno, ast.unparse(n)))
            continue
        if not (isinstance(n, ast.Name) and n.id == me and isinstance(n.ctx, ast.Load)) or _rebound_around(
                n, parents, me, fn):
            continue
        top, names = n, []
        parent = parents.get(id(top))
        while isinstance(parent, ast.Attribute) and parent.value is top:
            names.append(parent.attr)
            top = parent
            parent = parents.get(id(top))
        if not names:
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in BY_NAME \
                    and parent.args and parent.args[0] is n:
                special.append(Special(parent, "by-name", parent.lineno, ast.unparse(parent)))
            else:
                special.append(Special(n, "bare", n.lineno, ast.unparse(parent) if parent is not None else me))
            continue
        if isinstance(top.ctx, (ast.Store, ast.Del)):
            how = "write"
        elif isinstance(parent, ast.Call) and parent.func is top:
            how = "call"
        elif isinstance(parent, ast.AugAssign) and parent.target is top:
            how = "write"
        else:
            how = "read"
        uses.append(SelfUse(top, tuple(names), how, top.lineno))
    uses.sort(key=lambda u: (u.node.lineno, u.node.col_offset))
    return uses, special


def _rebound_around(node: ast.AST, parents: dict, me: str, fn: ast.AST) -> bool:
    """Whether a nested function or lambda between `node` and `fn` binds `me` itself."""
    n = parents.get(id(node))
    while n is not None and n is not fn:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = n.args
            if me in {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} | {
                    p.arg for p in (a.vararg, a.kwarg) if p}:
                return True
        n = parents.get(id(n))
    return False


def written_chains(fn: ast.FunctionDef) -> list[tuple[tuple[str, ...], int]]:
    """(chain, line) of every attribute chain of `self` the method assigns or deletes, at any
    depth (`self.model = ...`: ("model",); `self.model_config.model_path = ...`)."""
    out = []
    uses, _ = self_uses(fn)
    for u in uses:
        if u.how == "write":
            out.append((u.names, u.line))
    for n in ast.walk(fn):  # setattr(self, "x", v)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr") \
                and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == self_name(fn) \
                and len(n.args) > 1 and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.append(((n.args[1].value,), n.lineno))
    return out
