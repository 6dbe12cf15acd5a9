"""The parameters a call site leaves at their default are inputs too.

`self.init_prefill_cuda_graph()` never passes `force_for_draft_worker`: run as written, the
branches that parameter guards never run. The entry's copy of the call site's call gets
`**{name: value}` for each parameter with a default that the call passes neither by position
nor by keyword; the world answers each under the key `arg:NAME`, whose default option is
ABSENT (not passed: the call as written), then the neighbours of a literal default
(world.demanded_options, as if compared with it; the default itself would run as ABSENT does;
for None a stand-in first), else a stand-in and None.
"""

from __future__ import annotations

import ast
import copy

from equivalence.engine.world.world import ABSENT, NONE, OPAQUE, Absent, World, demanded_options, value

PASSED = "__equivalence_defaults__"  # the entry's parameter: the dict the call unpacks


def unpassed(called: ast.FunctionDef, call: ast.Call, bound: bool) -> dict[str, ast.expr]:
    """`called`'s parameters with a default that `call` leaves out (`bound`: the first
    parameter is the instance, not passed); none when the call unpacks `*args` or `**kwargs`."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return {}
    a = called.args
    positional = (a.posonlyargs + a.args)[1 if bound else 0:]
    with_defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
    with_defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    passed = {p.arg for p in positional[:len(call.args)]} | {k.arg for k in call.keywords}
    return {name: d for name, d in with_defaults.items() if name not in passed}


def passing_defaults(statements: list[ast.stmt], call: ast.Call) -> list[ast.stmt]:
    """A copy of `statements` whose copy of `call` also unpacks PASSED."""
    copied = copy.deepcopy(statements)
    where = (call.lineno, call.col_offset, call.end_lineno, call.end_col_offset)
    for node in (n for s in copied for n in ast.walk(s)):
        if isinstance(node, ast.Call) and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == where:
            node.keywords.append(ast.copy_location(ast.keyword(arg=None, value=ast.copy_location(
                ast.Name(PASSED, ast.Load()), node)), node))
    return copied


def options(default: ast.expr) -> list[tuple]:
    """Not passed first, then the other values of a scalar literal default, else a stand-in and None."""
    try:
        literal = ast.literal_eval(default)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return [ABSENT, OPAQUE, NONE]
    if literal is None:  # an optional object: any object, or a flag
        return [ABSENT, OPAQUE, value(True), value(False)]
    others = [o for o in demanded_options("eq", literal) if o != value(literal)]
    return [ABSENT, *others] if others else [ABSENT, OPAQUE, NONE]  # (a tuple, a list: none of its kind)


def passed(world: World, domains: dict[str, list[tuple]]) -> dict:
    """The keywords this run passes: each `arg:NAME` the world does not make absent."""
    out = {}
    for name, default in domains.items():
        try:
            out[name] = world.value(f"arg:{name}", default)
        except Absent:
            pass
    return out
