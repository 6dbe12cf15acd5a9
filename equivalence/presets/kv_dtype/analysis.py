"""Where the kv-dtype decision lives in one version, and which inputs it reads.

Everything here is derived from the source by `ast`: the `ModelRunner` method, the call
site statement(s) in the runner's initialisation, the extracted function when it has moved,
the `self.` / `server_args.` attributes and module globals those read, and the string
literals the decision compares against.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from ...engine.inputs import skip_annotations
from ...engine.literals import literal_globals, string_literals
from .module_helpers import fold_helpers
from .platform import PLATFORM_GLOBALS

METHOD = "configure_kv_cache_dtype"
RUNNER_CLASS = "ModelRunner"


class AnalysisError(Exception):
    """The tree does not hold the shape the harness checks (message names file and line)."""


@dataclass
class CodeUnit:
    """One function of the version that takes part in the decision."""

    role: str  # "entry" (call-site statements), "wrapper" (instance method), "core" (decision)
    module: str  # "runner" or "kv"
    node: ast.AST
    filename: str


@dataclass
class Shape:
    runner_file: str
    kv_file: str | None
    entry_stmts: list[ast.stmt]  # the statement(s) of the initialiser the refactor touches
    entry_where: str  # "file:line in Class.method"
    units: list[CodeUnit]
    self_reads: set[str] = field(default_factory=set)  # "model", "server_args.kv_cache_dtype", ...
    eager_self_reads: set[str] = field(default_factory=set)  # read by entry/wrapper before the core runs
    globals_read: dict[str, set[str]] = field(default_factory=dict)  # module -> global names
    literals: list[str] = field(default_factory=list)
    has_record_method: bool = False
    trees: dict[str, ast.Module] = field(default_factory=dict)  # "runner" / "kv" -> parsed file


def parse(text: str, filename: str) -> ast.Module:
    try:
        return ast.parse(text, filename)
    except SyntaxError as e:
        raise AnalysisError(f"{filename}:{e.lineno}: cannot parse: {e.msg}") from None


def _find_class(tree: ast.Module, filename: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == RUNNER_CLASS:
            return node
    raise AnalysisError(f"{filename}: no class {RUNNER_CLASS}")


def _methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _is_static(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _calls_method(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == METHOD
        for n in ast.walk(node)
    )


def _bound_names(stmt: ast.stmt) -> set[str]:
    return {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _loaded_names(stmt: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _find_call_site(cls: ast.ClassDef, filename: str) -> tuple[list[ast.stmt], str]:
    """The innermost statement calling the method, plus the following statements of the same
    block that use a local it bound (e.g. `if resolved_kv_cache_dtype is not None: ...`)."""
    for name, fn in _methods(cls).items():
        if name == METHOD:
            continue
        found = _find_in_block(fn.body)
        if found:
            return found, f"{filename}:{found[0].lineno} in {RUNNER_CLASS}.{name}"
    raise AnalysisError(f"{filename}:{cls.lineno}: {RUNNER_CLASS} never calls {METHOD}")


def _find_in_block(body: list[ast.stmt]) -> list[ast.stmt] | None:
    for i, stmt in enumerate(body):
        if not _calls_method(stmt):
            continue
        for child_body in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, child_body, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                found = _find_in_block(inner)
                if found:
                    return found
        run = [stmt]
        bound = _bound_names(stmt)
        for nxt in body[i + 1 :]:
            if not (_loaded_names(nxt) & bound):
                break
            run.append(nxt)
            bound |= _bound_names(nxt)
        return run
    return None


def _find_function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def analyse(runner_text: str, runner_file: str, kv_text: str | None, kv_file: str | None) -> Shape:
    tree = parse(runner_text, runner_file)
    cls = _find_class(tree, runner_file)
    methods = _methods(cls)
    method = methods.get(METHOD)
    trees = {"runner": tree}
    kv_fn = None
    if kv_text is not None:
        trees["kv"] = parse(kv_text, kv_file)
        kv_fn = _find_function(trees["kv"], METHOD)
    if method is None and kv_fn is None:
        found = next((f for f in (_find_in_block(fn.body) for fn in methods.values()) if f), None)
        if found and _uses_kv_module(found):
            raise AnalysisError(f"{runner_file}:{found[0].lineno}: calls kv_cache_dtype.{METHOD}(...) but the "
                                f"tree has no {METHOD} in {kv_file} (only a stub could answer)")
        raise AnalysisError(f"{runner_file}:{cls.lineno}: {RUNNER_CLASS} has no method {METHOD}")
    entry, where = _find_call_site(cls, runner_file)
    units = [CodeUnit("entry", "runner", ast.Module(body=entry, type_ignores=[]), runner_file)]
    if method is not None and not _is_static(method) and kv_fn is not None:
        units.append(CodeUnit("wrapper", "runner", method, runner_file))
        units.append(CodeUnit("core", "kv", kv_fn, kv_file))
    elif kv_fn is not None and _uses_kv_module(entry):
        # the codemod's step 2 (and upstream's): no method in the class, the call site calls
        # kv_cache_dtype.configure_kv_cache_dtype(...) itself; the entry runs for real, with
        # the runner module's own `kv_cache_dtype` global (checked by the loader).
        units.append(CodeUnit("core", "kv", kv_fn, kv_file))
    elif method is not None:
        units.append(CodeUnit("core", "runner", method, runner_file))
    else:
        raise AnalysisError(f"{runner_file}:{cls.lineno}: {RUNNER_CLASS} has no method {METHOD}")
    shape = Shape(runner_file, kv_file, entry, where, units, trees=trees)
    shape.has_record_method = "_record_kv_cache_dtype" in methods
    _collect_reads(shape)
    for module, names in shape.globals_read.items():
        # constants of the source are code, not inputs (platform globals: checked by the loader)
        names -= set(literal_globals(trees.get(module))) - set(PLATFORM_GLOBALS)
    for module, names in shape.globals_read.items():
        # module-level helper functions the decision calls are code under test (both modules)
        shape.globals_read[module], helpers = fold_helpers(names, trees[module], METHOD)
        shape.literals = list(dict.fromkeys(shape.literals + string_literals(helpers, trees[module], skip_annotations)))
    return shape


def _uses_kv_module(stmts: list[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "kv_cache_dtype"
        for s in stmts
        for n in ast.walk(s)
    )


def _self_path(expr: ast.AST, roots: dict[str, str]) -> str | None:
    """`self.a.b` -> "a.b"; a parameter bound to `self.server_args` -> "server_args.b"."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Call) and _is_getattr(expr):
        inner = _self_path(expr.args[0], roots)
        if inner is None:
            return None
        return ".".join(filter(None, [inner, expr.args[1].value, *reversed(parts)]))
    if isinstance(expr, ast.Name) and expr.id in roots:
        return ".".join(filter(None, [roots[expr.id], *reversed(parts)]))
    return None


def _is_getattr(call: ast.Call) -> bool:
    return (
        isinstance(call.func, ast.Name)
        and call.func.id in ("getattr", "hasattr")
        and len(call.args) >= 2
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    )


def _param_roots(fn: ast.FunctionDef, call_kwargs: dict[str, str]) -> dict[str, str]:
    roots = {}
    for arg in fn.args.args + fn.args.kwonlyargs:
        if arg.arg == "self":
            roots["self"] = ""
        elif arg.arg in call_kwargs:
            roots[arg.arg] = call_kwargs[arg.arg]
    return roots


def _call_kwargs(units: list[CodeUnit]) -> dict[str, str]:
    """keyword -> self path, from the call of the extracted function (entry or wrapper)."""
    out = {}
    for unit in units:
        if unit.role == "core":
            continue
        for n in ast.walk(unit.node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == METHOD:
                for kw in n.keywords:
                    path = _self_path(kw.value, {"self": ""})
                    if kw.arg and path is not None:
                        out[kw.arg] = path
    return out


def _collect_reads(shape: Shape) -> None:
    kwargs = _call_kwargs(shape.units)
    for unit in shape.units:
        fn = unit.node
        if isinstance(fn, ast.FunctionDef):
            roots = _param_roots(fn, kwargs)
            local_names = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
        else:
            roots = {"self": ""}
            local_names = {"self"}
        for n in skip_annotations(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local_names.add(n.id)
        reads = set()
        for n in skip_annotations(fn):
            if isinstance(n, (ast.Attribute, ast.Call)) and not isinstance(getattr(n, "ctx", ast.Load()), ast.Store):
                if isinstance(n, ast.Call) and not _is_getattr(n):
                    continue
                path = _self_path(n, roots)
                if path:
                    reads.add(path)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local_names:
                if not hasattr(builtins, n.id):
                    shape.globals_read.setdefault(unit.module, set()).add(n.id)
        # `self.a.b` reads `a` too; keep only the outermost two levels
        reads = {".".join(r.split(".")[:2]) for r in reads} | {r.split(".")[0] for r in reads}
        shape.self_reads |= reads
        if unit.role != "core":
            shape.eager_self_reads |= reads
        else:
            shape.literals = string_literals([fn], shape.trees.get(unit.module), skip_annotations)
