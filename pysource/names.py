"""Statements and their blocks, by `ast`: the innermost statements holding a node, the statements
that follow one and use what it bound, and the names a piece of code binds or reads."""

from __future__ import annotations

import ast
import builtins


def using_bound_locals(statement: ast.stmt, after: list[ast.stmt]) -> list[ast.stmt]:
    """The statements after `statement` that read a local it (or one of them) bound."""
    run, bound = [], stored_names(statement)
    for nxt in after:
        if not (loaded_names(nxt) & bound):
            break
        run.append(nxt)
        bound |= stored_names(nxt)
    return run


def stored_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def child_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    blocks = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if getattr(stmt, f, None)]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    blocks += [c.body for c in getattr(stmt, "cases", [])]
    return blocks


def innermost(body: list[ast.stmt], is_call):
    """(block, index) of every innermost statement whose code contains a node `is_call` accepts."""
    for i, stmt in enumerate(body):
        if not any(is_call(n) for n in ast.walk(stmt)):
            continue
        inner = [found for block in child_blocks(stmt) for found in innermost(block, is_call)]
        yield from inner or [(body, i)]


def global_reads(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    """The globals a def reads: names it loads and never binds, parameters and builtins excluded."""
    params = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    body = ast.Module(fn.body, [])
    return {n for n in loaded_names(body) - stored_names(body) - params if not hasattr(builtins, n)}
