"""Where an old class is after: the same file and name, another file (moved), another name
(renamed: most of its method names kept), or dissolved into a component the classes that
used it as a mixin now hold; and what an owner's code after says about a destination (the
component attributes it holds, the functions it newly calls)."""

from __future__ import annotations

import ast
import collections
from dataclasses import dataclass

from pysource.moves.versions import ClassKey

KEPT_NAMES = 0.5  # a class found in several places under its name: at least this share of its method names
RENAMED_NAMES = 0.6  # ... under another name
RENAMED_LEAST = 3


@dataclass(frozen=True)
class Owner:
    """An old class after: `key` the class itself when it still exists (moved or renamed too),
    `holders` the classes whose code ties a moved method to its destination."""

    key: ClassKey | None
    holders: tuple[ClassKey, ...]


@dataclass(frozen=True)
class OwnerCode:
    """What a class's code after says about where its methods went."""

    held: dict[str, str]  # class name -> the attribute holding one: `self.X = D(...)`, `D.from_model(...)`, `self.X: D`
    # (and a factory's name -> the attribute it fills: `self.X = make_d(...)`, `pool.make_d(...)`)
    held_calls: dict[str, str]  # method name -> the attribute it is called on: `self.X.m(...)`
    called: frozenset[str]  # the functions it calls: `f(...)`, `module.f(...)`


def read_owner(node: ast.ClassDef) -> OwnerCode:
    return OwnerCode(_held(node), _held_calls(node), called_names(node))


def follow(old: dict[ClassKey, ast.ClassDef], new: dict[ClassKey, ast.ClassDef]) -> dict[ClassKey, Owner]:
    """Every old class of the changed files, followed into the new version."""
    arrived = {k: n for k, n in new.items() if k not in old}
    by_name = collections.defaultdict(list)
    by_method = collections.defaultdict(set)
    for key, node in arrived.items():
        by_name[key[1]].append(key)
        for m in methods(node):
            by_method[m].add(key)
    plain = {}
    for key, node in old.items():
        plain[key] = key if key in new else _moved(node, by_name[key[1]], arrived) or _renamed(node, by_method, arrived)
    subclasses = collections.defaultdict(list)
    for k, n in old.items():
        for b in n.bases:
            subclasses[b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)].append(k)
    out = {}
    for key, node in old.items():
        now = plain[key]
        users = tuple(plain[k] for k in subclasses.get(key[1], ()) if plain[k] and plain[k] != now
                      and not names_base(new[plain[k]], key[1]))  # classes that dropped it as a base
        if now and now != key and any(now[1] in _held(new[u]) for u in users):
            now = None  # a mixin replaced by a component its users hold: its methods moved into it
        out[key] = Owner(now, (now,) if now else users)
    return out


def methods(node: ast.ClassDef) -> set[str]:
    return {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _moved(node, keys: list[ClassKey], arrived) -> ClassKey | None:
    mine = methods(node)
    scored = [(len(mine & methods(arrived[k])), k) for k in keys]
    if len(scored) > 1:  # several arrived under its name: the one keeping its methods
        scored = [s for s in scored if not mine or s[0] >= KEPT_NAMES * len(mine)]
    return max(scored)[1] if scored else None


def _renamed(node, by_method, arrived) -> ClassKey | None:
    mine = methods(node) - {"__init__"}
    counts = collections.Counter(k for m in mine for k in by_method.get(m, ()))
    best = [(n, k) for k, n in counts.items() if n >= RENAMED_LEAST and n >= RENAMED_NAMES * len(mine)]
    return max(best)[1] if best else None


def base_names(node: ast.ClassDef) -> set[str]:
    """The names of the class's bases as written (`A`, `pkg.B` -> `B`)."""
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases if isinstance(b, (ast.Name, ast.Attribute))}


def names_base(node: ast.ClassDef, name: str) -> bool:
    return any((b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)) == name for b in node.bases)


def _held(node: ast.ClassDef) -> dict[str, str]:
    out = {}
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            attrs = [t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                     and t.value.id == "self"]
            if not attrs:
                continue
            for c in ast.walk(n.value):
                if isinstance(c, ast.Call):
                    f = c.func.value if isinstance(c.func, ast.Attribute) else c.func
                    if isinstance(f, ast.Name):
                        out.setdefault(f.id, attrs[0])
                    if isinstance(c.func, ast.Attribute):  # `pool.create_x(...)`: a factory, by name
                        out.setdefault(c.func.attr, attrs[0])
            if isinstance(n, ast.AnnAssign) and isinstance(n.annotation, ast.Name):
                out.setdefault(n.annotation.id, attrs[0])
    return out


def _held_calls(node: ast.ClassDef) -> dict[str, str]:
    out = {}
    for c in ast.walk(node):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute):
            v = c.func.value
            if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self":
                out.setdefault(c.func.attr, v.attr)
    return out


def called_names(node: ast.ClassDef) -> frozenset[str]:
    out = set()
    for c in ast.walk(node):
        if isinstance(c, ast.Call):
            if isinstance(c.func, ast.Name):
                out.add(c.func.id)
            elif isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) \
                    and c.func.value.id != "self":
                out.add(c.func.attr)
    return frozenset(out)
