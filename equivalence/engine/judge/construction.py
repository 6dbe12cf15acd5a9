"""`super().METHOD(...)` read through, for the static check: the statement replaced by the body of
the method it reaches on an instance of CLASS (the next class of CLASS's order defining it, in
the checkout), its parameters bound first (`p = argument`, a default where nothing is passed), in
turn for the `super()` calls of that body. Construction (`CLASS.__init__`, whose statements a
pull-up moves into the base's `__init__`) then reads as one sequence of statements on each side,
compared as any body is.

A call is read through only when that keeps what runs: a statement of its own (`super().m(...)`
at the top level of the body, its value unused), arguments without `*`/`**`, a callee without
`*args`/`**kwargs` and whose body neither returns nor yields (statements after the call run on
every path through it, which an inlined early `return` would not say). Otherwise the call stays
as it is written, and a difference behind it is a residual the runs judge.

The inlined statements read the globals of the base's module: each such name is given to the
module globals' comparison as that module binds it (an import, absolute; `from BASE_MODULE import
NAME` for its own definitions), unless the method's own statements read the same name bound to
another object (then the call stays).
"""

from __future__ import annotations

import ast
import copy

from equivalence.engine.judge.module_globals import _Side
from equivalence.engine.judge.substitution import Logic, _normalised, is_docstring
from pysource.bindings import binding_index
from pysource.extraction import Extraction
from pysource.inheritance import Found, Hierarchy, InheritanceError
from pysource.modules import import_bindings, module_name
from pysource.names import global_reads

DEPTH = 8


def read_through(ext: Extraction, logic: Logic) -> tuple[dict[str, ast.stmt], list[str]]:
    """In place: `logic.body`'s `super().METHOD(...)` statements replaced by what they run (see
    the module's docstring). Returns the imports binding the inlined code's globals as its modules
    do (name -> a statement, for the module globals' comparison) and a note per call read through
    or left."""
    if ext.method is None or ext.method_kind == "static" or ext.shape != "method":
        return {}, []
    try:
        hierarchy = Hierarchy(ext.files, ext.source_rel.split("/")[0])
    except Exception:  # noqa: BLE001 (a tree the checkout cannot read: nothing read through)
        return {}, []
    start = ext.inherited.qualname if ext.inherited is not None else f"{module_name(ext.source_rel)}.{ext.class_name}"
    own_reads = set(logic.global_reads)
    imports: dict[str, ast.stmt] = {}
    notes: list[str] = []
    logic.body = _expand(ext, hierarchy, logic, logic.body, start, logic.rel, own_reads, imports, notes, 0)
    return imports, notes


def _expand(ext, hierarchy, logic, body, current, rel, own_reads, imports, notes, depth) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        call = _super_statement(stmt, ext.method_name)
        if call is None or depth >= DEPTH:
            out.append(stmt)
            continue
        where = f"{ext.files.path(rel)}:{stmt.lineno}"
        try:
            found = hierarchy.defining_class(ext.source_rel, ext.class_name, ext.method_name, where, after=current)
        except InheritanceError as e:
            notes.append(f"{where}: super().{ext.method_name}(...) not read through: {e}")
            out.append(stmt)
            continue
        if found is None:
            out.append(stmt)
            continue
        why = _why_not(call, found)
        bound = None if why else _bindings(found, logic.rel, own_reads, ext, imports)
        if why or isinstance(bound, str):
            notes.append(f"{where}: super().{ext.method_name}(...) not read through into "
                         f"{found.describe()}: {why or bound}")
            out.append(stmt)
            continue
        params = _parameters(found.member, call)
        self_name = found.member.args.args[0].arg if found.member.args.args else "self"
        loads = {self_name: ast.Name("self", ast.Load())} if self_name != "self" else {}
        inner = _normalised(found.member.body, found.rel, loads)
        inner = [s for s in inner if not is_docstring(s)]
        text = ext.files.text(found.rel)
        for s in inner:
            for n in ast.walk(s):
                if isinstance(n, ast.stmt):
                    n.read_through = (found.rel, text)  # where a residual's line and text are (static_check)
        imports.update(bound)
        logic.global_reads |= set(bound)
        notes.append(f"{where}: super().{ext.method_name}(...) read through into {found.describe()}")
        out += [ast.copy_location(ast.Assign([ast.Name(p, ast.Store())], value), stmt) for p, value in params]
        out += _expand(ext, hierarchy, logic, inner, found.qualname, found.rel, own_reads, imports, notes, depth + 1)
    return out


def _super_statement(stmt: ast.stmt, name: str) -> ast.Call | None:
    """The call when `stmt` is `super().NAME(...)` alone (its value unused)."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    f = stmt.value.func
    if isinstance(f, ast.Attribute) and f.attr == name and isinstance(f.value, ast.Call) \
            and isinstance(f.value.func, ast.Name) and f.value.func.id == "super" and not f.value.args:
        return stmt.value
    return None


def _why_not(call: ast.Call, found: Found) -> str:
    a = found.member.args
    if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
        return "the call passes *args or **kwargs"
    if a.vararg or a.kwarg or a.posonlyargs:
        return "the callee takes *args, **kwargs or positional-only parameters"
    if isinstance(found.member, ast.AsyncFunctionDef):
        return "the callee is a coroutine"
    for n in _own_nodes(found.member.body):
        if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)):
            return f"line {n.lineno} returns or yields (what follows the call would not run on that path)"
    names = [p.arg for p in a.args[1:]] + [p.arg for p in a.kwonlyargs]
    if len(call.args) > len(a.args) - 1 or any(k.arg not in names for k in call.keywords):
        return "the call does not match the callee's parameters"
    return ""


def _own_nodes(body: list[ast.stmt]):
    todo = list(body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo += list(ast.iter_child_nodes(n))


def _parameters(fn: ast.FunctionDef, call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(parameter, the expression it is bound to), in the callee's order: what the call passes,
    else the default (evaluated once, at the def: its source stands for that value)."""
    a = fn.args
    positional = a.args[1:]
    defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
    defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    passed = {p.arg: v for p, v in zip(positional, call.args)}
    passed.update((k.arg, k.value) for k in call.keywords)
    out = []
    for p in [*positional, *a.kwonlyargs]:
        value = passed.get(p.arg, defaults.get(p.arg))
        if value is None:
            value = ast.Name("__missing_argument__", ast.Load())  # a TypeError at run time: the runs show it
        out.append((p.arg, copy.deepcopy(value)))
    return out


def _bindings(found: Found, rel: str, own_reads: set[str], ext: Extraction, imports: dict) -> dict[str, ast.stmt] | str:
    """name -> an import binding it as the callee's module does, for each global the callee reads;
    a string (why not) when the method's own statements (of file `rel`) read one of them bound
    otherwise."""
    a = found.member.args
    params = {p.arg for p in [*a.args, *a.kwonlyargs]}
    reads = global_reads(found.member) - params
    if found.rel == rel and not imports:
        return {}
    files = ext.files
    index = binding_index(files.parse(found.rel))
    out: dict[str, ast.stmt] = {}
    for name in sorted(reads):
        stmts = index.get(name, [])
        if not stmts:
            continue  # a builtin, or unbound: the same on each side, the runs tell
        if len(stmts) == 1 and isinstance(stmts[0], (ast.Import, ast.ImportFrom)):
            binding = next(b for b in import_bindings(stmts[0], found.rel) if b.name == name)
            if binding.from_module is not None:
                stmt = ast.ImportFrom(binding.from_module, [ast.alias(binding.qualname.rpartition(".")[2],
                                                                      None if binding.qualname.endswith("." + name)
                                                                      else name)], 0)
            else:
                stmt = ast.Import([ast.alias(binding.qualname, None if binding.qualname == name else name)])
        else:
            stmt = ast.ImportFrom(module_name(found.rel), [ast.alias(name, None)], 0)
        ast.fix_missing_locations(ast.copy_location(stmt, stmts[0]))
        if name in own_reads or name in imports:
            mine = _Side(files, rel, {})
            theirs = _Side(files, found.rel, {})
            ours = imports[name] if name in imports else None
            a_obj = (mine.qualname(ours, name) if ours is not None
                     else mine.object_name(name, mine.bindings(name, True)))
            b_obj = theirs.object_name(name, theirs.bindings(name, True))
            if a_obj is None or a_obj != b_obj:
                return f"{name} means {b_obj or 'another binding'} there, and {a_obj or 'another'} where the call is"
        out[name] = stmt
    return out
