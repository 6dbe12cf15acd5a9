"""Why a value the code does not type is no instance of a class: by structure, or by what is
assigned to it.

`x.m(...)` where nothing says what `x` is may be a call of `OWNER.m` or of another class's `m`.
Two kinds of evidence tell it is not `OWNER`'s, each kept with where it was read:
- **structure** (`Structure`): the same value is also used for an attribute that `OWNER`, its
  bases, its subclasses and theirs never define or assign (`family.Family`), and that no code
  sets on a value that may be one of them (`family.written_outside`): `self.tokenizer_manager`,
  also used for `.generate_request`, is no `ModelRunner`. "The same value": a local name bound
  once in its function (or a parameter never rebound) and its uses there; an attribute `X` of a
  class `C` (`self.X` in `C`, or `e.X` where the code types `e` as a `C`) and every `self.X.ATTR`
  in the methods of `C` and its bases. A use guarded by `hasattr`/`getattr(value, "ATTR")`,
  inside a `try` catching `AttributeError`, or in a scope that asks `isinstance`/`type` of the
  value, is no evidence;
- **assignment** (`Assigned`): every value the place is ever given is no instance: a local name's
  bindings in its function; an attribute's `self.X = v` in `C`, its bases and subclasses, `X = v`
  in their bodies (a dataclass default), what each construction `C(...)` passes for it, and no
  other code setting it (`written_outside`). Each value is decided the same way, in turn: by its
  type where the code says it (`Typed`: a `TpModelWorker`, None), by structure, by assignment,
  `a or b` / `x if c else y` by each part (`Branches`).
Anything else is undecided (None): the caller refuses as before.

Assumed: one place holds one kind of value (a value used for `.generate_request` somewhere is
used so everywhere); subclasses keep to what their class assigns; mocks and `SimpleNamespace`
are not followed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from pysource.receivers.assignments import Unpacked, Value, assignments
from pysource.receivers.constructions import construction_values
from pysource.receivers.family import Family, family, unrelated, written_outside
from pysource.receivers.file import File
from pysource.receivers.model import NONE, ClassObject, Instance, Types
from pysource.receivers.syntax import own_nodes
from pysource.receivers.writes import writes_of

MAX_DEPTH = 8
GUARDS = {"hasattr", "getattr"}
ASKS_TYPE = {"isinstance", "type"}
CATCHES = {"AttributeError", "Exception", "BaseException"}


@dataclass(frozen=True, slots=True)
class Typed:
    """The code says what the value is: `kinds`, none of them the class (`None` for None)."""

    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Structure:
    """The value is also used for `.attr` (at `path`:`line`), which the class never has."""

    path: Path
    line: int
    attr: str


@dataclass(frozen=True, slots=True)
class Given:
    """One value a place is given (at `path`:`line`, spelled `text`) and why it is no instance."""

    path: Path
    line: int
    text: str
    reason: "Reason"


@dataclass(frozen=True, slots=True)
class Assigned:
    """Every value `place` is ever given is no instance."""

    place: str
    values: tuple[Given, ...]


@dataclass(frozen=True, slots=True)
class Branches:
    """`a or b`, `x if c else y`, or an attribute of a value of several classes: each part is none."""

    parts: tuple[Given, ...]


Reason = Union[Typed, Structure, Assigned, Branches]


@dataclass(frozen=True, slots=True)
class Elimination:
    """The decision for one use: `receiver` (at `path`:`line`) is no instance of `owner`."""

    path: Path
    line: int
    receiver: str
    owner: str
    reason: Reason

    def describe(self, relative=lambda p: p) -> str:
        """`PATH:LINE `receiver` is not a OWNER: why`; `relative(path)` spells the evidence's files."""
        name = self.owner.rpartition(".")[2]
        return f"{self.path}:{self.line} `{self.receiver}` is not a {name}: {_said(self.reason, relative, name)}"


def _said(reason: Reason, relative, name: str, depth: int = 0) -> str:
    if isinstance(reason, Typed):
        return "it is " + " or ".join("None" if k == "None" else f"a {k.rpartition('.')[2]}" for k in reason.kinds)
    if isinstance(reason, Structure):
        return (f"it is also used for `.{reason.attr}` ({relative(reason.path)}:{reason.line}), which {name} and its "
                f"subclasses never have")
    if isinstance(reason, Assigned):
        head = f"{reason.place} is only ever assigned values that are not"
    else:
        head = "each part is not"
    if depth >= 2:
        return f"{head} ({len(getattr(reason, 'values', getattr(reason, 'parts', ())))} places)"
    parts = reason.values if isinstance(reason, Assigned) else reason.parts
    inner = "; ".join(f"{relative(g.path)}:{g.line} `{g.text}`: {_said(g.reason, relative, name, depth + 1)}"
                      for g in parts)
    return f"{head} [{inner}]"


class Eliminator:
    """Decisions against one class (`owner`, qualified) over a program, each place decided once."""

    def __init__(self, program, owner: str):
        self.program, self.owner = program, owner
        self._busy: set = set()

    @property
    def family(self) -> Family:
        return family(self.program, self.owner)  # computed at the first question, once per program

    def receiver(self, f: File, node: ast.expr) -> Optional[Elimination]:
        """Why the value of `node` (an expression of `f`, the receiver of a use) is no instance of
        the owner; None when that cannot be told."""
        reason = self.reason(f, node, 0)
        if reason is None:
            return None
        return Elimination(f.path, node.lineno, ast.unparse(node), self.owner, reason)

    def reason(self, f: File, node: ast.expr, depth: int) -> Optional[Reason]:
        if depth > MAX_DEPTH:
            return None
        types = self.program.type_of(f, node)
        if types is not None:
            return self._typed(types)
        if isinstance(node, ast.NamedExpr):
            return self.reason(f, node.value, depth + 1)
        if isinstance(node, (ast.BoolOp, ast.IfExp)):
            parts = node.values if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
            return self._each(f, parts, depth, Branches)
        if isinstance(node, ast.Name):
            return self._name(f, node, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(f, node, depth)
        return None

    def _typed(self, types: Types) -> Optional[Typed]:
        fam = self.family
        if not types or not unrelated(self.program, fam.classes, fam.mine, types):
            return None
        kinds = sorted({"None" if t == NONE else t.qualname if isinstance(t, (Instance, ClassObject))
                        else type(t).__name__.lower() for t in types})
        return Typed(tuple(kinds))

    def _each(self, f: File, parts: list, depth: int, make) -> Optional[Reason]:
        out = []
        for p in parts:
            r = self.reason(f, p, depth + 1)
            if r is None:
                return None
            out.append(Given(f.path, p.lineno, ast.unparse(p), r))
        return make(tuple(out))

    # a local name

    def _name(self, f: File, node: ast.Name, depth: int) -> Optional[Reason]:
        fn, _ = f.enclosing(node)
        if fn is None or isinstance(fn, ast.Lambda):
            return None
        name = node.id
        a = fn.args
        param = name in {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        if a.vararg is not None and a.vararg.arg == name or a.kwarg is not None and a.kwarg.arg == name:
            return None
        bound = assignments(fn.body, name)
        if not param and bound is None:
            return None  # a global, or a name of an enclosing function
        if (param and bound is None) or (not param and len(bound) == 1):
            uses = [n for n in own_nodes(fn) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id == name]
            found = self._structure([(f, fn, uses, lambda n: isinstance(n, ast.Name) and n.id == name)])
            if found is not None:
                return found
        if param or not all(isinstance(b, (Value, Unpacked)) for b in bound):
            return None
        values = []
        for b in sorted(bound, key=lambda b: (b.value.lineno, b.value.col_offset)):
            value = b.value if isinstance(b, Value) else _item(b.value, b.index)
            if value is None:
                return None
            values.append(value)
        return self._each(f, values, depth, lambda parts: Assigned(f"`{name}`", parts))

    # an attribute of a value of known classes

    def _attribute(self, f: File, node: ast.Attribute, depth: int) -> Optional[Reason]:
        holder = self.program.type_of(f, node.value)
        if not holder:
            return None
        if not all(isinstance(t, Instance) and not t.qualname.startswith("builtins.")
                   and not self.program.outside(t.qualname) for t in holder if t != NONE):
            return None
        classes = [t.qualname for t in holder if t != NONE]
        if not classes:
            return None
        out = []
        for q in sorted(classes):
            r = self.place(q, node.attr, depth)
            if r is None:
                return None
            out.append(Given(f.path, node.lineno, f"{q.rpartition('.')[2]}.{node.attr}", r))
        return out[0].reason if len(out) == 1 else Branches(tuple(out))

    def place(self, qualname: str, attr: str, depth: int = 0) -> Optional[Reason]:
        """Why attribute `attr` of an instance of class `qualname` is never an instance of the owner."""
        key = (self.owner, qualname, attr)
        memo = self.program.memo.places
        if key in memo:
            return memo[key]
        if key in self._busy:
            return None  # it depends on itself: not decided
        self._busy.add(key)
        try:
            result = self._place(qualname, attr, depth)
        finally:
            self._busy.discard(key)
        if not self._busy:
            memo[key] = result
        return result

    def _place(self, qualname: str, attr: str, depth: int) -> Optional[Reason]:
        program = self.program
        line = program.lineage(qualname)
        if line is None:
            return None
        scopes = []
        for q in line:  # the methods that run on an instance of the class: its own and its bases'
            got = program.class_def(q)
            if got is None:
                continue
            f, cls = got
            by_method: dict[int, tuple] = {}
            for n in f.nodes_spelling([attr]):
                if not (isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name)):
                    continue
                fn = _method_of(f, n, cls)
                if fn is None or not fn.args.args or fn.args.args[0].arg != n.value.id:
                    continue
                me = n.value.id
                entry = by_method.setdefault(id(fn), (f, fn, [], lambda x, me=me: _is_attr_of(x, me, attr)))
                up = f.parent(n)
                if isinstance(up, ast.Attribute) and up.value is n:
                    entry[2].append(up)
            scopes += sorted(by_method.values(), key=lambda scope: scope[1].lineno)
        if any(_asks_type(fn, is_value) for _, fn, _, is_value in scopes):
            return self._assigned(qualname, attr, depth)  # the code tells kinds of it apart
        found = self._structure(scopes)
        return found if found is not None else self._assigned(qualname, attr, depth)

    def _assigned(self, qualname: str, attr: str, depth: int) -> Optional[Reason]:
        program = self.program
        mine = {qualname, *program.subclasses(qualname)}
        classes: set[str] = set()
        for q in mine:
            line = program.lineage(q)
            if line is None:
                return None
            classes.update(line)
        values: list[tuple[File, ast.expr]] = []
        for q in sorted(classes):
            if program.outside(q):
                continue
            got = program.class_def(q)
            if got is None:
                return None
            f, cls = got
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.name == attr:
                    return None  # a method or a property: not a value given
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                    values.append((f, stmt.value))
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                    if stmt.value is not None:
                        values.append((f, stmt.value))
                    if len(mine) > 1:
                        return None  # a field: the subclasses' constructions pass it too
                    passed = construction_values(program, f, cls, attr)
                    if passed is None:
                        return None
                    values += passed
            for w in writes_of(program, f, cls, attr):
                n = w.statement
                if isinstance(n, ast.Delete):
                    continue
                if isinstance(n, ast.Assign) and w.target in n.targets or isinstance(n, ast.AnnAssign):
                    if n.value is None:
                        continue
                    got_values = self._from_parameter(f, cls, w.method, n.value)
                    if got_values is None:
                        return None
                    values += got_values
                    continue
                item = next((_item(n.value, t.elts.index(w.target)) for t in getattr(n, "targets", ())
                             if isinstance(t, (ast.Tuple, ast.List)) and w.target in t.elts), None)
                if item is None:
                    return None
                values.append((f, item))
        if not values or written_outside(program, self.family, attr, frozenset(mine)) is not None:
            return None
        out = []
        for f, v in sorted(values, key=lambda fv: (str(fv[0].path), fv[1].lineno, fv[1].col_offset)):
            r = self.reason(f, v, depth + 1)
            if r is None:
                return None
            out.append(Given(f.path, v.lineno, ast.unparse(v), r))
        return Assigned(f"`{qualname.rpartition('.')[2]}.{attr}`", tuple(out))

    def _from_parameter(self, f: File, cls: ast.ClassDef, fn: ast.AST, value: ast.expr
                        ) -> Optional[list[tuple[File, ast.expr]]]:
        """`self.X = p` in `__init__`, `p` a parameter whose type the code does not say: what each
        construction passes for it, and its default; any other value: itself."""
        if not (isinstance(value, ast.Name) and getattr(fn, "name", "") == "__init__"):
            return [(f, value)]
        a = fn.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
        if not any(p.arg == value.id for p in params) or assignments(fn.body, value.id) is not None:
            return [(f, value)]
        if self.program.type_of(f, value) is not None:
            return [(f, value)]
        if self.program.subclasses(self.program.qualified(f, cls)):
            return None  # the subclasses' constructions pass it too
        passed = construction_values(self.program, f, cls, value.id, init=fn)
        if passed is None:
            return None
        positional = [*a.posonlyargs, *a.args]
        defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):], a.defaults))
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        if value.id in defaults:
            passed = [*passed, (f, defaults[value.id])]
        return passed

    # structure

    def _structure(self, scopes) -> Optional[Structure]:
        """The first use, among `scopes` ([(file, function, [value.ATTR nodes], is_value)]), of an
        attribute the owner's family never has and no code sets on one of its instances;
        `is_value(node)`: whether a node spells the value there."""
        fam = self.family
        if fam.open is not None:
            return None
        for f, fn, uses, is_value in scopes:
            if _asks_type(fn, is_value):
                continue
            guarded = _guarded_names(fn, is_value)
            for n in sorted(uses, key=lambda n: (n.lineno, n.col_offset)):
                if not isinstance(n.ctx, ast.Load) or fam.may_have(n.attr) or n.attr in guarded \
                        or _catches_attribute_error(f, n, fn):
                    continue
                if written_outside(self.program, fam, n.attr) is not None:
                    continue
                return Structure(f.path, n.lineno, n.attr)
        return None


def _method_of(f: File, node: ast.AST, cls: ast.ClassDef) -> Optional[ast.AST]:
    """The method of `cls` holding `node` (through nested functions and lambdas)."""
    fn, owner = f.enclosing(node)
    while fn is not None and owner is None:
        fn, owner = f.enclosing(fn)
    return fn if owner is cls and not isinstance(fn, ast.Lambda) else None


def _is_attr_of(node: ast.AST, me: str, attr: str) -> bool:
    """`node` spells `ME.attr`."""
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == me


def _item(value: ast.expr, index: int) -> Optional[ast.expr]:
    """Item `index` of a tuple or list display without `*`."""
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts) \
            and 0 <= index < len(value.elts):
        return value.elts[index]
    return None


def _asks_type(fn: ast.AST, is_value) -> bool:
    """`fn` asks `isinstance(value, ...)` or `type(value)`: the value may be of several kinds there."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ASKS_TYPE and n.args
               and is_value(n.args[0]) for n in ast.walk(fn))


def _guarded_names(fn: ast.AST, is_value) -> set[str]:
    """The attributes `fn` asks the value for by name (`hasattr(value, "a")`, `getattr(value, "a", d)`)."""
    return {n.args[1].value for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in GUARDS and len(n.args) > 1 and is_value(n.args[0])
            and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)}


def _catches_attribute_error(f: File, node: ast.AST, fn: ast.AST) -> bool:
    """`node` is in the body of a `try` (within `fn`) one of whose handlers catches AttributeError
    (or a broader class, or anything)."""
    child, n = node, f.parent(node)
    while n is not None and n is not fn:
        if isinstance(n, (ast.Try, getattr(ast, "TryStar", ast.Try))) and child in n.body:
            for h in n.handlers:
                caught = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                if h.type is None or any(isinstance(c, (ast.Name, ast.Attribute)) and
                                         (c.id if isinstance(c, ast.Name) else c.attr) in CATCHES for c in caught):
                    return True
        child, n = n, f.parent(n)
    return False
