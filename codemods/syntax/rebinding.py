"""Where a module global may change after its one module-level assignment (Python's `ast`:
fast on a large module, and scope-exact where it matters: a function rebinds a global only
through a `global` statement).

Counted as a change, conservatively: a second binding at module level (if/try/for blocks
included), any `global NAME`, any store or `del` through `NAME[...]` / `NAME.attr` (at any
depth, in any scope), and a call of a mutating method (`NAME.update(...)`, ...) anywhere.
Not seen: `globals()[...]`, `setattr(module, ...)` and writes from other modules.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable

from pysource.parsing import parse as python_ast
from pysource.text_search import search_near

MUTATORS = {"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert", "remove",
            "add", "discard", "sort", "reverse", "__setitem__", "__delitem__", "__setattr__"}


def changes(text: str, names: Iterable[str]) -> dict[str, tuple[int, str]]:
    """{name: (line, what)} of the first place that may change it, for each of `names` that
    something changes; `what` names the construct (`global NAME`, ...)."""
    wanted = set(names)
    tree = python_ast(text)
    found: dict[str, list[tuple[int, str]]] = {}
    stores: dict[str, list[int]] = {}
    suspects = {n for n in wanted if _may_change(text, n)}

    def note(name: str, line: int, what: str) -> None:
        if name in wanted:
            found.setdefault(name, []).append((line, what))

    for node in _module_level(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores.setdefault(node.id, []).append(node.lineno)
        elif isinstance(node, ast.alias):
            stores.setdefault(node.asname or node.name.split(".")[0], []).append(node.lineno)
    for name, lines in stores.items():
        if len(lines) > 1:
            note(name, sorted(lines)[1], f"a second module-level binding of {name}")
    for node in ast.walk(tree) if suspects else ():
        if isinstance(node, ast.Global):
            for name in node.names:
                note(name, node.lineno, f"`global {name}`")
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root(node)
            if root is not None:
                note(root, node.lineno, f"a write through {root}[...] or {root}.attribute")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            root = _root(node.func)
            if root is not None:
                note(root, node.lineno, f"a call of {root}.{node.func.attr}(...)")
    return {name: min(lines) for name, lines in found.items()}


def _may_change(text: str, name: str) -> bool:
    """A cheap text test, true whenever the full walk could find a change of `name` (else the
    walk is skipped): a `global` or `del` naming it, an item access `name[`, an attribute
    chain ending in an assignment or an item access, a call of a mutating method."""
    n = re.escape(name)
    mutators = "|".join(sorted(MUTATORS))
    if any(search_near(re.compile(p), text, name) for p in (  # each starts with the name
            rf"(?<![\w.]){n}\s*\[",
            rf"(?<![\w.]){n}\s*\.[\w.\s]*(?:\[|[-+*/%&|^@<>]*=(?!=))",
            rf"(?<![\w.]){n}\s*\.\s*(?:{mutators})\s*\(")):
        return True
    declared = re.compile(rf"\b(?:global|del)\b[^\n]*\b{n}\b")  # within one line: that of a use of the name
    at = text.find(name)
    while at != -1:
        line_start, line_end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        if line_end == -1:
            line_end = len(text)
        if declared.search(text, line_start, line_end) is not None:
            return True
        at = text.find(name, line_end)
    return False


def _root(node: ast.AST):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _module_level(tree: ast.Module):
    """Nodes executed in the module's own scope: not inside functions, lambdas or classes."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                todo.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            else:
                todo.extend([*node.bases, *node.keywords])
            yield ast.Name(node.name, ast.Store(), lineno=node.lineno)
            continue
        if isinstance(node, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
