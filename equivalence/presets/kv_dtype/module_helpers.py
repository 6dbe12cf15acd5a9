"""Module-level helper functions the decision calls are code under test, not inputs.

A fix may move part of the decision into a helper next to it in the same module (e.g.
`kv_cache_dtype_to_str`), in `kv_cache_dtype.py` or in `model_runner.py` alike. The helper's name is then a global the core reads; what matters
are the globals the helper itself reads, which take its place (transitively), so that an
input hidden in a helper is still reported as not covered.
"""

from __future__ import annotations

import ast
import builtins


def _globals_read(fn: ast.FunctionDef) -> set[str]:
    local = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id not in local and not hasattr(builtins, n.id)}


def fold_helpers(globals_read: set[str], tree: ast.Module, exclude: str) -> tuple[set[str], list[ast.FunctionDef]]:
    """`globals_read` with every helper defined at module level in `tree` replaced by its reads,
    and the helpers reached (their string tests count for the configurations too)."""
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != exclude}
    out, todo, seen, used = set(), list(globals_read), set(), []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in helpers:
            used.append(helpers[name])
            todo.extend(_globals_read(helpers[name]))
        else:
            out.add(name)
    return out, used
