"""Load one version for the component check: the owner's module and (once it exists) the
component's module executed from the tree's files, real torch, the rest of the package stubbed
(`engine.load`), then what a pair needs of it (`prepare`): the owner methods that run for real,
the statements of `__init__` that build the component (or set up the state it takes over), the
functions branch coverage is measured on, and the inputs their code reads (`engine.load.inputs`).
"""

from __future__ import annotations

import ast
import copy
import types
from dataclasses import dataclass, field
from pathlib import Path

from equivalence.component.shape import Shape, ShapeError, find
from equivalence.engine.load.errors import LoadError
from equivalence.engine.load.faithful import HELPERS
from equivalence.engine.load.inputs import Inputs, derive
from equivalence.engine.load.stubs import StubScope
from equivalence.engine.load.version import Unit, from_file, import_modules
from pysource.names import function_locals, outer_reads

CONSTRUCT = "__equivalence_construct__"


@dataclass
class Loaded:
    label: str
    root: Path
    shape: Shape
    modules: dict[str, types.ModuleType]
    cls: type  # the owner class
    component: type | None  # the component class, once the version has one
    stub_scope: StubScope
    overrides: dict[str, str] = field(default_factory=dict)


@dataclass
class Prepared:
    """A loaded version as one pair checks it."""

    loaded: Loaded
    real: set[str]  # owner methods that run for real (the moved ones it still has, delegations, the builder)
    on_owner: set[str]  # the sequence methods called on the owner (else on the component)
    construct: types.FunctionType | None  # (self, *construct_args): the building statements of __init__
    construct_args: list[str]
    units: list[Unit]
    inputs: Inputs
    state: list[str]  # the moved state (owner attributes before, component fields after)
    names: dict[str, str] = field(default_factory=dict)  # a sequence method -> its name here, when renamed

    @property
    def label(self) -> str:
        return self.loaded.label


def load(root: Path, label: str, owner_rel: str, class_name: str, attr: str,
         overrides: dict[str, str] | None = None, bases: tuple[str, ...] = ()) -> Loaded:
    """`bases`: the owner's base classes whose methods count as its own (`shape.find`): their
    modules run too."""
    overrides = dict(overrides or {})
    try:
        shape = find(root, owner_rel, class_name, attr, overrides, bases)
    except ShapeError as e:
        raise LoadError(str(e)) from None
    rels = [r for r in dict.fromkeys([shape.component_rel, *shape.re_exports, *shape.base_rels, owner_rel]) if r]
    # as a method's version is imported: a stub's literal retried, a bare call rejecting a stub left out
    scope, modules = import_modules(shape.tree, rels, label, owner_rel.split("/")[0])
    scope.armed = True
    cls = modules[owner_rel].__dict__.get(class_name)
    if not isinstance(cls, type) or cls.__module__ != modules[owner_rel].__name__:
        raise LoadError(f"{shape.where(owner_rel, shape.owner)}: {class_name} is not the class defined in the file")
    component = None
    if shape.component is not None:
        component = modules[shape.component_rel].__dict__.get(shape.component.name)
        if not isinstance(component, type):
            raise LoadError(f"{shape.where(shape.component_rel, shape.component)}: {shape.component.name} is not a "
                            f"class once its module is run ({component!r})")
    return Loaded(label, Path(root), shape, modules, cls, component, scope, overrides)


def _function(value):
    if isinstance(value, property):  # its getter runs on each read
        return value.fget
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value


def prepare(v: Loaded, moved: set[str], state: set[str], real_inputs: dict | None = None,
            names: dict[str, str] | None = None) -> Prepared:
    """`moved`: every method of the component's logic in the pair (the sequence methods and their
    helpers); `state`: the moved state's names; `names`: a method's name in this version where
    the move renamed it (the later name -> this version's)."""
    shape = v.shape
    owner_methods = shape.methods
    names = dict(names or {})
    real = {names.get(m, m) for m in moved if names.get(m, m) in owner_methods}
    if shape.builder is not None and shape.builder.name != "__init__":  # `__init__` itself: its statements run below
        real.add(shape.builder.name)
    if shape.made_by is not None:  # the owner's method that builds the component and returns it
        real.add(shape.made_by)
    units: list[Unit] = []
    rel = shape.owner_rel
    for name in sorted(real):
        fn = from_file(_function(next((k.__dict__[name] for k in v.cls.__mro__ if name in k.__dict__), None)),
                        shape.tree.path(shape.rel_of(name)), name)  # (inherited; under a wrapping decorator)
        if not isinstance(fn, types.FunctionType):
            raise LoadError(f"{shape.where(shape.rel_of(name), owner_methods[name])}: {shape.owner.name}.{name} is "
                            f"not the function from the file ({fn!r})")
        role = "builder" if shape.builder is not None and name == shape.builder.name else \
            "delegation" if shape.component is not None and name in shape.component_methods else "method"
        units.append(Unit(f"{role} {name}", fn.__code__, owner_methods[name], shape.rel_of(name)))
    if v.component is not None:
        for name, node in shape.component_methods.items():
            fn = from_file(_function(v.component.__dict__.get(name)), shape.tree.path(shape.component_rel), name)
            if not isinstance(fn, types.FunctionType):
                raise LoadError(f"{shape.where(shape.component_rel, node)}: {shape.component.name}.{name} is not the "
                                f"function from the file ({fn!r})")
            units.append(Unit(f"component {name}", fn.__code__, node, shape.component_rel))
    statements = shape.construction(state)
    extra: list[str] = []
    if shape.component is not None and not any(
            isinstance(n, ast.Attribute) and n.attr == shape.builder.name for s in statements for n in ast.walk(s)) \
            and shape.builder.name != "__init__" and shape.builder.name not in names.values():
        # (a builder a sequence calls, the moved method it became, builds it then)
        # `__init__` does not build it: another method, that other code calls, does (`alloc_pool()`
        # calling `init_ATTR()`): the owner is built, then the builder called, as that code would
        init = shape.init()
        call, extra = _builder_call(shape.builder, init.args.args[0].arg if init is not None and init.args.args else "self")
        statements = [*statements, call]
    construct, args = _compile_construction(v, statements, extra) if statements else (None, [])
    local = [(u.rel, u.node, set()) for u in units]
    own_init = shape.own_init
    if own_init is not None:  # a hand-written `__init__` runs when the component is built: what it reads is an input
        local.append((shape.component_rel, own_init, set()))
    if statements:
        local.append((rel, ast.Module(body=statements, type_ignores=[]), set(args) | {"self"}))
    trees = {r: shape.tree.parse(r) for r in v.modules}
    try:
        inputs = derive(local, trees, rel.split("/")[0], set(HELPERS), shape.tree.canonical, real_inputs)
    except SyntaxError as e:
        raise LoadError(f"{e.filename}:{e.lineno}: {e.msg}") from None
    on_owner = {m for m in moved if names.get(m, m) in owner_methods}
    return Prepared(v, real, on_owner, construct, args, units, inputs, sorted(state), names)


def _builder_call(builder: ast.FunctionDef, me: str) -> tuple[ast.stmt, list[str]]:
    """`self.BUILDER(p=p, ...)` at the builder's line, each parameter without a default passed a
    local of its name (a world input, as `__init__`'s locals are), and those names."""
    a = builder.args
    positional = [p.arg for p in [*a.posonlyargs, *a.args]][1:]
    positional = positional[:len(positional) - len(a.defaults)]
    keywords = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    passed = ", ".join([*positional, *(f"{k}={k}" for k in keywords)])
    call = ast.parse(f"{me}.{builder.name}({passed})").body[0]
    for n in ast.walk(call):
        ast.copy_location(n, builder)
        n.end_lineno, n.end_col_offset = builder.lineno, builder.col_offset
    return call, [*positional, *keywords]


def _compile_construction(v: Loaded, statements: list[ast.stmt], extra: list[str] = ()
                          ) -> tuple[types.FunctionType, list[str]]:
    """`(self, *locals)` running `statements` (of `__init__`, line numbers kept); `extra`: locals
    they read besides `__init__`'s (the parameters a call of the builder passes)."""
    init = v.shape.init()
    body = copy.deepcopy(statements)
    me = init.args.args[0].arg if init is not None and init.args.args else "self"
    args = sorted(((outer_reads(body) & (function_locals(init) if init is not None else set())) | set(extra)) - {me})
    fn = ast.FunctionDef(name=CONSTRUCT, args=ast.arguments(
        posonlyargs=[], args=[ast.arg(a) for a in [me, *args]], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body, decorator_list=[], returns=None, type_params=[])
    ast.copy_location(fn, body[0])
    fn.end_lineno, fn.end_col_offset = body[-1].end_lineno, body[-1].end_col_offset
    for a in fn.args.args:
        ast.copy_location(a, body[0])
    namespace: dict = {}
    rel = v.shape.owner_rel
    exec(compile(ast.Module(body=[fn], type_ignores=[]), v.shape.tree.path(rel), "exec"),
         v.modules[rel].__dict__, namespace)
    return namespace[CONSTRUCT], args
