"""A method moved into a function that only other modules call (`ServerArgs._handle_x` ->
`arg_groups.x_hook.handle_x(server_args)`, called from `arg_groups/pipeline.py`): the class no
longer holds a call to read the arguments off, so the check drives the function through a
delegation written into the class of the after version, for the check only (a text override,
no file written): `def _handle_x(self, ...): return handle_x(server_args=self, ...)`.

Each parameter of the function is mapped onto the old receiver: the parameter the function
reads attributes of, where the old body read the same attributes of `self`, is the instance;
a parameter named as one of the method's is passed that one; a parameter named as an attribute
the old body read (`self.tp_size` -> `tp_size`), or as the end of exactly one of them
(`self.draft_num_tokens` -> `num_tokens`), is passed that attribute; one with a default is left
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
    mapping = _mapping(origin.node, dest.node)
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
    method = (f"\n{indent}def {origin.name}({args}):\n"
              f"{indent}    return {alias}({call})\n")
    text = "".join(lines[:end]) + method + "".join(lines[end:])
    text += f"\n\nfrom {dest.module} import {dest.name}" + (f" as {alias}" if alias != dest.name else "") + "\n"
    return Delegation({origin.rel: text}, mapping, _callers(after_root, dest))


def _mapping(old: ast.FunctionDef, new: ast.FunctionDef) -> dict[str, str]:
    me = old.args.args[0].arg if old.args.args else "self"
    old_params = {a.arg for a in (*old.args.args[1:], *old.args.kwonlyargs)}
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
        else:
            unmapped.append(p)
    if len(unmapped) == 1 and "self" not in out.values() and _used_as_object(new, unmapped[0]):
        out[unmapped[0]] = "self"  # the one parameter left, used as an object: the instance (`cfg = view(p)`)
    elif unmapped:
        raise NotMapped(f"parameter {unmapped[0]!r} of {new.name} stands for nothing {old.name} had (not one of its "
                        f"parameters, not an attribute it read of {me})")
    return out


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
