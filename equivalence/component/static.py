"""The moved code checked statically: each moved method's body against its origin, in the owner's
terms, and the module globals it reads value for value (`engine.judge.module_globals`).

A version keeps a method's logic in the component (its method) or in the owner (the method itself,
unless it only delegates: `return self.ATTR.m(...)`). A component body is put in the owner's terms
by the builder's call: a field reads what the owner passes for it (`self.tp_rank`), a getter's
call `self.get_model()` is its lambda's body (`self.model`), a callback is the owner's method, the
owner passed whole is `self`; the moved state reached through the component (`self.ATTR.X`, step
1) is `self.X`. The two bodies are then compared statement by statement (`ast.dump` without
positions, docstrings as Python shows them); every difference is a residual for the reviewer. A
changed module global is a divergence, as for `--method`.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import difflib
import inspect

from equivalence.engine.judge.module_globals import compare_constants
from equivalence.engine.judge.static_check import Residual, StaticReport
from equivalence.engine.judge.substitution import MapEntry
from pysource.names import global_reads


class _Terms(ast.NodeTransformer):
    """A component body (or a step-1 owner body) in the owner's terms."""

    def __init__(self, me: str, passed: dict, attr: str, state: set[str], in_component: bool):
        self.me, self.passed, self.attr, self.state, self.in_component = me, passed, attr, state, in_component

    def _self(self, node) -> bool:
        return isinstance(node, ast.Name) and node.id == self.me

    def visit_Call(self, node):
        f = node.func
        if self.in_component and isinstance(f, ast.Attribute) and self._self(f.value) and not node.args \
                and not node.keywords and isinstance(self.passed.get(f.attr), ast.Lambda):
            return _in_self(copy.deepcopy(self.passed[f.attr].body), self.me)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Attribute) and self._self(node.value.value) and node.value.attr == self.attr \
                and node.attr in self.state:
            return ast.copy_location(ast.Attribute(ast.Name(self.me, ast.Load()), node.attr, node.ctx), node)
        if self.in_component and self._self(node.value) and node.attr in self.passed:
            value = self.passed[node.attr]
            if not isinstance(value, ast.Lambda):
                return _in_self(copy.deepcopy(value), self.me)
        self.generic_visit(node)
        return node


def _in_self(node: ast.AST, me: str) -> ast.AST:
    """An expression of the builder (`self.X`), spelled with the method's `self` name."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == "self":
            n.id = me
    return node


def _delegates(fn: ast.FunctionDef, attr: str) -> bool:
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)):
        return False
    call = body[0].value
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == fn.name \
        and isinstance(call.func.value, ast.Attribute) and call.func.value.attr == attr


def logic(v, name: str):
    """(file, the function holding the logic of `name`, its body in the owner's terms) of a version."""
    shape = v.loaded.shape
    comp = shape.component_methods
    own = shape.methods
    if name not in own and name not in comp and getattr(v, "names", {}).get(name) in own:
        name = v.names[name]  # renamed by the move: this version's name
    if name in own and not (name in comp and _delegates(own[name], shape.attr)):
        fn, rel, in_component = own[name], shape.rel_of(name), False
    elif name in comp:
        fn, rel, in_component = comp[name], shape.component_rel, True
    else:
        return None
    me = fn.args.args[0].arg if fn.args.args else "self"
    passed = shape.passed if in_component else {}
    terms = _Terms(me, passed, shape.attr, set(shape.state) | set(v.state), in_component)
    body = [terms.visit(copy.deepcopy(s)) for s in fn.body]
    if in_component:  # `COMPONENT.m` of a moved method (a static one called by its class) was `OWNER.m`
        body = [_ClassRefs(shape.component.name, shape.owner.name, set(comp)).visit(s) for s in body]
    renamed = {old: new for new, old in getattr(v, "names", {}).items()}
    if renamed:  # a call of a method the move renamed reads under its new name
        body = [_Renamed(me, renamed).visit(s) for s in body]
    if passed and shape.owner_field_name(passed):
        owner = shape.owner_field_name(passed)
        body = [_Owner(me, owner).visit(s) for s in body]
    return rel, fn, body


class _ClassRefs(ast.NodeTransformer):
    """`COMPONENT.m` -> `OWNER.m` for the component's methods named through its class."""

    def __init__(self, component: str, owner: str, methods: set[str]):
        self.component, self.owner, self.methods = component, owner, methods

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.component and node.attr in self.methods:
            node.value = ast.copy_location(ast.Name(self.owner, node.value.ctx), node.value)
        return node


def class_refs_only(fn: ast.FunctionDef, component: str, methods) -> bool:
    """Whether `fn` names the component class only to reach its methods (`COMPONENT.m`): those
    reads are the owner's class in the owner's terms, not a module global that changed."""
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == component]
    parents = {id(n.value): n for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
    return bool(uses) and all(id(u) in parents and parents[id(u)].attr in methods for u in uses)


class _Renamed(ast.NodeTransformer):
    """`self.OLD` -> `self.NEW` for the methods the move renamed."""

    def __init__(self, me: str, renamed: dict[str, str]):
        self.me, self.renamed = me, renamed

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.me and node.attr in self.renamed:
            node.attr = self.renamed[node.attr]
        return node


class _Owner(ast.NodeTransformer):
    """`self.OWNER` (the owner passed whole) is `self`."""

    def __init__(self, me: str, owner: str):
        self.me, self.owner = me, owner

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.me and node.attr == self.owner:
            return ast.copy_location(ast.Name(self.me, node.ctx), node)
        return node


def _dump(stmt: ast.stmt) -> str:
    return ast.dump(stmt, annotate_fields=False, include_attributes=False)


def _clean(body: list[ast.stmt]) -> list[ast.stmt]:
    out = []
    for s in body:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            s = ast.copy_location(ast.Expr(ast.Constant(inspect.cleandoc(s.value.value))), s)
        out.append(s)
    return out


def static_check(pair) -> StaticReport:
    before, after = pair.before, pair.after
    residuals, constants, wheres = [], [], ([], [])
    seen_globals: set[tuple[str, str, str]] = set()
    names = sorted({m for m in pair.methods} | {m for m in after.loaded.shape.component_methods}
                   | {m for m in before.loaded.shape.component_methods})
    readers: dict[str, list[str]] = {}  # a module global -> the moved methods reading it
    for name in names:
        b, a = logic(before, name), logic(after, name)
        if b is None or a is None:
            if (b is None) != (a is None):
                residuals.append(Residual("removed" if a is None else "added", b[1].lineno if b else None,
                                          a[1].lineno if a else None, f"def {name}" if b else "",
                                          f"def {name}" if a else "", "", "the method is in one version only",
                                          name))
            continue
        (brel, bfn, _), (arel, afn, _) = b, a
        wheres[0].append(f"{brel}:{bfn.lineno} {name}")
        wheres[1].append(f"{arel}:{afn.lineno} {name}")
        residuals += [dataclasses.replace(r, method=name) for r in _residuals(b, a, before, after)]
        reads = _global_reads(afn, arel, pair)
        for n in reads:
            readers.setdefault(n, []).append(name)
        todo = {n for n in reads if (brel, arel, n) not in seen_globals}
        seen_globals |= {(brel, arel, n) for n in todo}
        if todo:
            constants += compare_constants(before.loaded.shape.tree, brel, after.loaded.shape.tree, arel, todo,
                                           _local_imports(bfn, brel), _local_imports(afn, arel),
                                           new_code_runs=pair.subject.new_code_runs)
    entries = []
    shape = after.loaded.shape
    for name, value in shape.passed.items():
        kind = "getter" if isinstance(value, ast.Lambda) else "owner" if isinstance(value, ast.Name) and \
            value.id == "self" else "field"
        expression = ast.unparse(value.body if isinstance(value, ast.Lambda) else value)
        entries.append(MapEntry(name, kind, expression))
    for name in shape.state:
        entries.append(MapEntry(name, "moved state", f"self.{name}"))
    constants = [c if c.equal else dataclasses.replace(c, read_by=tuple(readers.get(c.name, ())))
                 for c in _unique(constants)]
    return StaticReport("; ".join(wheres[0]) or before.label, "; ".join(wheres[1]) or after.label, entries, residuals,
                        constants)


def _residuals(b, a, before, after) -> list[Residual]:
    """One moved method's bodies compared, signature first."""
    (brel, bfn, bbody), (arel, afn, abody) = b, a
    out = []
    if _dump(ast.arguments(**{k: getattr(bfn.args, k) for k in bfn.args._fields})) != _dump(
            ast.arguments(**{k: getattr(afn.args, k) for k in afn.args._fields})):
        out.append(Residual("changed", bfn.lineno, afn.lineno, f"def {bfn.name}({ast.unparse(bfn.args)})",
                            f"def {afn.name}({ast.unparse(afn.args)})", "", "the signature differs"))
    _align(_clean(bbody), _clean(abody), before, after, brel, arel, out)
    return out


def _global_reads(afn, arel: str, pair) -> set[str]:
    """The module globals a moved method's code reads: not a function an owner method moved along
    into (it runs for real, its move checked apart), nor the component's class naming its own
    methods (the owner's class in the owner's terms)."""
    reads = global_reads(afn) - {"self"} - getattr(pair, "along_functions", set())
    shape = pair.after.loaded.shape
    if shape.component is not None and arel == shape.component_rel and \
            class_refs_only(afn, shape.component.name, shape.component_methods):
        reads -= {shape.component.name}
    return reads


def _unique(constants):
    out, seen = [], set()
    for c in constants:
        if c.name not in seen:
            seen.add(c.name)
            out.append(c)
    return out


def _local_imports(fn: ast.FunctionDef, rel: str) -> dict:
    from pysource.modules import import_bindings

    out = {}
    for n in ast.walk(fn):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for b in import_bindings(n, rel):
                out[b.name] = n
    return out


def _align(before: list[ast.stmt], after: list[ast.stmt], bv, av, brel: str, arel: str, out: list) -> None:
    b_dumps, a_dumps = [_dump(s) for s in before], [_dump(s) for s in after]
    matcher = difflib.SequenceMatcher(a=b_dumps, b=a_dumps, autojunk=False)
    btext, atext = bv.loaded.shape.tree.text(brel), av.loaded.shape.tree.text(arel)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            b = before[i1 + k] if i1 + k < i2 else None
            a = after[j1 + k] if j1 + k < j2 else None
            if b is not None and a is not None and type(b) is type(a) and _blocks(b) and _blocks(a) \
                    and _dump(_header(b)) == _dump(_header(a)):
                for bb, ab in zip(_blocks(b), _blocks(a)):
                    _align(bb, ab, bv, av, brel, arel, out)
                continue
            kind = "changed" if a is not None and b is not None else "removed" if a is None else "added"
            out.append(Residual(kind, getattr(b, "lineno", None), getattr(a, "lineno", None),
                                _source(btext, b), _source(atext, a), ast.unparse(a) if a is not None else ""))


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    blocks = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if getattr(stmt, f, None)]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    return blocks


def _header(stmt: ast.stmt) -> ast.stmt:
    head = copy.copy(stmt)
    for f in ("body", "orelse", "finalbody", "handlers"):
        if hasattr(head, f):
            setattr(head, f, [])
    return head


def _source(text: str, stmt) -> str:
    if stmt is None:
        return ""
    from pysource.modules import source_segment

    return source_segment(text, stmt) or ast.unparse(stmt)
