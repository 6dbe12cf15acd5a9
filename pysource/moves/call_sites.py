"""The edits a move brings outside the moved body, at its call sites in the class: a call that
moved to another method, and arguments that changed (the instance and its attributes, which the
move may pass differently, left out)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pysource.moves.model import Definition


@dataclass(frozen=True)
class CallEdit:
    file: str
    line: int
    before: str  # file:line of the call before
    what: str
    gone_from: str = ""  # a call the class no longer makes: the method that made it

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "before": self.before, "what": self.what}


@dataclass(frozen=True)
class _Call:
    method: str  # the class's method holding the call
    line: int
    args: tuple[str, ...]  # the arguments besides the instance and its attributes, as written


def call_edits(origin: Definition, old_class: ast.ClassDef, new_class: ast.ClassDef | None, new_rel: str,
               destination: Definition, attr: str | None, wrapper: bool) -> tuple[CallEdit, ...]:
    """The calls of the method in its class before against the calls that replace them after:
    `self.m(...)` where a wrapper stayed, else the destination's (`f(...)`, `mod.f(...)`,
    `self.ATTR.f(...)`)."""
    if new_class is None:
        return ()
    before = _calls(old_class, lambda f: _on_self(f, origin.name))
    if wrapper:
        after = _calls(new_class, lambda f: _on_self(f, origin.name), skip=origin.name)
    elif attr:
        after = _calls(new_class, lambda f: isinstance(f, ast.Attribute) and f.attr == destination.name
                       and _on_self(f.value, attr))
    else:
        after = _calls(new_class, lambda f: (isinstance(f, ast.Name) and f.id == destination.name)
                       or (isinstance(f, ast.Attribute) and f.attr == destination.name
                           and not _on_self(f.value, None)))
    out = []
    where = lambda c, rel: f"{rel}:{c.line}"
    after_in = {c.method for c in after}
    before_in = {c.method for c in before}
    gone = [c for c in before if c.method not in after_in]
    arrived = [c for c in after if c.method not in before_in]
    for old, new in zip(gone, arrived):
        out.append(CallEdit(new_rel, new.line, where(old, origin.rel),
                            f"call site moved: from {origin.class_name}.{old.method} to {new_class.name}.{new.method}"))
    for old in gone[len(arrived):]:
        out.append(CallEdit(origin.rel, old.line, where(old, origin.rel),
                            f"call in {origin.class_name}.{old.method} removed, none in its place in the class",
                            old.method))
    for new in arrived[len(gone):]:
        out.append(CallEdit(new_rel, new.line, "", f"new call in {new_class.name}.{new.method}"))
    olds = {}
    for c in before:
        olds.setdefault(c.method, []).append(c)
    for new in after:
        for old in olds.get(new.method, [])[:1]:
            if old.args != new.args:
                out.append(CallEdit(new_rel, new.line, where(old, origin.rel),
                                    f"arguments changed in {new_class.name}.{new.method}: ({', '.join(old.args)}) -> "
                                    f"({', '.join(new.args)})"))
    return tuple(out)


def _on_self(node, attr: str | None) -> bool:
    """`self.attr` (or `self` itself when attr is None; any attribute of it when attr is "")."""
    if attr is None:
        return isinstance(node, ast.Name) and node.id == "self"
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _calls(cls: ast.ClassDef, matches, skip: str | None = None) -> list[_Call]:
    out = []
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name == skip:
            continue
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and matches(node.func):
                out.append(_Call(method.name, node.lineno, _arguments(node)))
    return out


def _arguments(call: ast.Call) -> tuple[str, ...]:
    args = [ast.unparse(a) for a in call.args if not _instance(a)]
    args += [f"{k.arg}={ast.unparse(k.value)}" if k.arg else f"**{ast.unparse(k.value)}" for k in call.keywords
             if not _instance(k.value)]
    return tuple(args)


def _instance(node) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"
