"""Keys the code hands to torch where torch wants a device or a dtype: declared as torch declares them.

`torch.empty(n, device=self.device)`, `torch.device(self.device)`, `t.to(device)`: torch's own
signatures declare these `torch.device | str | None`, and it rejects anything else (a stand-in,
the placeholder string "x") before the rest of the code runs, so the runs never got past such a
line (NgramEmbeddingManager: 1604 of 2140 calls; WeightUpdater's `update_weights_from_disk`).
The world offers such a key "cpu" (a device this machine has) and None first (declared.py), as it
offers what the standard library declares the machine reads return; a dtype (`dtype=X`,
`t.to(device, X)`) gets torch.float32 and None."""

from __future__ import annotations

import ast

from pysource.extraction import Extraction
from pysource.names import attribute_chain

DEVICE_METHODS = ("to", "cuda")  # tensor and module methods whose first argument is a device


def torch_arguments(node: ast.AST, torch_names: set[str]) -> dict[str, list[ast.expr]]:
    """"device" and "dtype" -> the expressions `node` passes torch as such: `device=X`, `dtype=X`
    to a function of a name in `torch_names` (the module) or a `.to`/`.cuda` method,
    `torch.device(X)`, `.to(X, Y)` (X a device, Y a dtype)."""
    out: dict[str, list[ast.expr]] = {"device": [], "dtype": []}
    for n in ast.walk(node):
        if not isinstance(n, ast.Call):
            continue
        chain = attribute_chain(n.func, root=None)
        of_torch = chain is not None and chain.split(".")[0] in torch_names
        method = n.func.attr if isinstance(n.func, ast.Attribute) else None
        if of_torch or method in DEVICE_METHODS:
            for k in n.keywords:
                if k.arg in out:
                    out[k.arg].append(k.value)
        if (of_torch and chain.endswith(".device") or method in DEVICE_METHODS) and n.args:
            out["device"].append(n.args[0])
        if method == "to" and len(n.args) >= 2:
            out["dtype"].append(n.args[1])
    return out


def torch_keys(ext: Extraction) -> dict[str, set[str]]:
    """"device" and "dtype" -> the world keys one version hands torch as such: `self.` chains, the
    entry's locals (`local:NAME`), the moved function's parameters through what its call passes."""
    passed = _passed(ext)
    out: dict[str, set[str]] = {"device": set(), "dtype": set()}
    nodes = [n for n in (ext.method, ext.wrapper, ext.function) if n is not None]
    nodes += [s for site in ext.call_sites for s in site.statements]
    for node in nodes:
        for kind, exprs in torch_arguments(node, {"torch"}).items():
            for expr in exprs:
                if isinstance(expr, ast.Name) and node is ext.function and expr.id in passed:
                    expr = passed[expr.id]
                key = _key(expr)
                if key is not None:
                    out[kind].add(key)
    out["dtype"] -= out["device"]  # `.to(x)` alone: a device (a dtype would do too)
    return out


def component_torch_keys(owner_methods: list[ast.FunctionDef], component_methods: list[ast.FunctionDef],
                         passed: dict[str, ast.expr]) -> dict[str, set[str]]:
    """The same for a component check, whose keys are the owner's `self.` chains and the methods'
    parameters (`arg:NAME`, `arg:METHOD.NAME` for one with a default): in any of the owner's
    methods (what its own code hands torch says what the attribute is), and in the component's,
    where a field the builder passes stands for what it passes (the owner whole, or one of its
    chains)."""
    fields = {}
    for name, expr in passed.items():
        chain = "self" if isinstance(expr, ast.Name) and expr.id == "self" else attribute_chain(expr)
        if chain is not None:
            fields[name] = chain
    out: dict[str, set[str]] = {"device": set(), "dtype": set()}
    for fn, through in [(fn, {}) for fn in owner_methods] + [(fn, fields) for fn in component_methods]:
        for kind, exprs in torch_arguments(fn, {"torch"}).items():
            for expr in exprs:
                key = _method_key(expr, fn, through)
                if key is not None:
                    out[kind].add(key)
    out["dtype"] -= out["device"]
    return out


def _method_key(expr: ast.expr, fn: ast.FunctionDef, fields: dict[str, str]) -> str | None:
    a = fn.args
    me = a.args[0].arg if a.args else None
    if isinstance(expr, ast.Name):
        positional = [p.arg for p in (*a.posonlyargs, *a.args)]
        with_default = set(positional[len(positional) - len(a.defaults):]) | {
            p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        if expr.id == me or expr.id not in positional + [p.arg for p in a.kwonlyargs]:
            return None
        return f"arg:{fn.name}.{expr.id}" if expr.id in with_default else f"arg:{expr.id}"
    chain = attribute_chain(expr, me) if me is not None else None
    if chain is None:
        return None
    parts = chain.split(".")
    if fields and len(parts) > 1:  # in the component: a field the builder passes
        source = fields.get(parts[1])
        return None if source is None else ".".join([source, *parts[2:]])
    return chain.replace(me, "self", 1)


def _key(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name) and expr.id != "self":
        return f"local:{expr.id}"
    return attribute_chain(expr)


def _passed(ext: Extraction) -> dict[str, ast.expr]:
    """The moved function's parameter -> what its call passes it."""
    if ext.function is None or ext.call is None:
        return {}
    params = [a.arg for a in (*ext.function.args.posonlyargs, *ext.function.args.args)]
    out = dict(zip(params, ext.call.positional))
    out.update(ext.call.keyword_nodes)
    return out
