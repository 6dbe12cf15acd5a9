"""A method moved into a function that only other modules call (`ServerArgs._handle_x` ->
`arg_groups.x_hook.handle_x(server_args)`, called from `arg_groups/pipeline.py`): the class no
longer holds a call to read the arguments off, so the check drives the function through a
delegation written into the class of the after version, for the check only (a text override,
no file written): `def _handle_x(self, ...): return handle_x(server_args=self, ...)`.

Each parameter of the function is mapped onto the old receiver: the parameter the function
reads attributes of, where the old body read the same attributes of `self`, is the instance;
a parameter named as one of the method's is passed that one; a parameter named as an attribute
the old body read (`self.tp_size` -> `tp_size`), or as the end of exactly one of them
(`self.draft_num_tokens` -> `num_tokens`), is passed that attribute; one the new body reads where
the old body, walked side by side with it, read an attribute chain of `self` or of a parameter
(`nnodes=nnodes` for `nnodes=self.server_args.nnodes`) is passed that chain; one with a default is left
out; a single parameter left over, when none stands for the instance yet and the function reads
attributes of it (or of what a call makes of it), is the instance
(`cfg = resolving_view(server_args)`). Anything else is refused with the parameter named. The report says the delegation
was written, the mapping, and where the real callers are.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pysource import parsing
from pysource.moves import Move


class NotMapped(Exception):
    """A parameter of the function maps onto nothing the old method had."""


@dataclass(frozen=True)
class Delegation:
    override: dict[str, str]  # the class's file (relative) -> its text with the delegation in
    mapping: dict[str, str]  # the function's parameter -> what the delegation passes
    callers: list[str]  # file:line of the function's calls in the after version

    def describe(self) -> str:
        passed = ", ".join(f"{p}={v}" for p, v in self.mapping.items()) or "nothing"
        where = ", ".join(self.callers[:3]) + (f" and {len(self.callers) - 3} more" if len(self.callers) > 3 else "")
        return (f"the class no longer calls it; driven through a delegation written for the check ({passed}); "
                f"its callers: {where or 'none found'}")


def delegation(move: Move, after_root: Path) -> Delegation:
    origin, dest = move.origin, move.destination
    mapping = _mapping(origin.node, dest.node, origin.class_name)
    path = after_root / origin.rel
    text = path.read_text(encoding="utf-8")
    tree = parsing.parse(text, str(path))
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == origin.class_name), None)
    if cls is None:
        raise NotMapped(f"{path}: no class {origin.class_name} at module level")
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == origin.name for n in cls.body):
        raise NotMapped(f"{path}:{cls.lineno}: {origin.class_name} still defines {origin.name}")
    bound = {t.id for n in tree.body for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    bound |= {a.asname or a.name.split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
              for a in n.names}
    bound |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    alias = dest.name if dest.name not in bound else f"_moved_{dest.name}"
    lines = text.splitlines(keepends=True)
    end = cls.end_lineno  # the delegation goes last in the class, the import at the end of the module
    indent = " " * (cls.body[0].col_offset if cls.body else 4)
    args = ast.unparse(origin.node.args)
    call = ", ".join(f"{p}={v}" for p, v in mapping.items())
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in origin.node.decorator_list):
        args = ", ".join(["self", args]) if args else "self"  # called on the instance as the static one was
    method = (f"\n{indent}def {origin.name}({args}):\n"
              f"{indent}    return {alias}({call})\n")
    text = "".join(lines[:end]) + method + "".join(lines[end:])
    text += f"\n\nfrom {dest.module} import {dest.name}" + (f" as {alias}" if alias != dest.name else "") + "\n"
    return Delegation({origin.rel: text}, mapping, _callers(after_root, dest))


def _mapping(old: ast.FunctionDef, new: ast.FunctionDef, class_name: str = "") -> dict[str, str]:
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in old.decorator_list)
    me = old.args.args[0].arg if old.args.args and not static else "self"
    old_params = {a.arg for a in (*old.args.args[0 if static else 1:], *old.args.kwonlyargs)}
    read = {n.attr for n in ast.walk(old) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me}
    params = [*new.args.posonlyargs, *new.args.args]
    defaulted = {a.arg for a in params[len(params) - len(new.args.defaults):]} if new.args.defaults else set()
    defaulted |= {a.arg for a, d in zip(new.args.kwonlyargs, new.args.kw_defaults) if d is not None}
    if new.args.posonlyargs:
        raise NotMapped(f"{new.name} has positional-only parameters")
    out = {}
    unmapped = []
    for a in (*params, *new.args.kwonlyargs):
        p = a.arg
        attrs = {n.attr for n in ast.walk(new) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and n.value.id == p}
        if p in old_params:
            out[p] = p
        elif attrs and len(attrs & (read | _methods_called(old, me))) * 2 >= len(attrs):
            out[p] = "self"  # it stands for the instance: the old body read these of `self`
        elif p in read:
            out[p] = f"self.{p}"
        elif p in defaulted:
            continue
        elif len(ends := [r for r in read if r.endswith(f"_{p}")]) == 1:
            out[p] = f"self.{ends[0]}"  # `num_tokens` for `self.draft_num_tokens`: the one attribute it names
        elif p in (aligned := _aligned(old, new, me)):
            out[p] = aligned[p]  # where the new body reads it, the old one read this (`self.server_args.nnodes`)
        else:
            unmapped.append(p)
    if len(unmapped) == 1 and "self" not in out.values() and (
            _used_as_object(new, unmapped[0]) or _names_the_class(params + new.args.kwonlyargs, unmapped[0], class_name)):
        # the one parameter left, used as an object (`cfg = view(p)`) or named for the class (`server_args:
        # ServerArgs`, whose old body only wrote to self, or passed it on): the instance
        out[unmapped[0]] = "self"
    elif unmapped:
        raise NotMapped(f"parameter {unmapped[0]!r} of {new.name} stands for nothing {old.name} had (not one of its "
                        f"parameters, not an attribute it read of {me}, not read where the old body read an attribute of {me})")
    return out


def _aligned(old: ast.FunctionDef, new: ast.FunctionDef, me: str) -> dict[str, str]:
    """Each parameter of `new` -> the expression of the old body at the place where the new body
    reads it, the two bodies walked side by side where they have the same shape (statements
    paired by `_paired`, keywords by name): `nnodes=nnodes` where the old body passed
    `nnodes=self.server_args.nnodes`. Only an expression the delegation can spell (of `self`
    and the method's parameters, no call) counts, and only when every place agrees."""
    params = {a.arg for a in (*new.args.posonlyargs, *new.args.args, *new.args.kwonlyargs)}
    allowed = {me} | {a.arg for a in (*old.args.args, *old.args.kwonlyargs)}
    found: dict[str, set[str]] = {}

    def walk(a, b) -> None:
        if isinstance(b, ast.Name) and b.id in params and isinstance(a, ast.expr):
            if not isinstance(a, ast.Name) or a.id != b.id:
                found.setdefault(b.id, set()).add(ast.unparse(a) if _spelled_of(a, allowed) else "")
            return
        if type(a) is not type(b) or not isinstance(b, ast.AST):
            return
        for field in b._fields:
            x, y = getattr(a, field, None), getattr(b, field, None)
            if isinstance(x, list) and isinstance(y, list):
                if field == "keywords":
                    named = {k.arg: k for k in x}
                    for k in y:
                        if k.arg in named:
                            walk(named[k.arg].value, k.value)
                elif y and all(isinstance(n, ast.stmt) for n in (*x, *y)):
                    for m, n in _paired(x, y):
                        walk(m, n)
                elif len(x) == len(y):
                    for m, n in zip(x, y):
                        walk(m, n)
            elif isinstance(y, ast.AST):
                walk(x, y)

    walk(ast.Module(body=old.body, type_ignores=[]), ast.Module(body=new.body, type_ignores=[]))
    return {p: next(iter(v)) for p, v in found.items() if len(v) == 1 and "" not in v}


def _paired(old: list[ast.stmt], new: list[ast.stmt]) -> list[tuple[ast.stmt, ast.stmt]]:
    """The statements of two blocks paired in order, each with the one of its type sharing most of
    its words (names, attributes, keywords), at least a third of them: the most shared in all."""
    words = [[_words(s) for s in old], [_words(s) for s in new]]

    def like(i: int, j: int) -> float:
        if type(old[i]) is not type(new[j]):
            return 0.0
        a, b = words[0][i], words[1][j]
        score = len(a & b) / max(len(a | b), 1)
        return score if score >= 1 / 3 else 0.0

    n, m = len(old), len(new)
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = max(best[i + 1][j], best[i][j + 1], (like(i, j) + best[i + 1][j + 1]) if like(i, j) else 0.0)
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if like(i, j) and best[i][j] == like(i, j) + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    # between two pairs (or before the first, after the last), as many statements on both sides, of
    # the same types in the same order: paired in order (`f()` for `self.g()`: no word shared)
    out, last = [], (-1, -1)
    for a, b in [*pairs, (n, m)]:
        gap = range(last[0] + 1, a), range(last[1] + 1, b)
        if len(gap[0]) == len(gap[1]) and all(type(old[k]) is type(new[q]) for k, q in zip(*gap)):
            out += [(old[k], new[q]) for k, q in zip(*gap)]
        if (a, b) != (n, m):
            out.append((old[a], new[b]))
        last = (a, b)
    return out


def _words(stmt: ast.stmt) -> set[str]:
    return {w for n in ast.walk(stmt) for w in (
        [n.id] if isinstance(n, ast.Name) and n.id not in ("self", "cls") else [n.attr] if isinstance(n, ast.Attribute) else
        [n.arg] if isinstance(n, ast.keyword) and n.arg else [repr(n.value)] if isinstance(n, ast.Constant) else [])}


def _spelled_of(node: ast.expr, names: set[str]) -> bool:
    """An attribute chain (or a name) of one of `names`: no call, no subscript."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def _used_as_object(fn: ast.FunctionDef, name: str) -> bool:
    """Whether the function reads attributes of parameter `name`, or of a local it assigns from a
    call taking it (`cfg = resolving_view(name)`; `cfg.x`)."""
    holders = {name}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and any(isinstance(a, ast.Name) and a.id == name for a in node.value.args):
            holders.add(node.targets[0].id)
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in holders
               for n in ast.walk(fn))


def _names_the_class(params: list[ast.arg], name: str, class_name: str) -> bool:
    """Whether parameter `name` is the class's name in snake case (`server_args` for ServerArgs),
    or annotated with the class."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", class_name).lower()
    arg = next((a for a in params if a.arg == name), None)
    annotated = arg is not None and arg.annotation is not None and class_name in {
        n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else
        n.value if isinstance(n, ast.Constant) else None for n in ast.walk(arg.annotation)}
    return bool(class_name) and (name == snake or annotated)


def _methods_called(fn: ast.FunctionDef, me: str) -> set[str]:
    return {c.func.attr for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == me}


def _callers(root: Path, dest) -> list[str]:
    """file:line of the calls of the function by name in the after version's package."""
    pattern = re.compile(rf"\b{re.escape(dest.name)}\(")
    out = []
    for rel, text in _package_texts(root, dest.rel.split("/")[0]):
        if dest.name not in text:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith(("def ", "async def ")):
                out.append(f"{rel}:{i}")
    return out


@functools.lru_cache(maxsize=2)
def _package_texts(root: Path, package: str) -> tuple[tuple[str, str], ...]:
    """Every .py file of the package, read once per run (a PR may move a hundred hooks)."""
    return tuple((str(path.relative_to(root)), path.read_text(encoding="utf-8", errors="replace"))
                 for path in sorted((root / package).rglob("*.py")))
