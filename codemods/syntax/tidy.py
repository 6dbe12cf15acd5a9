"""The tidy after a move (extract_method's step 4): the source module loses what only the moved code used.

Candidates are the names the moved function reads in the target module, and transitively
those its module globals there read (`_use_aiter` -> `get_bool_env_var`, `_is_hip`). A
top-level import in the source binding a candidate goes when nothing else in the source uses
the name (`uses`: names in code, string annotations and `__all__`, not in comments or other
strings; an import line holding a comment is left alone); so does a private module
global (`_name = ...`) that travelled with the function (the target binds it the same way).
Dropping one may leave another unused (`get_bool_env_var` after `_use_aiter`), so this runs
until nothing more goes. A name another file of the tree reads through the source module
(`from source import _name`, `source._name`) stays (`keep`).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from functools import lru_cache
from typing import Callable

import libcst as cst

from pysource.parsing import parse as python_ast
from codemods.syntax.nodes import dotted
from codemods.core.formatting import Style, format_import
from codemods.syntax.travelling_code import free_names
from codemods.syntax.import_statements import bound_name, drop_aliases, index_bindings, is_import_line
from pysource import parsing


@lru_cache(maxsize=8)  # asked by step 2's checkout update and step 4's tidy about the same module
def candidates(target: cst.Module, function: str) -> frozenset[str]:
    """Names the function (or class) reads from its module, with what the target's own globals
    among them read."""
    funcs = [s for s in target.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == function]
    if len(funcs) != 1:
        return frozenset()
    bindings = index_bindings(target)
    out, todo = set(), sorted(free_names(funcs))
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        for b in bindings.get(name, []):
            if b.kind == "assign":
                todo += sorted(free_names([target.body[b.index]]))
    return frozenset(out)


def tidy_source(module: cst.Module, target: cst.Module, function: str, style: Style,
                keep: Callable[[set[str]], set[str]] = lambda names: set(), globals_: bool = True,
                render: Callable[[cst.Module], str] = lambda module: module.code) -> tuple[cst.Module, list[str]]:
    """(the source module without what only the moved code used, the names dropped);
    `globals_=False`: imports only, private module globals stay. `render`: the module's text."""
    wanted = candidates(target, function)
    dropped: list[str] = []
    kept: set[str] = set()
    while True:
        code = render(module)
        bindings = index_bindings(module)
        spelled = _spelled(code, wanted - kept)
        drop = {n for n in wanted - kept if _unused_but_bound(module, bindings, n, code, spelled)}
        blocked = keep(drop) if drop else set()
        kept |= blocked
        module, gone = _drop(module, drop - blocked, target, style, globals_)
        dropped += sorted(gone)
        if not any(_is_private(n) and n not in index_bindings(module) for n in gone):
            return module, dropped  # only a dropped global can leave another name unused


def _spelled(code: str, names: set[str]) -> Counter:
    """How many times `code` spells each of `names` as a word (not after a dot), in one search."""
    if not names:
        return Counter()
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return Counter(re.findall(rf"(?<![\w.])({alternatives})\b", code))


def _unused_but_bound(module: cst.Module, bindings: dict, name: str, code: str, spelled: Counter) -> bool:
    """`name` is bound at top level by exactly one statement and used nowhere else. The text is
    searched first (`spelled`: a superset of the uses, it also finds the name in comments and
    strings); only a name it finds elsewhere is looked up in the code's real uses."""
    found = bindings.get(name, [])
    if len(found) != 1:
        return False
    own = cst.Module(body=[module.body[found[0].index]]).code
    pat = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    return spelled[name] == len(pat.findall(own)) or uses(code)[name] == uses(own)[name]


@lru_cache(maxsize=4)
def uses(code: str) -> Counter:
    """How many times `code` uses each name: as a name in its code (f-strings included), in a
    string annotation (`x: "ModelConfig"`), or exported by `__all__`; not in comments or other
    strings."""
    found: Counter = Counter()
    for node in ast.walk(python_ast(code)):
        if isinstance(node, ast.Name):
            found[node.id] += 1
        elif isinstance(node, ast.arg) and node.annotation is not None:
            found.update(_quoted(node.annotation))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            found.update(_quoted(node.returns))
        elif isinstance(node, ast.AnnAssign):
            found.update(_quoted(node.annotation))
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and "__all__" in {
                t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)}:
            found.update(e.value for e in getattr(node.value, "elts", ()) if isinstance(e, ast.Constant)
                         and isinstance(e.value, str))
    return found


def _quoted(annotation: ast.expr) -> Counter:
    """The names a string annotation spells, in it or in strings nested in it (`Optional["X"]`)."""
    found: Counter = Counter()
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                found.update(n.id for n in ast.walk(parsing.expression(node.value)) if isinstance(n, ast.Name))
            except SyntaxError:
                continue
    return found


def _drop(module: cst.Module, drop: set[str], target: cst.Module, style: Style, globals_: bool
          ) -> tuple[cst.Module, set[str]]:
    """(module without the imports of `drop` and those of its private globals that travelled, what went)."""
    body, carry, gone = [], None, set()
    target_globals = index_bindings(target)
    for s in module.body:
        if carry is not None:
            s = s.with_changes(leading_lines=max(carry, s.leading_lines, key=len))
            carry = None
        names = set()
        if is_import_line(s) and len(s.body) == 1 and not isinstance(s.body[0].names, cst.ImportStar) \
                and not _is_future(s.body[0]):
            is_from = isinstance(s.body[0], cst.ImportFrom)
            names = {bound_name(a, is_from) for a in s.body[0].names} & drop
        if names and "#" not in cst.Module(body=[s]).code:  # an import line holding a comment stays
            gone |= names
            lead = s.leading_lines
            s = drop_aliases(s, names)
            if s is None:
                carry = lead
                continue
            s = format_import(s, style)
        elif globals_ and _private_global(s) in drop and _same_in(target, target_globals, s):
            gone.add(_private_global(s))
            carry = s.leading_lines
            continue
        body.append(s)
    return (module.with_changes(body=body), gone) if gone else (module, gone)


def _is_future(small) -> bool:
    return isinstance(small, cst.ImportFrom) and small.module is not None and dotted(small.module) == "__future__"


def _is_private(name: str) -> bool:
    return name.startswith("_")


def _private_global(s: cst.CSTNode) -> str:
    if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign) \
            and len(s.body[0].targets) == 1 and isinstance(s.body[0].targets[0].target, cst.Name):
        name = s.body[0].targets[0].target.value
        return name if _is_private(name) else ""
    return ""


def _same_in(target: cst.Module, bindings: dict, s: cst.SimpleStatementLine) -> bool:
    found = bindings.get(_private_global(s), [])
    if len(found) != 1 or found[0].kind != "assign":
        return False
    dump = lambda node: ast.dump(ast.parse(cst.Module(body=[node]).code))  # noqa: E731
    return dump(target.body[found[0].index]) == dump(s.with_changes(leading_lines=()))
