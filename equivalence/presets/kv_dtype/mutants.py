"""PR #31147's own non-equivalent changes to the after version, to check that the harness notices.

Each mutant rewrites one function of the after version (the decision function, or the
wrapper / call site) with an AST transform and splices it back into the file text; module
mutants (role "module") rewrite the module-level code of the file holding the decision (a
platform global dropped or hard-coded: the world keys globals by their origin, so running sees
it, and the static check names it). Each is loaded as a version with the file as an override;
a mutant is killed when the pair (before, mutant) is divergent, and a load failure is a
survivor, since the mutant was never compared.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Callable

from equivalence.engine.load.version import Version


@dataclass
class Mutant:
    id: str
    description: str
    role: str  # which unit it rewrites: "core", "caller" (wrapper, else entry statements) or
    # "module" (the module-level code of the core's file)
    mutate: Callable[[ast.AST], bool]  # mutates in place, returns whether it applied


def _first(node, kind, pred):
    for n in ast.walk(node):
        if isinstance(n, kind) and pred(n):
            return n
    return None


def _is_const(n, value):
    return isinstance(n, ast.Constant) and n.value == value


def _flip_comparison(fn):
    n = _first(fn, ast.Compare, lambda c: any(_is_const(x, "fp8_e5m2") for x in c.comparators) and isinstance(c.ops[0], ast.Eq))
    if n:
        n.ops[0] = ast.NotEq()
    return bool(n)


def _swap_hip_branch(fn):
    n = _first(fn, ast.If, lambda i: isinstance(i.test, ast.Name) and i.test.id == "_is_hip" and i.orelse)
    if n:
        n.body, n.orelse = n.orelse, n.body
    return bool(n)


def _case_sensitive_fp8(fn):
    n = _first(fn, ast.Call, lambda c: isinstance(c.func, ast.Attribute) and c.func.attr == "upper")
    if n:
        n.func = ast.Attribute(value=n.func.value, attr="strip", ctx=ast.Load())
    return bool(n)


def _fp4_fallback_dtype(fn):
    def is_float4_test(i):
        t = i.test
        return isinstance(t, ast.Call) and len(t.args) == 2 and _is_const(t.args[1], "float4_e2m1fn_x2")

    n = _first(fn, ast.If, is_float4_test)
    target = n and _first(ast.Module(body=n.orelse, type_ignores=[]), ast.Assign, lambda a: True)
    if target:
        target.value = ast.parse("torch.float16", mode="eval").body
    return bool(target)


def _wrong_hip_choice(fn):
    n = _first(fn, ast.Name, lambda e: e.id == "fp8_dtype" and isinstance(e.ctx, ast.Load))
    if n:
        _replace(fn, n, ast.parse("torch.float8_e4m3fnuz", mode="eval").body)
    return bool(n)


def _drop_bfloat16_alias(fn):
    n = _first(fn, ast.Tuple, lambda t: any(_is_const(x, "bfloat16") for x in t.elts))
    if n:
        n.elts = [x for x in n.elts if not _is_const(x, "bfloat16")]
    return bool(n)


def _ignore_quant_config(fn):
    n = _first(fn, ast.Call, lambda c: isinstance(c.func, ast.Name) and c.func.id == "getattr" and len(c.args) == 3 and _is_const(c.args[1], "kv_cache_quant_algo"))
    if n:
        n.args[1] = ast.Constant("kv_cache_quant_method")
    return bool(n)


def _lookup_get(fn):
    n = _first(fn, ast.Subscript, lambda s: isinstance(s.value, ast.Name) and s.value.id == "TORCH_DTYPE_TO_KV_CACHE_STR")
    if n:
        call = ast.Call(func=ast.Attribute(value=n.value, attr="get", ctx=ast.Load()), args=[n.slice], keywords=[])
        _replace(fn, n, call)
    return bool(n)


def _error_message(fn):
    n = _first(fn, ast.Raise, lambda r: isinstance(r.exc, ast.Call) and getattr(r.exc.func, "id", "") == "ValueError")
    if n:
        n.exc.args = [ast.Constant("Unsupported kv_cache_dtype.")]
    return bool(n)


def _drop_warning(fn):
    n = _first(fn, ast.Expr, lambda e: isinstance(e.value, ast.Call) and getattr(e.value.func, "attr", "") == "warning")
    if n:
        n.value = ast.Constant(None)
    return bool(n)


def _drop_record(fn):
    def is_record(s):
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            return getattr(s.value.func, "attr", "") == "_record_kv_cache_dtype"
        return isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "self.server_args.kv_cache_dtype"

    n = _first(fn, ast.stmt, is_record)
    if n:
        _replace(fn, n, ast.Pass())
    return bool(n)


def _reorder_effects(fn):
    """Assign self.kv_cache_dtype after recording the resolved string, not before."""
    body = fn.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple):
            elts = stmt.targets[0].elts
            for j, e in enumerate(elts):
                if ast.unparse(e) == "self.kv_cache_dtype" and i + 1 < len(body):
                    elts[j] = ast.Name("_mutant_kv", ast.Store())
                    body.insert(i + 2, ast.parse("self.kv_cache_dtype = _mutant_kv").body[0])
                    return True
    return False


def _wrong_model_dtype(fn):
    n = _first(fn, ast.keyword, lambda k: k.arg == "model_dtype")
    if n:
        n.value = ast.parse("torch.bfloat16", mode="eval").body
    return bool(n)


def _module_statement(tree, pred):
    return next((s for s in tree.body if pred(s)), None)


def _is_hip_binding(s):
    return isinstance(s, ast.Assign) and [ast.unparse(t) for t in s.targets] == ["_is_hip"]


def _drop_is_hip(tree):
    n = _module_statement(tree, _is_hip_binding)
    if n:
        tree.body.remove(n)
    return bool(n)


def _hardcode_is_hip(tree):
    n = _module_statement(tree, _is_hip_binding)
    if n:
        n.value = ast.Constant(True)
    return bool(n)


def _drop_fp8_import(tree):
    n = _module_statement(tree, lambda s: isinstance(s, ast.ImportFrom) and any(a.name == "fp8_dtype" for a in s.names))
    if n:
        n.names = [a for a in n.names if a.name != "fp8_dtype"]
        if not n.names:
            tree.body.remove(n)
    return bool(n)


def _replace(root, old, new):
    for parent in ast.walk(root):
        for fname, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, fname, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return


MUTANTS = [
    Mutant("flip-comparison", 'kv == "fp8_e5m2" becomes !=', "core", _flip_comparison),
    Mutant("swap-hip-branch", "the first `if _is_hip:` takes the other branch", "core", _swap_hip_branch),
    Mutant("case-sensitive-fp8", "the FP8 quant test no longer upper-cases", "core", _case_sensitive_fp8),
    Mutant("fp4-fallback-dtype", "fp4 without float4 falls back to float16", "core", _fp4_fallback_dtype),
    Mutant("wrong-hip-choice", "the first HIP choice uses float8_e4m3fnuz, not fp8_dtype", "core", _wrong_hip_choice),
    Mutant("drop-bfloat16-alias", '"bfloat16" is no longer accepted', "core", _drop_bfloat16_alias),
    Mutant("ignore-quant-algo", "the quant config's kv_cache_quant_algo is not read", "core", _ignore_quant_config),
    Mutant("lookup-get", "TORCH_DTYPE_TO_KV_CACHE_STR[...] becomes .get(...)", "core", _lookup_get),
    Mutant("error-message", "the unsupported-dtype error loses the dtype", "core", _error_message),
    Mutant("drop-warning", "the fp4 warning is not logged", "core", _drop_warning),
    Mutant("drop-record", "the resolved string is not recorded", "caller", _drop_record),
    Mutant("reorder-effects", "kv_cache_dtype is assigned after the record, not before", "caller", _reorder_effects),
    Mutant("wrong-model-dtype", "the wrapper passes bfloat16 as model_dtype", "caller", _wrong_model_dtype),
    Mutant("drop-is-hip", "the module no longer binds _is_hip (NameError in sglang)", "module", _drop_is_hip),
    Mutant("drop-fp8-dtype", "the module no longer imports fp8_dtype (NameError in sglang)", "module", _drop_fp8_import),
    Mutant("hardcode-is-hip", "the module sets _is_hip = True instead of is_hip()", "module", _hardcode_is_hip),
]


def mutant_sources(version: Version, mutant: Mutant) -> dict[str, str] | None:
    """The after version's file with the mutant applied, or None if it does not apply."""
    ext = version.ext
    core, rel = ext.core
    if mutant.role == "module":
        tree = ast.parse(ext.text(rel))
        return {rel: ast.unparse(tree) + "\n"} if mutant.mutate(tree) else None
    if mutant.role == "caller" and (ext.wrapper is not None or ext.call_sites):
        rel = ext.source_rel
        stmts = [ext.wrapper] if ext.wrapper is not None else ext.call_sites[0].statements
    else:
        stmts = [core]
    lines = ext.text(rel).splitlines(keepends=True)
    first, last = stmts[0], stmts[-1]
    if isinstance(first, ast.FunctionDef):
        target = copy.deepcopy(first)
        new = [target]
    else:
        new = copy.deepcopy(stmts)
        target = ast.FunctionDef(name="_", args=ast.arguments([], [], None, [], [], None, []), body=new,
                                 decorator_list=[])
    if not mutant.mutate(target):
        return None
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])]) - 1
    indent = " " * first.col_offset
    code = "\n".join(ast.unparse(ast.fix_missing_locations(s)) for s in new)
    code = "".join(indent + line + "\n" if line else "\n" for line in code.splitlines())
    return {rel: "".join(lines[:start]) + code + "".join(lines[last.end_lineno:])}
