"""What an extraction of a superclass moves, and whether it can, read off CLASS before any step.

The members asked for (`--methods`: methods and properties, every definition of each name) move
into the new base, which takes CLASS's bases; CLASS then inherits from the base alone. Python
puts the base right after CLASS in the method resolution order of CLASS and of every subclass
(C3: nothing else names the base), so each moved member is found where it was found before,
and the code left in CLASS behaves as before but for `super().X` where the base now defines X:
that is rewritten `super(BASE, self).X`, which resolves as the old `super()` did.

The state: the attributes the base's `__init__` sets (`--state`, or inferred: those the moved
members reference that CLASS's `__init__` sets). The statements of `__init__` from the first
that sets one of them to the last (the span) become the base's `__init__`, in their order;
CLASS's `__init__` keeps what precedes and what follows, with `super().__init__(...)` in
place of the span, so every effect of construction happens in the same order. When nothing
precedes or follows, CLASS's `__init__` goes (the base's takes its parameters unchanged).
Refused: a span that returns or yields, declares `global`/`nonlocal`, reads `locals()`, binds a
local name that the statements after it read, or changes `*args`/`**kwargs` (the base gets a
copy); moved code using `__class__` or a private name (`self.__x`, mangled per class); a
decorated class, a class statement with keywords but `metaclass=ABCMeta`, an ancestor
defining `__init_subclass__` (each would run once more for the base); `super(CLASS, ...).X` of
a moved X anywhere in the checkout (it would now find the moved X).

Stubs: a method of CLASS that stays and that the moved code calls on `self` gets a stub
(`def X(...): ...`) in the base, as a hook the base declares, unless an ancestor in the tree
defines X (the stub would hide it from `super()`); CLASS overrides every stub.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import libcst as cst

from codemods.core.errors import Location
from pysource import parsing

ABC_METAS = {"ABCMeta", "abc.ABCMeta"}
PROPERTY = re.compile(r"(property|cached_property|functools\.cached_property|\w+\.setter|\w+\.deleter)\Z")


@dataclass(frozen=True)
class InitSplit:
    """CLASS's `__init__` cut in three: statements (indices into its LibCST body) kept before the
    call of the base's `__init__`, moved into it, kept after it."""

    prefix: tuple[int, ...]
    span: tuple[int, ...]
    suffix: tuple[int, ...]
    params: tuple[str, ...]  # CLASS.__init__'s parameters the span reads (all of them when `whole`)
    extra: tuple[str, ...]  # locals of the prefix the span reads: keyword-only parameters of the base's
    whole: bool  # nothing stays: the base's __init__ is CLASS's, which goes
    also_set: tuple[str, ...]  # attributes the span sets that are not state
    line: int  # where the span starts


@dataclass(frozen=True)
class Design:
    moved: tuple[str, ...]  # member names, in CLASS's order
    state: tuple[str, ...]
    init: Optional[InitSplit]
    stubs: tuple[str, ...]  # CLASS's methods the base declares as hooks
    base_names: frozenset[str]  # what the base defines (moved, stubs, __init__)
    notes: tuple[str, ...]


class Facts(ast.NodeVisitor):
    """What statements do, nested function and class bodies left out for stores, returns and
    `global`; loads are counted everywhere (a closure reads the enclosing locals)."""

    def __init__(self, self_name: str):
        self.self_name = self_name
        self.loads: set[str] = set()
        self.stores: set[str] = set()
        self.self_writes: set[str] = set()
        self.self_refs: set[str] = set()
        self.escapes: list[tuple[int, str]] = []  # (line, what): return, yield, global, locals()
        self.declared: set[str] = set()  # global and nonlocal names
        self.depth = 0

    def visit_FunctionDef(self, node):
        if self.depth == 0:
            self.stores.add(node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node):
        if self.depth == 0:
            self.stores.add(node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def _comprehension(self, node):
        self.depth += 1  # its targets are its own
        self.generic_visit(node)
        self.depth -= 1

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.id)
        elif self.depth == 0:
            self.stores.add(node.id)

    def visit_NamedExpr(self, node):
        self.stores.add(node.target.id)
        self.generic_visit(node)

    def visit_alias(self, node):
        if self.depth == 0:
            self.stores.add((node.asname or node.name).split(".")[0])

    def visit_ExceptHandler(self, node):
        if node.name and self.depth == 0:
            self.stores.add(node.name)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.self_name:
            self.self_refs.add(node.attr)
            if not isinstance(node.ctx, ast.Load) and self.depth == 0:
                self.self_writes.add(node.attr)
        self.generic_visit(node)

    def visit_Return(self, node):
        if self.depth == 0:
            self.escapes.append((node.lineno, "returns"))
        self.generic_visit(node)

    def visit_Yield(self, node):
        if self.depth == 0:
            self.escapes.append((node.lineno, "yields"))
        self.generic_visit(node)

    visit_YieldFrom = visit_Yield

    def visit_Global(self, node):
        if self.depth == 0:
            self.declared |= set(node.names)
        self.escapes.append((node.lineno, f"declares {type(node).__name__.lower()} {', '.join(node.names)}"))

    visit_Nonlocal = visit_Global

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in ("locals", "vars") and not node.args:
            self.escapes.append((node.lineno, f"reads {node.func.id}()"))
        self.generic_visit(node)


def facts(stmts: Sequence[ast.stmt], self_name: str) -> Facts:
    f = Facts(self_name)
    for s in stmts:
        f.visit(s)
    return f


def first_param(fn: ast.FunctionDef) -> Optional[str]:
    args = [*fn.args.posonlyargs, *fn.args.args]
    return args[0].arg if args else None


def is_property(fn: ast.FunctionDef) -> bool:
    return any(PROPERTY.match(ast.unparse(d)) for d in fn.decorator_list)


def private_names(node: ast.AST) -> list[tuple[int, str]]:
    """Names Python mangles per class (`__x`, not `__x__`), and `__class__`, in `node`."""
    out = []
    for n in ast.walk(node):
        name = n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name) else None
        if name == "__class__" and isinstance(n, ast.Name):
            out.append((n.lineno, "reads __class__ (the class it is defined in)"))
        elif name and name.startswith("__") and not name.endswith("__"):
            out.append((n.lineno, f"uses {name}, which Python mangles with the name of the class it is written in"))
    return out


def init_statements(module: cst.Module, init_cst: cst.FunctionDef, init_ast: ast.FunctionDef
                    ) -> list[list[ast.stmt]]:
    """The `ast` statements of each LibCST statement of `__init__`'s body (several for `a; b`)."""
    out, at = [], 0
    for s in init_cst.body.body:
        n = len(parsing.parse(textwrap.dedent(module.code_for_node(s).strip("\n") + "\n")).body) \
            if isinstance(s, cst.SimpleStatementLine) else 1
        out.append(init_ast.body[at:at + n])
        at += n
    return out


def split_init(source: Path, module: cst.Module, init_cst: cst.FunctionDef, init_ast: ast.FunctionDef,
               state: Sequence[str], problems: list[Location], everything: bool = False) -> Optional[InitSplit]:
    """Where CLASS's `__init__` is cut (see the module docstring); None with `problems` filled
    when it cannot be."""
    self_name = first_param(init_ast) or "self"
    groups = init_statements(module, init_cst, init_ast)
    per = [facts(g, self_name) for g in groups]
    setting = [i for i, f in enumerate(per) if f.self_writes & set(state)]
    unset = [a for a in state if not any(a in f.self_writes for f in per)]
    for a in unset:
        problems.append(Location(source, init_ast.lineno, f"--state {a}: __init__ does not set self.{a} in a "
                                                          f"statement of its own body"))
    if not setting or unset:
        return None
    lo, hi = (0, len(groups) - 1) if everything else (setting[0], setting[-1])
    span = tuple(range(lo, hi + 1))
    prefix = tuple(range(lo))
    suffix = tuple(range(hi + 1, len(groups)))
    before = facts([s for i in prefix for s in groups[i]], self_name)
    inside = facts([s for i in span for s in groups[i]], self_name)
    after = facts([s for i in suffix for s in groups[i]], self_name)
    a = init_ast.args
    params = [p.arg for p in (*a.posonlyargs, *a.args)][1:] + ([a.vararg.arg] if a.vararg else []) \
        + [p.arg for p in a.kwonlyargs] + ([a.kwarg.arg] if a.kwarg else [])
    line = groups[lo][0].lineno
    ok = True
    for at, what in inside.escapes:
        problems.append(Location(source, at, f"this statement of __init__, among those that set the state, {what}: "
                                             f"in the base's __init__ it would not do the same"))
        ok = False
    for name in sorted(inside.stores & (before.declared | after.declared)):
        at = next(n.lineno for i in span for s in groups[i] for n in ast.walk(s)
                  if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
        problems.append(Location(source, at, f"this statement sets {name}, which __init__ declares global or "
                                             f"nonlocal elsewhere: in the base's __init__ it would be a local"))
        ok = False
    flowing = (inside.stores & after.loads) - {self_name}
    for name in sorted(flowing):
        use = next(n.lineno for i in suffix for s in groups[i] for n in ast.walk(s)
                   if isinstance(n, ast.Name) and n.id == name)
        problems.append(Location(source, use, f"__init__ reads {name!r} after the statements that set the state, "
                                              f"which bind it (from line {line}): it would be a local of the base's "
                                              f"__init__; compute it before them or set it as an attribute"))
        ok = False
    for star in (a.vararg, a.kwarg):
        if star is None or star.arg not in inside.loads or star.arg not in (after.loads | before.loads):
            continue
        changed = [n.lineno for i in span for s in groups[i] for n in ast.walk(s)
                   if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == star.arg
                   and n.attr not in ("get", "keys", "values", "items", "copy", "index", "count")
                   or isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == star.arg
                   and not isinstance(n.ctx, ast.Load)]
        for at in changed:
            problems.append(Location(source, at, f"the state's statements may change {star.arg}, which the rest of "
                                                 f"__init__ reads: the base's __init__ gets a copy of it"))
            ok = False
    if not ok:
        return None
    docstring = prefix == (0,) and isinstance(groups[0][0], ast.Expr) and isinstance(
        getattr(groups[0][0], "value", None), ast.Constant) and isinstance(groups[0][0].value.value, str)
    whole = (not prefix or docstring) and not suffix
    if whole and docstring:
        span, prefix = (0, *span), ()
    extra = tuple(sorted((inside.loads & before.stores) - set(params) - {self_name}))
    used = tuple(p for p in params if p in inside.loads)
    also = tuple(sorted(inside.self_writes - set(state)))
    return InitSplit(prefix, span, suffix, tuple(params) if whole else used, extra, whole, also, line)


def infer_state(moved_refs: Optional[set[str]], init_ast: Optional[ast.FunctionDef], module: cst.Module,
                init_cst: Optional[cst.FunctionDef]) -> tuple[str, ...]:
    """The attributes the moved members reference (None: any) that a statement of `__init__`'s
    body sets, in the order `__init__` first sets them."""
    if init_ast is None:
        return ()
    self_name = first_param(init_ast) or "self"
    out: list[str] = []
    for g in init_statements(module, init_cst, init_ast):
        writes = facts(g, self_name).self_writes
        for a in sorted(writes if moved_refs is None else writes & moved_refs):
            if a not in out:
                out.append(a)
    return tuple(out)
