"""The calls of a moved method from outside its class, and what replaced them: `x.m(...)` in
another file (or another class) that now reads `x.ATTR.m(...)` (a component) or calls the
function with `x` (callers rewritten). Only calls paired within one function are reported: a call
`x.m(...)` alone says nothing of what `x` is, but the same function now calling the new place
with the same receiver does."""

from __future__ import annotations

import ast
import re

from pysource import parsing
from pysource.moves.call_sites import CallEdit
from pysource.moves.model import Definition

SHOWN = 120  # characters of a call shown in an edit


class ChangedFiles:
    """The files that changed between the versions, read once, indexed by the methods they call
    (`.NAME(` in the text before)."""

    def __init__(self, before_root, after_root, rels: list[str]):
        self.before_root, self.after_root = before_root, after_root
        self.texts: dict[str, tuple[str | None, str | None]] = {}
        self.calling: dict[str, list[str]] = {}
        for rel in rels:
            before, after = _read(before_root / rel), _read(after_root / rel)
            if before is None or after is None:
                continue
            self.texts[rel] = (before, after)
            for name in set(_CALLED.findall(before)):
                self.calling.setdefault(name, []).append(rel)
        self._trees: dict[str, tuple] = {}

    def trees(self, rel: str) -> tuple[ast.Module | None, ast.Module | None]:
        """The file before and after, parsed once (None where it does not parse)."""
        if rel not in self._trees:
            self._trees[rel] = tuple(_parse(text, rel) for text in self.texts[rel])
        return self._trees[rel]


_CALLED = re.compile(r"\.(\w+)\(")


def _read(path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def outside_call_edits(origin: Definition, destination: Definition, attr: str | None,
                       changed: ChangedFiles) -> tuple[CallEdit, ...]:
    """`attr`: the component's attribute, None for a function."""
    out = []
    for rel in changed.calling.get(origin.name, []):
        if destination.name not in changed.texts[rel][1]:
            continue
        old_tree, new_tree = changed.trees(rel)
        if old_tree is None or new_tree is None:
            continue
        olds = _calls(old_tree, lambda call: _receiver_of_method(call, origin.name))
        news = _calls(new_tree, lambda call: _receiver_of_new(call, destination.name, attr))
        for where, calls in olds.items():
            for (old, receiver), (new, new_receiver) in zip(calls, news.get(where, [])):
                if not _same_receiver(receiver, new_receiver, attr):
                    continue
                out.append(CallEdit(rel, new.lineno, f"{rel}:{old.lineno}", _what(old, new, attr, where)))
    return tuple(out)


def _same_receiver(receiver: str, new: tuple[str, ...] | str, attr: str | None) -> bool:
    if attr is not None:
        return receiver == new
    return any(a == receiver or a.startswith(receiver + ".") for a in new)


def _what(old: ast.Call, new: ast.Call, attr: str | None, where: str) -> str:
    shown = f"`{_short(old)}` -> `{_short(new)}`"
    if attr is not None and _arguments(old) == _arguments(new):
        return f"call outside the class rewired in {where}, same arguments: {shown}"
    if attr is not None:
        return f"call outside the class rewired in {where}, arguments changed: {shown}"
    return f"call outside the class rewired in {where}: {shown}"


def _short(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def _arguments(call: ast.Call) -> tuple[str, ...]:
    return tuple(ast.unparse(a) for a in call.args) + tuple(
        f"{k.arg}={ast.unparse(k.value)}" if k.arg else f"**{ast.unparse(k.value)}" for k in call.keywords)


def _receiver_of_method(call: ast.Call, name: str) -> str | None:
    """`x.name(...)` -> "x", where x is not the bare instance of the class the call is in."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == name):
        return None
    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return None
    return ast.unparse(func.value)


def _receiver_of_new(call: ast.Call, name: str, attr: str | None) -> str | None:
    """A component's `x.attr.name(...)` -> "x"; a function's `name(a, ...)` / `mod.name(a, ...)`
    -> its arguments, as written (the receiver must be one of them, or what they read of it)."""
    func = call.func
    if attr is not None:
        if isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Attribute) \
                and func.value.attr == attr:
            return ast.unparse(func.value.value)
        return None
    if (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name):
        return tuple(ast.unparse(a) for a in call.args) + tuple(ast.unparse(k.value) for k in call.keywords)
    return None


def _calls(tree: ast.Module, receiver) -> dict[str, list[tuple[ast.Call, str]]]:
    """Per enclosing function (its dotted name in the file), the matching calls in order."""
    out: dict[str, list[tuple[ast.Call, str]]] = {}

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{where}.{child.name}" if where else child.name)
                continue
            if isinstance(child, ast.Call):
                found = receiver(child)
                if found is not None:
                    out.setdefault(where or "<module>", []).append((child, found))
            visit(child, where)

    visit(tree, "")
    return out


def _parse(text: str, rel: str) -> ast.Module | None:
    try:
        return parsing.parse(text, rel)
    except (SyntaxError, ValueError):
        return None
