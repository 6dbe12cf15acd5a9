"""One version's logic in the old method's terms, for the static check.

An extracted function is rewritten back into the method it came from: each parameter becomes
the expression its call passes (`tp_rank` -> `self.tp_rank`, `model_runner` -> `self`), each
returned local the target the caller assigns it to (`local_omp_cpuid` -> `self.local_omp_cpuid`;
a tuple by position), and the final `return` that only returns them is dropped. The method's own
parameters stay themselves. Every node put in by the map is marked with the entry it came from,
so that a difference there can be called a mapping mismatch.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from pysource.names import global_reads, loaded_names, own_returns, stored_names
from pysource.extraction import Extraction
from pysource.modules import file_absolute_module, source_segment


class StaticCheckError(Exception):
    """The version's logic cannot be put in the old method's terms (file:line: why)."""


@dataclass
class MapEntry:
    name: str  # a parameter or returned local of the function
    kind: str  # "parameter", "instance" (the pass-self name), "own parameter", "default", "result"
    expression: str  # what it stands for in the old method's terms
    note: str = ""  # for a result the caller applies itself: the caller's statements
    before_reads: list[str] = field(default_factory=list)  # on a mapping mismatch: what the old body read

    def to_json(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "expression": self.expression}
        return out | ({"note": self.note} if self.note else {}) | (
            {"before_reads": self.before_reads} if self.before_reads else {})


@dataclass
class Logic:
    """The statements of one version's logic, in the old method's terms (positions kept)."""

    where: str  # "rel/file.py:line CLASS.METHOD" or "rel/file.py:line FUNCTION"
    rel: str
    text: str
    body: list[ast.stmt]
    defaults: dict[str, str | None]  # own parameter -> source of its default
    entries: list[MapEntry]
    marks: dict[int, str] = field(default_factory=dict)  # id of a node the map put in -> entry name
    roots: set[int] = field(default_factory=set)  # the outermost such nodes
    caller_locals: dict[str, list[ast.stmt]] = field(default_factory=dict)  # result -> caller's follow-up
    global_reads: set[str] = field(default_factory=set)  # module globals the code reads
    dropped_return: str = ""  # "L12: return a, b": the final return of the results, part of the map


def own_parameters(ext: Extraction) -> set[str]:
    """The parameters of the version's instance method (the original, or the wrapper), self excluded."""
    if ext.method is None or ext.method_kind == "static":
        return set()
    return {a.arg for a in _params(ext.method.args)[1:]}


def logic_of(ext: Extraction, own: set[str], assigned_before: str | None = None) -> Logic:
    """`assigned_before`: what the old call at the map's call's place assigned the method's value
    to (`assigned_targets`); a call assigning to the same is the method's value, no results."""
    node, rel = ext.core
    where = f"{rel}:{node.lineno} {ext.class_name + '.' if rel == ext.source_rel else ''}{node.name}"
    text = ext.text(rel)
    params = _params(node.args)
    defaults = _defaults(node.args, text)
    reads = global_reads(node)
    if ext.shape == "method":
        self_name = params[0].arg if params else "self"
        body = _normalised(node.body, rel, {self_name: ast.Name("self", ast.Load())} if self_name != "self" else {})
        entries = [MapEntry(a.arg, "own parameter", a.arg) for a in params[1:]]
        return Logic(where, rel, text, body, {k: v for k, v in defaults.items() if k != self_name}, entries,
                     global_reads=reads - {self_name})
    call = ext.call
    if call is None:
        raise StaticCheckError(f"{ext.files.path(rel)}:{node.lineno}: nothing calls {node.name}, so no call "
                               f"gives its parameters' values")
    caller_self = _caller_self(ext)
    loads, entries = _parameter_map(params, defaults, call, own, caller_self)
    if call.result.how == "assign" and assigned_before is not None \
            and assigned_before == _targets_dump(call.result.target_nodes, caller_self):
        body, results, caller_locals, dropped = list(node.body), {}, {}, ""
    elif (written_back := _written_back(list(node.body), call, caller_self)) is not None:
        body, results, caller_locals, dropped = written_back, {}, {}, ""
        entries.append(MapEntry("return True", "result", "the caller's writes",
                                "a flag the caller writes back on: " + ast.unparse(call.statement).split("\n")[0]))
    else:
        body, results, caller_locals, dropped = _result_map(list(node.body), call, caller_self, text, entries)
    if call.result.how == "expression" and isinstance(call.statement, ast.Return) and call.where == "wrapper":
        body = _returned_through(body, call, caller_self, {a.arg for a in params} | stored_names(node))
    if ext.wrapper is not None:  # what the method's callers see: the wrapper's defaults
        defaults.update(_defaults(ext.wrapper.args, ext.text(ext.source_rel)))
    logic = Logic(where, rel, text, [], {k: v for k, v in defaults.items() if k in own}, entries,
                  caller_locals=caller_locals, global_reads=reads - {a.arg for a in params}, dropped_return=dropped)
    logic.body = _normalised(body, rel, loads, results, logic)
    around = _around_the_call(ext, node, call)
    if around is not None:  # a piece extracted: the rest of the old body stayed in the method
        me = ext.wrapper.args.args[0].arg if ext.wrapper.args.args else "self"
        stay = {me: ast.Name("self", ast.Load())} if me != "self" else {}
        before_call, after_call = (_normalised(part, rel, stay) for part in around)
        logic.body = before_call + logic.body + after_call
        logic.global_reads |= global_reads(ext.wrapper) - {node.name}
    return logic


def _around_the_call(ext: Extraction, function: ast.FunctionDef, call) -> tuple[list, list] | None:
    """The statements the method kept before and after its call of the function, when it kept any
    (Extract Method proper: a piece of the body went into the function): the call a statement of
    its own at the top of the method's body, its value unused, the function in the method's module
    (their globals are one module's) and neither returning a value nor yielding (what follows the
    call runs on every path through it). None otherwise: the function is compared alone."""
    wrapper = ext.wrapper
    if wrapper is None or call.where != "wrapper" or call.result.how != "discard" or ext.core[1] != ext.source_rel:
        return None
    body = [s for s in wrapper.body if not is_docstring(s)]
    if call.statement not in body or len(body) == 1:
        return None
    if any(r.value is not None for r in own_returns(function.body)) \
            or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(function)):
        return None
    at = body.index(call.statement)
    return body[:at], body[at + 1:]


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def assigned_targets(ext: Extraction) -> str | None:
    """The targets the first call site in the class assigns the method's value to (`ast.dump`,
    self spelled `self`), when it calls the original method (`x["k"] = self.m()`); else None (a
    step-1 static method's call assigns its results, mapped on both sides alike)."""
    if ext.shape != "method":
        return None
    site = next((s for s in ext.call_sites if s.calls == "method" and s.method != ext.method_name), None)
    stmt = site.statements[0] if site is not None else None
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is not site.call:
        return None
    fn = next(f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.name == site.method)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return _targets_dump(targets, fn.args.args[0].arg if fn.args.args else "self")


def _targets_dump(targets: list[ast.expr], caller_self: str) -> str:
    """A tuple target by its elements, as ResultUse.target_nodes holds it."""
    flat = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
    return "|".join(ast.dump(_renamed_self(t, caller_self)) for t in flat)


def _parameter_map(params, defaults, call, own, caller_self) -> tuple[dict[str, ast.expr], list[MapEntry]]:
    """parameter -> what the call passes (or its default when the call passes nothing)."""
    loads, entries = {}, []
    passed = _inline_preamble(call, caller_self)
    for i, arg in enumerate(params):
        if arg.arg in own:
            entries.append(MapEntry(arg.arg, "own parameter", arg.arg))
            continue
        value = passed.get(arg.arg, call.positional[i] if i < len(call.positional) else None)
        kind = "instance" if isinstance(value, ast.Name) and value.id == "self" else "parameter"
        if value is None and defaults.get(arg.arg) is not None:
            value, kind = ast.parse(defaults[arg.arg], mode="eval").body, "default"
        if value is not None:
            loads[arg.arg] = value
            entries.append(MapEntry(arg.arg, kind, ast.unparse(value)))
    return loads, entries


def _result_map(body, call, caller_self, text, entries):
    """Returned local -> the caller's target, when the final `return` returns plain locals the
    caller assigns; that return is dropped from the body (it is part of the map)."""
    results, caller_locals, dropped = {}, {}, ""
    returned = _returned_locals(body, len(call.result.targets)) if call.result.how == "assign" else None
    if returned is None:
        return body, results, caller_locals, dropped
    dropped = f"L{body[-1].lineno}: {source_segment(text, body[-1])}"
    for local, target in zip(returned, call.result.target_nodes):
        results[local] = _renamed_self(target, caller_self)
        note = ""
        if isinstance(target, ast.Name):
            uses = [s for s in call.result.follow_up if target.id in loaded_names(s)]
            caller_locals[target.id] = uses
            note = caller_note(uses)
        entries.append(MapEntry(local, "result", ast.unparse(target), note))
    final = ast.dump(body[-1].value)
    return [_early_returns_bare(stmt, final) for stmt in body[:-1]], results, caller_locals, dropped


def _written_back(body: list[ast.stmt], call, caller_self: str) -> list[ast.stmt] | None:
    """The body in the old method's terms when the function returns only a flag, True or False,
    that its caller assigns and then writes back on (`recovered = f(...)`, `if recovered:
    self.forward_pass_id = 0`: `--write-back`, upstream's shape for a write made on some paths):
    each `return True` is the caller's writes there, then `return`; each `return False` a bare
    `return`; a `return` the body ends on, at its end or its last `if`'s, is dropped (the old body
    fell off its end there). None when the shapes differ: a return of anything else, one inside a
    `try` or `with` (the writes would come after what those run on the way out), a follow-up
    other than one `if FLAG:` of plain writes of the caller's attributes."""
    writes = _writes_on_flag(call)
    if writes is None or not all(
            isinstance(w, ast.Assign) and len(w.targets) == 1 and isinstance(w.targets[0], ast.Attribute)
            and isinstance(w.targets[0].value, ast.Name) and w.targets[0].value.id == caller_self
            and isinstance(w.value, ast.Constant) for w in writes):
        return None
    returns = own_returns(body)
    if not returns or not all(isinstance(r.value, ast.Constant) and r.value.value in (True, False)
                              and type(r.value.value) is bool for r in returns):
        return None
    if any(isinstance(n, (ast.Try, ast.With, ast.AsyncWith)) and own_returns([n]) for stmt in body
           for n in ast.walk(stmt)):
        return None
    written = [_renamed_self(copy.deepcopy(w), caller_self) for w in writes]
    module = ast.Module(body=copy.deepcopy(body), type_ignores=[])
    own = {id(r) for r in own_returns(module.body)}

    class Folded(ast.NodeTransformer):
        def visit_Return(self, node):
            if id(node) not in own:  # a nested def's return is its own
                return node
            bare = ast.copy_location(ast.Return(None), node)
            if node.value.value is True:
                return [ast.copy_location(copy.deepcopy(w), node) for w in written] + [bare]
            return bare

    return _tail_returns_dropped(Folded().visit(module).body)


def _writes_on_flag(call) -> list[ast.stmt] | None:
    """What the caller does when the function returns True: the body of `if f(...):`, or of the
    one `if FLAG:` that follows `FLAG = f(...)` (no `else` either way); None for another use."""
    result, statement = call.result, call.statement
    if result.how == "expression" and isinstance(statement, ast.If) and statement.test is call.node \
            and not statement.orelse:
        return statement.body
    if result.how != "assign" or len(result.target_nodes) != 1 or not isinstance(result.target_nodes[0], ast.Name) \
            or len(result.follow_up) != 1:
        return None
    flag, (test,) = result.target_nodes[0].id, result.follow_up
    if isinstance(test, ast.If) and not test.orelse and isinstance(test.test, ast.Name) and test.test.id == flag:
        return test.body
    return None


def _tail_returns_dropped(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` without the bare `return` it ends on, nor the one ending its last `if`'s branches."""
    body = list(body)
    if body and isinstance(body[-1], ast.Return) and body[-1].value is None:
        body.pop()
    if body and isinstance(body[-1], ast.If):
        last = copy.copy(body[-1])
        last.body = _tail_returns_dropped(last.body) or [ast.copy_location(ast.Pass(), last)]
        last.orelse = _tail_returns_dropped(last.orelse)
        body[-1] = last
    return body


def _returned_through(body: list[ast.stmt], call, caller_self: str, own_names: set[str]) -> list[ast.stmt]:
    """The body with each `return X` made `return E[X]` when the wrapper (the method the function
    replaced) returns `E[function(...)]` (`return "/".join(build_parts(...))`: the old method went
    on with what the function now returns; another method's call site keeps its own context). Left as it is when E evaluates a call before the function runs (the order would
    differ) or reads a name the function binds too (the substitution would capture it)."""
    outer = call.statement.value
    path = _path_to(outer, call.node)
    if path is None or any(isinstance(n, (ast.Call, ast.Await, ast.NamedExpr, ast.Yield, ast.YieldFrom))
                           for before in _evaluated_before(path) for n in ast.walk(before)):
        return body
    if loaded_names(_substituted(outer, call.node, ast.Constant(None))) & own_names:
        return body

    def through(value: ast.expr | None) -> ast.expr:
        return _renamed_self(_substituted(outer, call.node, value or ast.Constant(None)), caller_self)

    out = []
    for stmt in body:
        stmt = copy.deepcopy(stmt)
        for node in own_returns([stmt]):
            node.value = ast.copy_location(through(node.value), node.value or node)
        out.append(stmt)
    if not (out and isinstance(out[-1], ast.Return)):  # falling off the end returns None
        out.append(ast.copy_location(ast.Return(through(None)), call.statement))
    return out


def _path_to(root: ast.AST, target: ast.AST) -> list[ast.AST] | None:
    """The nodes from `root` down to `target` (both included), or None."""
    if root is target:
        return [root]
    for child in ast.iter_child_nodes(root):
        found = _path_to(child, target)
        if found is not None:
            return [root, *found]
    return None


def _evaluated_before(path: list[ast.AST]) -> list[ast.AST]:
    """The subtrees evaluated before the path's last node: at each step down, the siblings that
    come before the child taken (fields in their evaluation order)."""
    out = []
    for parent, child in zip(path, path[1:]):
        for sibling in ast.iter_child_nodes(parent):
            if sibling is child:
                break
            out.append(sibling)
    return out


def _substituted(expr: ast.expr, old: ast.AST, new: ast.expr) -> ast.expr:
    """A copy of `expr` with its node `old` (by identity) replaced by a copy of `new`."""
    memo: dict = {}
    out = copy.deepcopy(expr, memo)
    target = memo[id(old)]
    for parent in ast.walk(out):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, copy.deepcopy(new))
            elif isinstance(value, list):
                value[:] = [copy.deepcopy(new) if v is target else v for v in value]
    return out


def _early_returns_bare(stmt: ast.stmt, final: str) -> ast.stmt:
    """A copy of `stmt` with each earlier `return` of what the final one returns (`final`, its
    `ast.dump`) made a bare `return`: the caller assigns those locals as it assigns the final
    one's, so in the old method's terms it returns having written them (how the codemod turns a
    method's early `return` around)."""
    stmt = copy.deepcopy(stmt)
    for node in own_returns([stmt]):
        if node.value is not None and ast.dump(node.value) == final:
            node.value = None
    return stmt



def caller_note(uses: list[ast.stmt]) -> str:
    """What the caller does with a result it keeps in a local, on one line."""
    if not uses:
        return "the caller discards it"
    return "the caller applies it: " + "; ".join(" ".join(ast.unparse(s).split()) for s in uses)


def _params(args: ast.arguments) -> list[ast.arg]:
    return args.posonlyargs + args.args + args.kwonlyargs


def _defaults(args: ast.arguments, text: str) -> dict[str, str | None]:
    positional = args.posonlyargs + args.args
    out = {a.arg: None for a in _params(args)}
    for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        out[a.arg] = source_segment(text, d)
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out[a.arg] = source_segment(text, d) if d is not None else None
    return out


def _caller_self(ext: Extraction) -> str:
    holder = ext.wrapper or next((f for f in ext.class_node.body if isinstance(f, ast.FunctionDef)
                                  and ext.call and f.name == ext.call.method), None)
    return holder.args.args[0].arg if holder is not None and holder.args.args else "self"


def _renamed_self(expr: ast.expr, caller_self: str) -> ast.expr:
    expr = copy.deepcopy(expr)
    for n in ast.walk(expr):
        if isinstance(n, ast.Name) and n.id == caller_self:
            n.id = "self"
    return expr


def _inline_preamble(call, caller_self: str) -> dict[str, ast.expr]:
    """keyword -> expression passed, with the caller's locals bound once before the call by a plain
    `name = value` replaced by their value (`spec_algorithm = getattr(self, ...)`)."""
    single = {}
    for stmt in call.preamble:
        for name in stored_names(stmt):
            single[name] = None if name in single else stmt
    inline = {name: stmt.value for name, stmt in single.items() if isinstance(stmt, ast.Assign)
              and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)}
    out = {}
    for key, value in call.keyword_nodes.items():
        value = _Substitute(inline, {}, None).visit(copy.deepcopy(value)) if inline else value
        out[key] = _renamed_self(value, caller_self)
    return out


def _returned_locals(body: list[ast.stmt], count: int) -> list[str] | None:
    """The locals a final `return a` / `return a, b` returns, when it returns `count` plain names."""
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    values = last.value.elts if isinstance(last.value, ast.Tuple) and count > 1 else [last.value]
    if len(values) != count or not all(isinstance(v, ast.Name) for v in values):
        return None
    return [v.id for v in values]


def _normalised(body, rel, loads, results=None, logic: Logic | None = None) -> list[ast.stmt]:
    """Copies of `body` with the map applied and relative imports made absolute."""
    out = []
    for stmt in copy.deepcopy(body):
        stmt = _LocalAnnotationDropped().visit(_Substitute(loads, results or {}, logic).visit(stmt))
        for n in ast.walk(stmt):
            if isinstance(n, ast.ImportFrom) and n.level:
                n.module, n.level = file_absolute_module(n, rel), 0
        out.append(stmt)
    return out


class _LocalAnnotationDropped(ast.NodeTransformer):
    """`x: T = v` -> `x = v` for a plain name: in a function the annotation of a local is never
    evaluated nor kept (PEP 526), so the two run alike. A class body keeps its annotations."""

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if isinstance(node.target, ast.Name) and node.value is not None:
            return ast.copy_location(ast.Assign([node.target], node.value), node)
        return node


class _Substitute(ast.NodeTransformer):
    """Parameters read -> the expression passed; returned locals -> the caller's target."""

    def __init__(self, loads: dict[str, ast.expr], results: dict[str, ast.expr], logic: Logic | None):
        self.loads, self.results, self.logic = loads, results, logic

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.results:
            new = copy.deepcopy(self.results[node.id])
            new.ctx = node.ctx
        elif isinstance(node.ctx, ast.Load) and node.id in self.loads:
            new = copy.deepcopy(self.loads[node.id])
        else:
            return node
        ast.copy_location(new, node)
        if self.logic is not None:
            self.logic.roots.add(id(new))
            self.logic.marks.update({id(n): node.id for n in ast.walk(new)})
        return new

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self.generic_visit(node)
        node.simple = int(isinstance(node.target, ast.Name))
        return node
