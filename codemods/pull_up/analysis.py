"""Whether a pull-up keeps behaviour, read off BASE, its subclasses and every use of BASE in the
checkout; every problem is a `Location` (the pipeline refuses them all at once).

**Members (step 1).** Each member asked for is a method every direct subclass of BASE defines,
once, as the same code (`ast` equal: formatting and comments aside) reading the same module
names. It goes into BASE (replacing BASE's own definition, if any) and leaves the subclasses.
Behaviour is kept when, for every subclass T of BASE in the checkout, looking the member up on T
(and following `super()` from where it was found) reaches the same code as before
(`lookups`): a class between a direct subclass and BASE in T's method resolution order that
defines it (the mixin's copy would now win), a class of the family overriding it and calling
`super().m`, a diamond bringing two direct subclasses into one order, are each seen there.
BASE itself is never instantiated in the checkout (`uses`), so no instance of BASE gains the
member; `BASE.m`, `super(X, ...).m` and BASE used as a value (it could be instantiated
elsewhere) are refused. In the moved code, `super().X` must find what it found
(`super_reads`), `__class__` and names Python mangles (`__x`) are refused, and each module
name it reads means in BASE's module what it meant in the subclasses' (`reads`), or is an
import carried there.

**The tail of `__init__` (step 2).** Every class of the family defining `__init__` calls
`super().__init__(...)` once, as a statement of its body's top level; the statements each direct
subclass runs right after it, alike in all of them (the common prefix; a statement further on
counts when every statement before it commutes with it, `commutes`), are appended to BASE's
`__init__` and leave the subclasses. BASE's `__init__` is then the one place they run, right
where they ran, when BASE's `__init__` reaches its end on every path that returns normally (no
`return` in it), no class between a direct subclass and BASE in any order defines `__init__`, no
order holds two direct subclasses, and BASE is never built itself nor its `__init__` called by
name.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

import libcst as cst

from codemods.core.errors import Location
from codemods.pull_up.family import EMPTY_OUTSIDE, Cls, Family, body_bindings
from codemods.pull_up.models import Source
from codemods.pull_up.names import Meaning, import_line, meaning
from pysource import names as pynames
from pysource.checkout import Checkout

COPY = "<the pulled-up copy>"
PURE_CALLS = {"time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.perf_counter_ns",
              "time.monotonic_ns"}


# ---------------------------------------------------------------------------------------------
# shared


def functions(cls: ast.ClassDef, name: str) -> list[ast.stmt]:
    """The statements of a class body binding `name`."""
    return body_bindings(cls).get(name, [])


def own_def(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    """The class's one top-level `def name`, or None (also when it binds the name otherwise)."""
    found = functions(cls, name)
    if len(found) == 1 and isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)) and found[0] in cls.body:
        return found[0]
    return None


def key(node: ast.AST) -> str:
    """The code of a node modulo formatting and comments."""
    return ast.dump(node, include_attributes=False)


def walk_own(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a statement or function body, nested function, lambda and class bodies left out."""
    todo = list(ast.iter_child_nodes(node)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def class_bound(node: ast.AST) -> list[tuple[int, str]]:
    """(line, why) for what reads the class it is written in: `__class__`, names Python mangles,
    `super(...)` with arguments, `super` not called as `super().X`."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == "__class__":
            out.append((n.lineno, "reads __class__ (the class it is written in)"))
        name = n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name) else None
        if name and name.startswith("__") and not name.endswith("__"):
            out.append((n.lineno, f"uses {name}, which Python mangles with the name of the class it is written in"))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and (n.args or n.keywords):
            out.append((n.lineno, f"calls {ast.unparse(n)}: explicit arguments name one class"))
    return out


def super_attributes(node: ast.AST) -> tuple[list[tuple[int, str]], list[int]]:
    """([(line, X)] for each `super().X`, [line] for each `super()` used otherwise)."""
    reads, others = [], []
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and not n.args \
                and not n.keywords:
            up = parents.get(id(n))
            if isinstance(up, ast.Attribute) and up.value is n:
                reads.append((n.lineno, up.attr))
            else:
                others.append(n.lineno)
    return reads, others


def is_lazy(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations"
                                                                                  for a in s.names)
               for s in tree.body)


def header_reads(fn: ast.FunctionDef, lazy: bool) -> set[str]:
    """The names a def's header reads where the class body runs: decorators, defaults and (not
    lazy) annotations."""
    parts: list[ast.AST] = [*fn.decorator_list, *fn.args.defaults, *(d for d in fn.args.kw_defaults if d)]
    if not lazy:
        a = fn.args
        parts += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                  if x is not None and x.annotation is not None]
        parts += [fn.returns] if fn.returns is not None else []
    return {n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class Reads:
    """Module names moved code reads, each checked to mean in BASE's module what it means in every
    module it comes from; imports BASE's module lacks are collected to be added."""

    def __init__(self, checkout: Checkout, base: Source, problems: list[Location]):
        self.checkout, self.base, self.problems = checkout, base, problems
        self.imports: dict[str, cst.SimpleStatementLine] = {}
        self.base_locals: set[str] = set()

    def check(self, names: Iterable[str], places: list[tuple[Source, int, str]]) -> None:
        """`names` read by the code at each place (its file, line, what it is)."""
        for name in sorted(set(names)):
            seen: dict[str, tuple[Source, int, str, Meaning]] = {}
            bad = False
            for src, line, what in places:
                m = meaning(self.checkout, src.tree, src.module, src.package, name)
                if m.dotted is None:
                    self.problems.append(Location(src.path, line, f"{what} reads {name}, which cannot be told the "
                                                                  f"same elsewhere: in {self._rel(src.path)}, {m.why}"))
                    bad = True
                    continue
                seen.setdefault(m.dotted, (src, line, what, m))
            if bad:
                continue
            if len(seen) > 1:
                (s1, l1, w1, m1), (s2, l2, w2, m2) = list(seen.values())[:2]
                self.problems.append(Location(s2.path, l2, f"{w2} reads {name} as {m2.dotted}, {w1} "
                                                           f"({self._rel(s1.path)}:{l1}) as {m1.dotted}: not the same "
                                                           f"code"))
                continue
            (src, line, what, m), = seen.values()
            if name in self.base_locals:
                self.problems.append(Location(src.path, line, f"{what} reads the module name {name}, which "
                                                              f"BASE.__init__ binds as a local or parameter"))
                continue
            here = meaning(self.checkout, self.base.tree, self.base.module, self.base.package, name)
            if here.dotted == m.dotted:
                continue
            if here.dotted is None and here.why == "nothing at module level binds it" and m.kind == "import":
                self.imports.setdefault(name, import_line(m.statement, name, src.package))
                continue
            if m.kind == "own" and here.dotted is None:
                self.problems.append(Location(src.path, line, f"{what} reads {name}, which {self._rel(src.path)} "
                                                              f"defines (line {m.line}): {self._rel(self.base.path)} "
                                                              f"does not have it (move it there first)"))
                continue
            where = f" (line {here.line})" if here.line else ""
            why = here.why if here.dotted is None else f"binds it to {here.dotted}"
            self.problems.append(Location(src.path, line, f"{what} reads {name} as {m.dotted}; "
                                                          f"{self._rel(self.base.path)}{where} {why}"))

    def _rel(self, path: Path) -> str:
        return self.checkout.relative(path)


# ---------------------------------------------------------------------------------------------
# the uses of BASE across the checkout


@dataclass(frozen=True)
class _Context:
    annotation: bool = False
    typing: bool = False  # inside a subscript (a type expression) or an isinstance/cast argument


def uses(checkout: Checkout, family: Family, attributes: set[str], problems: list[Location]) -> None:
    """BASE built (`BASE(...)`), used as a value it could be built from, or one of `attributes`
    (the members, `__init__`) read on it: each a problem. Subclassing, annotations, type
    expressions, isinstance/issubclass/cast and other attributes are fine."""
    name = family.base.name
    for path in checkout.select(lambda b: True, mentioning=name.encode()):
        path = Path(checkout.path(path))
        try:
            tree = checkout.parse(path)
        except (SyntaxError, ValueError, OSError):
            continue
        _Uses(name, attributes, path, problems).run(tree)
    # super(X, ...).attribute in the family's files
    pattern = re.compile(r"super\(\s*\w+\s*,[^)]*\)\s*\.\s*(\w+)")
    for path in sorted({c.path for c in (family.base, *family.subclasses)}):
        text = checkout.text(path)
        for m in pattern.finditer(text):
            if m.group(1) in attributes:
                problems.append(Location(path, text[:m.start()].count("\n") + 1,
                                         f"{m.group(0)} skips a class by name: it may now find what moves into "
                                         f"{name}, or miss what leaves a subclass"))


class _Uses:
    def __init__(self, name: str, attributes: set[str], path: Path, problems: list[Location]):
        self.name, self.attributes, self.path, self.problems = name, attributes, path, problems

    def run(self, tree: ast.Module) -> None:
        self.visit(tree, None, _Context())

    def visit(self, node: ast.AST, parent: Optional[ast.AST], ctx: _Context) -> None:
        if self._spells(node):
            self._use(node, parent, ctx)
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                self.visit(child, node, self._context(node, field, child, ctx))

    def _spells(self, node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == self.name and isinstance(node.ctx, ast.Load)) or \
            (isinstance(node, ast.Attribute) and node.attr == self.name and isinstance(node.ctx, ast.Load))

    @staticmethod
    def _context(node: ast.AST, field: str, child: ast.AST, ctx: _Context) -> _Context:
        """Annotations, class bases and type expressions (subscripts, isinstance/issubclass's class
        argument, cast's type, a TypeVar's bound) are no use of BASE as a value; what is inside
        them neither."""
        if ctx.annotation or ctx.typing:
            return ctx
        if field in ("annotation", "returns") or (isinstance(node, ast.ClassDef) and field == "bases"):
            return _Context(annotation=True)
        if isinstance(node, ast.Subscript) and field == "slice":
            return _Context(typing=True)
        if isinstance(node, ast.Call) and field == "args":
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            at = next(i for i, a in enumerate(node.args) if a is child)
            if (callee in ("isinstance", "issubclass") and at == 1) or (callee == "cast" and at == 0):
                return _Context(typing=True)
        if isinstance(node, ast.keyword) and node.arg == "bound":
            return _Context(typing=True)
        return ctx

    def _use(self, node: ast.AST, parent: Optional[ast.AST], ctx: _Context) -> None:
        if ctx.annotation or ctx.typing:
            return
        line = node.lineno
        if isinstance(parent, ast.Call) and parent.func is node:
            self.problems.append(Location(self.path, line, f"{self.name} is instantiated here: its instances would "
                                                           f"gain what is pulled up into it"))
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in self.attributes or parent.attr in ("__new__", "__call__"):
                self.problems.append(Location(self.path, line, f"{self.name}.{parent.attr} is read here: it would "
                                                               f"read what is pulled up into {self.name}"))
        else:
            self.problems.append(Location(self.path, line, f"{self.name} is used as a value here: it may be "
                                                           f"instantiated, or what is pulled up read on it, where the "
                                                           f"code cannot follow"))


# ---------------------------------------------------------------------------------------------
# step 1: members


@dataclass(frozen=True)
class MemberState:
    """Where a member asked for is: the direct subclasses defining it (their defs), those lacking
    it, BASE's own def."""

    name: str
    copies: dict  # qualname -> ast def
    lacking: tuple[Cls, ...]
    in_base: Optional[ast.stmt]

    @property
    def applied(self) -> bool:
        return not self.copies and self.in_base is not None

    @property
    def nowhere(self) -> bool:
        return not self.copies and self.in_base is None


def member_states(family: Family, members: Iterable[str]) -> list[MemberState]:
    out = []
    for m in members:
        copies, lacking = {}, []
        for c in family.direct:
            found = functions(c.node, m)
            if found:
                copies[c.qualname] = found
            else:
                lacking.append(c)
        in_base = functions(family.base.node, m)
        out.append(MemberState(m, copies, tuple(lacking), in_base[0] if in_base else None))
    return out


def analyse_members(family: Family, states: list[MemberState], sources: dict[Path, Source], base_src: Source,
                    checkout: Checkout, problems: list[Location]) -> tuple[tuple[str, ...], dict, tuple, list[str],
                                                                          dict[str, cst.SimpleStatementLine]]:
    """(members to pull, template per member, those replacing BASE's own, notes, imports)."""
    base = family.base
    todo = [s for s in states if not s.applied]
    pulled = tuple(s.name for s in todo)
    templates: dict[str, Cls] = {}
    replaces = []
    notes = [f"{s.name}: {base.name} holds it and no direct subclass defines it (pulled up before)"
             for s in states if s.applied]
    reads = Reads(checkout, base_src, problems)
    base_binds = body_bindings(base.node)
    direct = {c.qualname: c for c in family.direct}
    for s in todo:
        for c in s.lacking:
            was = _first_definer(family, family.mro(c.qualname) or [], s.name, after=c.qualname)
            problems.append(Location(c.path, c.node.lineno,
                                     f"{c.name} does not define {s.name}: after the pull-up it would inherit "
                                     f"{base.name}'s copy instead of {was}"))
        defs: list[tuple[Cls, ast.FunctionDef]] = []
        for q, found in s.copies.items():
            c = direct[q]
            fn = found[0]
            if len(found) > 1 or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn not in c.node.body:
                problems.append(Location(c.path, found[-1].lineno,
                                         f"{c.name} binds {s.name} {'more than once' if len(found) > 1 else 'otherwise than by a def of its body'}: "
                                         f"pull up a method defined once"))
                continue
            defs.append((c, fn))
        if not defs:
            continue
        first, fn0 = defs[0]
        templates[s.name] = first
        for c, fn in defs[1:]:
            if key(fn) != key(fn0):
                problems.append(Location(c.path, fn.lineno, f"{c.name}.{s.name} differs from {first.name}.{s.name} "
                                                            f"({checkout.relative(first.path)}:{fn0.lineno}):"
                                                            f" {_first_difference(fn0, fn)}"))
        if s.in_base is not None:
            if not isinstance(s.in_base, (ast.FunctionDef, ast.AsyncFunctionDef)) or s.in_base not in base.node.body \
                    or len(base_binds.get(s.name, [])) > 1:
                problems.append(Location(base.path, s.in_base.lineno, f"{base.name} binds {s.name} otherwise than by "
                                                                      f"one def: pull up into a class that does not"))
            else:
                replaces.append(s.name)
        # the code
        for c, fn in defs:
            for line, why in class_bound(fn):
                problems.append(Location(c.path, line, f"{c.name}.{s.name} {why}"))
            reads_, others = super_attributes(fn)
            for line in others:
                problems.append(Location(c.path, line, f"{c.name}.{s.name} uses super() otherwise than as "
                                                       f"super().X"))
            src = sources[c.path]
            head = header_reads(fn, is_lazy(src.tree))
            for name in sorted(head & set(body_bindings(c.node))):
                problems.append(Location(c.path, fn.lineno, f"{c.name}.{s.name}'s header reads {name}, which "
                                                            f"{c.name}'s body binds: {base.name}'s would not"))
            for name in sorted(head & set(base_binds) - {s.name}):
                problems.append(Location(c.path, fn.lineno, f"{c.name}.{s.name}'s header reads {name}, which "
                                                            f"{base.name}'s body binds: it would read that instead"))
        places = [(sources[c.path], fn.lineno, f"{c.name}.{s.name}") for c, fn in defs]
        reads.check(pynames.free_names(ast.unparse(fn0)) - {s.name}, places)
    # super().X in the copies, and the lookups of the members, on every subclass
    for s in todo:
        if s.name not in templates:
            continue
        fn0 = own_def(templates[s.name].node, s.name)
        if fn0 is None:
            continue
        calls_itself = any(x == s.name for _, x in super_attributes(fn0)[0])
        holders = set(s.copies)
        for line, attr in super_attributes(fn0)[0]:
            _check_super(family, set(pulled), attr, templates[s.name], s.name, line, holders, problems)
        _check_lookups(family, set(pulled), s.name, calls_itself, {c.qualname for c in s.lacking}, problems)
    if any(s.name in replaces for s in todo):
        notes += [f"{base.name}.{m} (line {functions(base.node, m)[0].lineno}) is replaced by the subclasses' copy: "
                  f"nothing reaches it" for m in replaces]
    for m in pulled:
        abstract = _abstract_above(family, m)
        if abstract:
            notes.append(f"{base.name} no longer leaves {m} abstract ({abstract} declares it): it was never built "
                         f"and is not now")
    return pulled, templates, tuple(replaces), notes, reads.imports


def _first_difference(a: ast.AST, b: ast.AST) -> str:
    la, lb = ast.unparse(a).splitlines(), ast.unparse(b).splitlines()
    for x, y in zip(la, lb):
        if x != y:
            return f"`{x.strip()}` / `{y.strip()}`"
    return "one is longer" if len(la) != len(lb) else "decorators or signature"


def _first_definer(family: Family, line: list[str], name: str, after: str) -> str:
    for q in line[line.index(after) + 1:] if after in line else line:
        d = family.defines(q, name)
        if d:
            return f"{q.rpartition('.')[2]}.{name}"
        if d is None:
            return f"whatever {q} gives (outside the checkout)"
    return "nothing (an AttributeError)"


def _defines(family: Family, q: str, name: str, pulled: set[str], after: bool) -> Optional[bool]:
    """Whether class `q` defines `name` before the pull-up or after it."""
    if after and name in pulled:
        if q == family.base.qualname:
            return True
        if q in {c.qualname for c in family.direct}:
            return False
    return family.defines(q, name)


def _code(family: Family, q: str, name: str, pulled: set[str], after: bool) -> str:
    if name in pulled and (q in {c.qualname for c in family.direct} or (after and q == family.base.qualname)):
        return COPY
    return q


def _chain(family: Family, line: list[str], name: str, pulled: set[str], after: bool, unknown: bool) -> list[str]:
    """The code each class of `line` defining `name` holds, in order (`unknown`: a class whose members
    the checkout does not show counts as defining it)."""
    out = []
    for q in line:
        d = _defines(family, q, name, pulled, after)
        if d or (d is None and unknown):
            out.append(_code(family, q, name, pulled, after))
    return out


def _check_lookups(family: Family, pulled: set[str], name: str, calls_itself: bool, lacking: set[str],
                   problems: list[Location]) -> None:
    """Looking `name` up on every subclass, and following super() from there, reaches the same code
    (a direct subclass lacking the member is refused on its own)."""
    for c in family.subclasses:
        if c.qualname in lacking:
            continue
        line = family.mro(c.qualname)
        if line is None:
            continue
        for unknown in (False, True):
            before = _chain(family, line, name, pulled, False, unknown)
            after = _chain(family, line, name, pulled, True, unknown)
            if not calls_itself:  # only the first copy is reached (and what comes before it)
                before = before[:before.index(COPY) + 1] if COPY in before else before
                after = after[:after.index(COPY) + 1] if COPY in after else after
            if before != after:
                def say(chain):
                    return " -> ".join(x if x == COPY else x.rpartition(".")[2] for x in chain) or "nothing"
                problems.append(Location(c.path, c.node.lineno,
                                         f"{c.name}.{name} would resolve otherwise: {say(before)} before, "
                                         f"{say(after)} after" + (" (counting classes outside the checkout, whose "
                                                                  "members are unknown)" if unknown else "")))
                break


def _check_super(family: Family, pulled: set[str], attr: str, owner: Cls, member: str, line: int,
                 holders: set[str], problems: list[Location]) -> None:
    """`super().attr` in a copy finds, from BASE after the pull-up, what it found from each direct
    subclass before, on every subclass holding one."""
    base = family.base.qualname
    for c in family.subclasses:
        mro = family.mro(c.qualname)
        if mro is None or base not in mro:
            continue
        for d in family.direct:
            if d.qualname not in mro or d.qualname not in holders:
                continue
            was = _next(family, mro, d.qualname, attr, pulled, False)
            now = _next(family, mro, base, attr, pulled, True)
            if was != now:
                problems.append(Location(owner.path, line, f"{owner.name}.{member}: super().{attr} would find "
                                                           f"{_say(now)} from {family.base.name} instead of "
                                                           f"{_say(was)} (on {c.name}, from {d.name})"))
                return


def _next(family: Family, mro: list[str], start: str, attr: str, pulled: set[str], after: bool) -> str:
    for q in mro[mro.index(start) + 1:]:
        d = _defines(family, q, attr, pulled, after)
        if d is None:
            return f"?{q}"
        if d:
            return _code(family, q, attr, pulled, after)
    return "<none>"


def _say(code: str) -> str:
    if code == COPY:
        return "the pulled-up copy"
    if code.startswith("?"):
        return f"whatever {code[1:]} gives (outside the checkout)"
    return "nothing" if code == "<none>" else code.rpartition(".")[2]


def _abstract_above(family: Family, name: str) -> Optional[str]:
    line = family.mro(family.base.qualname) or []
    for q in line[1:]:
        node = family.node(q) if not family.classes.outside(q) else None
        if node is None:
            continue
        fn = own_def(node, name)
        if fn is not None:
            if any(ast.unparse(d).endswith("abstractmethod") for d in fn.decorator_list):
                return q.rpartition(".")[2]
            return None
    return None


# ---------------------------------------------------------------------------------------------
# step 2: the tail of __init__


def cst_indices(init_cst: cst.FunctionDef, init_ast: ast.FunctionDef) -> list[Optional[int]]:
    """For each `ast` statement of __init__'s body, the index of its LibCST statement when it is alone
    on it (None: it shares a line with another, `a; b`)."""
    out: list[Optional[int]] = []
    for i, s in enumerate(init_cst.body.body):
        n = len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1
        out += [i] if n == 1 else [None] * n
    return out if len(out) == len(init_ast.body) else [None] * len(init_ast.body)


def super_init_at(fn: ast.FunctionDef) -> tuple[Optional[int], list[int]]:
    """(index in the body of the one top-level `super().__init__(...)` statement, lines of every call
    of super().__init__ or super(...).__init__ in it)."""
    lines = [n.lineno for n in walk_own(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "__init__" and isinstance(n.func.value, ast.Call)
             and isinstance(n.func.value.func, ast.Name) and n.func.value.func.id == "super"]
    tops = [i for i, s in enumerate(fn.body) if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "__init__"
            and isinstance(s.value.func.value, ast.Call) and isinstance(s.value.func.value.func, ast.Name)
            and s.value.func.value.func.id == "super" and not s.value.func.value.args]
    return (tops[0] if len(tops) == 1 and len(lines) == 1 else None), lines


def first_param(fn: ast.FunctionDef) -> Optional[str]:
    args = [*fn.args.posonlyargs, *fn.args.args]
    return args[0].arg if args else None


@dataclass(frozen=True)
class Store:
    """`self.X = v` (or `self.X: T = v`), v a constant or a call of a clock (`time.time()`): a plain
    store that reads nothing of the object and runs no code of it."""

    attr: str


def plain_store(stmt: ast.stmt, me: str, src: Source, checkout: Checkout) -> Optional[Store]:
    found = pynames.attribute_store(stmt, me)
    if found is None:
        return None
    attr, value = found
    if isinstance(value, ast.Constant):
        return Store(attr)
    if isinstance(value, ast.Call) and not value.args and not value.keywords \
            and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name):
        m = meaning(checkout, src.tree, src.module, src.package, value.func.value.id)
        if m.dotted is not None and f"{m.dotted}.{value.func.attr}" in PURE_CALLS:
            return Store(attr)
    return None


@dataclass
class SubInit:
    cls: Cls
    src: Source
    init: ast.FunctionDef
    at: int  # index of super().__init__(...) in its body
    rest: list[int]  # indices (ast) of the statements after it not yet taken
    indices: list[Optional[int]]  # ast index -> LibCST index


def common_tail(family: Family, subs: list[SubInit], checkout: Checkout) -> tuple[list[list[int]], list[str]]:
    """The statements every direct subclass runs right after super().__init__(...): per taken
    statement, the ast index in each of `subs` (in their order), and notes on reorderings."""
    taken: list[list[int]] = []
    notes: list[str] = []
    safe = _plain_attributes_safe(family)
    while True:
        choice = None
        for cand in subs[0].rest:
            wanted = key(subs[0].init.body[cand])
            positions = []
            for s in subs:
                pos = next((k for k, i in enumerate(s.rest) if key(s.init.body[i]) == wanted), None)
                if pos is None or not _moves_first(s, pos, safe, checkout):
                    break
                positions.append(pos)
            else:
                choice = positions
                break
        if choice is None:
            return taken, notes
        picked = []
        for s, pos in zip(subs, choice):
            i = s.rest.pop(pos)
            picked.append(i)
            if pos:
                notes.append(f"{s.cls.name}.__init__: `{ast.unparse(s.init.body[i])}` (line "
                             f"{s.init.body[i].lineno}) commutes with the {pos} statement(s) before it (plain "
                             f"stores of other attributes, reading nothing of the object)")
        taken.append(picked)


def _moves_first(s: SubInit, pos: int, safe: bool, checkout: Checkout) -> bool:
    if pos == 0:
        return True
    if not safe:
        return False
    me = first_param(s.init) or "self"
    mine = plain_store(s.init.body[s.rest[pos]], me, s.src, checkout)
    if mine is None:
        return False
    for i in s.rest[:pos]:
        other = plain_store(s.init.body[i], me, s.src, checkout)
        if other is None or other.attr == mine.attr:
            return False
    return True


def _plain_attributes_safe(family: Family) -> bool:
    """No class in any order of the family defines __setattr__ or descriptors in a way a store could
    run (a class attribute bound otherwise than to a constant), and no class from outside the
    checkout but `object`/`ABC`/`Generic` takes part."""
    for line in family.lines().values():
        for q in line:
            if q in EMPTY_OUTSIDE:
                continue
            if family.classes.outside(q):
                return False
            node = family.node(q)
            if node is None:
                return False
            for name, stmts in body_bindings(node).items():
                if name in ("__setattr__", "__getattribute__", "__slots__"):
                    return False
                for st in stmts:
                    if isinstance(st, (ast.Assign, ast.AnnAssign)) and not isinstance(st.value, ast.Constant):
                        return False
    return True


def check_tail_statement(stmt: ast.stmt, s: SubInit, base_me: str, reads: Reads,
                         problems: list[Location], bound_by_tail: set[str]) -> set[str]:
    """Problems of one statement of the tail in subclass `s`; the names it reads from the module."""
    c = s.cls
    where = f"{c.name}.__init__"
    for n in walk_own(stmt):
        what = None
        if isinstance(n, ast.Return):
            what = "returns"
        elif isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
            what = "yields or awaits"
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            what = f"declares {', '.join(n.names)} {type(n).__name__.lower()}"
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars") \
                and not n.args:
            what = f"reads {n.func.id}()"
        elif isinstance(n, (ast.Break, ast.Continue)) and stmt is not n:
            pass
        if what:
            problems.append(Location(c.path, n.lineno, f"{where}: this statement after super().__init__(...) {what}:"
                                                       f" in {reads.base.module}'s __init__ it would not do the same"))
    for line, why in class_bound(stmt):
        problems.append(Location(c.path, line, f"{where} {why}"))
    for line, attr in super_attributes(stmt)[0]:
        problems.append(Location(c.path, line, f"{where}: super().{attr} after super().__init__(...) would be "
                                               f"read from the base's __init__ (not pulled up)"))
    me = first_param(s.init) or "self"
    if me != base_me:
        problems.append(Location(c.path, s.init.lineno, f"{where} names its instance {me}, the base's __init__ "
                                                        f"{base_me}"))
    own = pynames.function_locals(s.init) - bound_by_tail
    read = pynames.outer_reads([stmt], [me]) | {n.id for n in walk_own(stmt) if isinstance(n, ast.Name)
                                                 and isinstance(n.ctx, ast.Load)}
    local = sorted((read & own) - {me})
    for name in local:
        problems.append(Location(c.path, stmt.lineno, f"{where}: this statement reads {name}, a local or parameter "
                                                      f"of {where}: the base's __init__ has its own"))
    return (pynames.outer_reads([stmt], [me]) - own - bound_by_tail) - {me}


def bound_by(stmts: list[ast.stmt]) -> set[str]:
    out = set()
    for s in stmts:
        for n in walk_own(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


def returns(fn: ast.FunctionDef) -> list[int]:
    return sorted(n.lineno for n in walk_own(fn) if isinstance(n, ast.Return))


def close(name: str, names: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, sorted(set(names)), n=2)
