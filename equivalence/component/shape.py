"""Where one version of a tree keeps a component's logic, found by `ast` alone (nothing run).

A version holds the owner class (`--component CLASS.ATTR`), and, once the component exists, the
method of the owner that builds it (`self.ATTR = COMPONENT(...)`, `init_ATTR` by convention) and
the component class, found through the owner module's imports. What the component holds:
- fields the builder passes (`tp_rank=self.tp_rank`, `get_model=lambda: self.model`);
- moved state: the fields it does not pass (defaults, `field(init=False)`);
- methods: the moved ones (the owner may still have them: the original, or delegations).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pysource.checkout import Checkout
from pysource.imports import FileNames
from pysource.init_only import calls_on_self, run_only_in_init
from pysource.modules import module_name
from pysource.names import own_returns


class ShapeError(Exception):
    """The version does not hold the owner or its component as expected (file:line: why)."""


@dataclass
class Shape:
    tree: Checkout
    owner_rel: str
    owner: ast.ClassDef
    attr: str
    builder: Optional[ast.FunctionDef] = None  # the owner method assigning self.ATTR = COMPONENT(...)
    build_call: Optional[ast.Call] = None
    component_rel: Optional[str] = None
    re_exports: tuple[str, ...] = ()  # the modules the owner imports the component class through (run too)
    component: Optional[ast.ClassDef] = None
    passed: dict[str, ast.expr] = field(default_factory=dict)  # field -> what the builder passes
    # methods the owner inherits from the bases it was asked to look into (a mixin the moves left):
    # name -> (its file, its def); the owner's own of the same name win
    inherited: dict[str, tuple[str, ast.FunctionDef]] = field(default_factory=dict)
    factory: Optional[str] = None  # built by a class or static method of the component: `C.from_model(...)`
    made_by: Optional[str] = None  # built by a method of the owner returning it: `self._init_builder(...)`
    taken: Optional[ast.expr] = None  # `self.ATTR = EXPR`, no call: taken from another object, not built here

    @property
    def methods(self) -> dict[str, ast.FunctionDef]:
        own = {s.name: s for s in self.owner.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return {**{name: node for name, (_, node) in self.inherited.items() if name not in own}, **own}

    def rel_of(self, name: str) -> str:
        """The file holding the owner's method `name` (a base's, when inherited)."""
        own = any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in self.owner.body)
        return self.inherited[name][0] if not own and name in self.inherited else self.owner_rel

    @property
    def base_rels(self) -> tuple[str, ...]:
        """The files of the bases whose methods count as the owner's (run for real)."""
        return tuple(dict.fromkeys(rel for rel, _ in self.inherited.values()))

    @property
    def own_init(self) -> Optional[ast.FunctionDef]:
        """The component's hand-written `__init__`, if any."""
        return _own_init(self.component) if self.component is not None else None

    @property
    def component_methods(self) -> dict[str, ast.FunctionDef]:
        if self.component is None:
            return {}
        return {s.name: s for s in self.component.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name != "__init__"}  # a hand-written `__init__` sets the fields up: no moved method

    @property
    def fields(self) -> list[str]:
        if self.component is None:
            return []
        declared = [s.target.id for s in self.component.body if isinstance(s, ast.AnnAssign)
                    and isinstance(s.target, ast.Name)]
        return list(dict.fromkeys(declared + list(_init_fields(self.component))))

    @property
    def state(self) -> list[str]:
        """Fields the builder does not pass: the component's own state."""
        return [f for f in self.fields if f not in self.passed]

    @staticmethod
    def owner_field_name(passed: dict) -> Optional[str]:
        """The field the builder passes the owner itself for (`--pass-owner`), if any."""
        return next((k for k, v in passed.items() if isinstance(v, ast.Name) and v.id == "self"), None)

    def where(self, rel: str, node: ast.AST) -> str:
        return f"{self.tree.path(rel)}:{getattr(node, 'lineno', 1)}"

    def init(self) -> Optional[ast.FunctionDef]:
        return self.methods.get("__init__")

    def construction(self, state: set[str]) -> list[ast.stmt]:
        """The top-level statements of `__init__` that build the component or set up state it
        holds: an assignment of `self.X` for X in `state` (or of `self.ATTR`), a call of the builder."""
        init = self.init()
        if init is None:
            return []
        me = init.args.args[0].arg if init.args.args else "self"
        builder = self.builder.name if self.builder is not None else None
        out = []
        for stmt in init.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me and (
                        (n.attr in state or n.attr == self.attr) and isinstance(n.ctx, ast.Store)
                        or n.attr == builder and builder is not None):
                    out.append(stmt)
                    break
        return out


def find(root: Path, owner_rel: str, class_name: str, attr: str, overrides: Optional[dict] = None,
         bases: tuple[str, ...] = ()) -> Shape:
    """`bases`: names of the owner's base classes whose methods count as the owner's (a mixin
    whose methods moved into the component: the owner before runs them as it inherits them)."""
    tree = Checkout.at(root, overrides)
    if not tree.exists(owner_rel):
        raise ShapeError(f"{tree.path(owner_rel)}: no such file")
    module = _parse(tree, owner_rel)
    found = [s for s in module.body if isinstance(s, ast.ClassDef) and s.name == class_name]
    if not found:
        raise ShapeError(f"{tree.path(owner_rel)}: no class {class_name} at module level")
    if len(found) > 1:
        raise ShapeError(f"{tree.path(owner_rel)}:{found[1].lineno}: class {class_name} is defined {len(found)} times")
    shape = Shape(tree, owner_rel, found[0], attr)
    package = owner_rel.split("/")[0]
    module_dotted = module_name(owner_rel)
    names = FileNames(module, module_dotted.rpartition(".")[0] if not owner_rel.endswith("__init__.py")
                      else module_dotted, module_dotted)
    shape.inherited = _inherited(tree, names, found[0], bases, package)
    for fn in shape.methods.values():
        me = fn.args.args[0].arg if fn.args.args else None
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) \
                    and n.targets[0].attr == attr and isinstance(n.targets[0].value, ast.Name) \
                    and n.targets[0].value.id == me and isinstance(n.value, ast.Call):
                if shape.builder is not None:
                    raise ShapeError(f"{shape.where(owner_rel, n)}: {class_name} builds self.{attr} twice "
                                     f"({shape.builder.name} and {fn.name})")
                shape.builder, shape.build_call = fn, n.value
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) \
                    and n.targets[0].attr == attr and isinstance(n.targets[0].value, ast.Name) \
                    and n.targets[0].value.id == me and shape.taken is None:
                shape.taken = n.value
    if shape.builder is None:
        return shape
    qualified = names.qualify(shape.build_call.func)
    made = _made_by_owner_method(shape, names, package)
    if made is not None:
        shape.made_by, qualified = made
    if qualified is None or not qualified.startswith(package + "."):
        raise ShapeError(f"{shape.where(owner_rel, shape.build_call)}: self.{attr} is built by "
                         f"{ast.unparse(shape.build_call.func)}(...), which is no class of this tree that the "
                         f"module imports")
    defined = tree.canonical(qualified)  # a class a package's __init__ re-exports: where it is defined
    if defined != qualified:
        shape.re_exports = tuple(r for r in [tree.module_file(qualified.rpartition(".")[0])] if r)
    comp_module, _, comp_name = defined.rpartition(".")
    rel = tree.module_file(comp_module)
    if rel is None and isinstance(shape.build_call.func, ast.Attribute):  # a factory: `Component.from_model(...)`
        found_class = _factory_class(tree, qualified.rpartition(".")[0], comp_name)
        if found_class is not None:
            shape.factory = comp_name
            comp_module, comp_name, rel = found_class
    if rel is None:
        raise ShapeError(f"{shape.where(owner_rel, shape.build_call)}: {comp_module} (of {qualified}) is no module "
                         f"of this tree")
    comp_tree = _parse(tree, rel)
    classes = [s for s in comp_tree.body if isinstance(s, ast.ClassDef) and s.name == comp_name]
    if len(classes) != 1:
        raise ShapeError(f"{tree.path(rel)}: {comp_name} is defined {len(classes)} times at module level there")
    shape.component_rel, shape.component = rel, classes[0]
    if shape.factory is not None or shape.made_by is not None:
        return shape  # what the factory makes of its arguments is its own code: no field passed as is
    own_init = _own_init(shape.component)
    if (shape.build_call.args and own_init is None) or any(k.arg is None for k in shape.build_call.keywords):
        raise ShapeError(f"{shape.where(owner_rel, shape.build_call)}: the component is built with positional or "
                         f"unpacked arguments: which field each one fills is not read here")
    shape.passed = {k.arg: k.value for k in shape.build_call.keywords}
    if own_init is not None:  # a hand-written `__init__`: a field set from a parameter holds what is passed for it
        params = [a.arg for a in own_init.args.args[1:]]
        given = {**dict(zip(params, shape.build_call.args)), **shape.passed}
        shape.passed = {f: given[v] for f, v in _init_fields(shape.component).items() if v in given}
    return shape


def _made_by_owner_method(shape: Shape, names: FileNames, package: str) -> Optional[tuple[str, str]]:
    """(the method, the class it builds) when the builder's call is `self.M(...)`, a method of the
    owner whose every `return` is None or a call of one same class of this tree (`return
    Builder(...)`): the component is that class, built by running the method."""
    func = shape.build_call.func
    me = shape.builder.args.args[0].arg if shape.builder.args.args else "self"
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == me):
        return None
    method = shape.methods.get(func.attr)
    if method is None:
        return None
    made = set()
    for node in own_returns(method.body):
        if node.value is None or isinstance(node.value, ast.Constant) and node.value.value is None:
            continue
        qualified = names.qualify(node.value.func) if isinstance(node.value, ast.Call) else None
        if qualified is None or not qualified.startswith(package + "."):
            return None
        made.add(qualified)
    return (func.attr, made.pop()) if len(made) == 1 else None



def _factory_class(tree: Checkout, qualified_class: str, method: str) -> Optional[tuple[str, str, str]]:
    """(module, class, file) of the class `qualified_class` names when it defines `method` as a
    class or static method (a factory), else None."""
    module, _, name = tree.canonical(qualified_class).rpartition(".")
    rel = tree.module_file(module) if module else None
    if rel is None:
        return None
    classes = [c for c in _parse(tree, rel).body if isinstance(c, ast.ClassDef) and c.name == name]
    if len(classes) != 1 or not any(
            isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == method and any(
                isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in f.decorator_list)
            for f in classes[0].body):
        return None
    return module, name, rel


def _inherited(tree: Checkout, names: FileNames, owner: ast.ClassDef, bases: tuple[str, ...], package: str
               ) -> dict[str, tuple[str, ast.FunctionDef]]:
    """The methods of the owner's bases named in `bases`, each found where the owner's module
    imports it from (or defines it), the first base in the order of the class statement winning."""
    out: dict[str, tuple[str, ast.FunctionDef]] = {}
    for base in owner.bases:
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        qualified = names.qualify(base) if name in bases else None
        if qualified is None or not qualified.startswith(package + "."):
            continue
        module, _, cls_name = tree.canonical(qualified).rpartition(".")
        rel = tree.module_file(module)
        if rel is None:
            continue
        classes = [s for s in _parse(tree, rel).body if isinstance(s, ast.ClassDef) and s.name == cls_name]
        if len(classes) != 1:
            continue
        for s in classes[0].body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(s.name, (rel, s))
    return out


def _own_init(component: ast.ClassDef) -> Optional[ast.FunctionDef]:
    return next((s for s in component.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)


def _init_fields(component: ast.ClassDef) -> dict[str, Optional[str]]:
    """`self.F = ...` at the top level of a hand-written `__init__`: F -> the parameter it is set
    from (`self.F = P`), else None (state of the component's own: `self.stats = {}`)."""
    init = _own_init(component)
    if init is None or not init.args.args:
        return {}
    me, params = init.args.args[0].arg, {a.arg for a in init.args.args[1:]}
    out: dict[str, Optional[str]] = {}
    for stmt in init.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) \
            else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                value = stmt.value
                out.setdefault(t.attr, value.id if isinstance(value, ast.Name) and value.id in params else None)
    return out


def _parse(tree: Checkout, rel: str) -> ast.Module:
    return tree.parse_or_raise(rel, ShapeError)


def read_chains(shape: Shape, moved: set[str]) -> set[tuple[str, ...]]:
    """The owner attribute chains the moved code reads, in the owner's terms: the `self.` chains
    of the moved methods still on the owner, and what the builder passes (getters' chains,
    value fields' sources)."""
    out: set[tuple[str, ...]] = set()
    for name, fn in shape.methods.items():
        if name in moved:
            out |= _self_chains(fn)
    for value in shape.passed.values():
        body = value.body if isinstance(value, ast.Lambda) else value
        chain = _chain(body, "self")
        if chain:
            out.add(chain)
    return out


def written_chains(shape: Shape, moved: set[str]) -> set[tuple[str, ...]]:
    """Chains of `self` the owner assigns in methods other than `__init__`, those that run only
    while it runs (`during_init`), the builder and the moved methods: what may be rebound once
    the component is built."""
    out: set[tuple[str, ...]] = set()
    skip = moved | {"__init__"} | ({shape.builder.name} if shape.builder is not None else set()) | during_init(shape)
    for name, fn in shape.methods.items():
        if name in skip:
            continue
        me = fn.args.args[0].arg if fn.args.args else None
        for n in ast.walk(fn):
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target] if isinstance(
                n, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)) else []
            for t in targets:
                for one in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                    chain = _chain(one, me)
                    if chain:
                        out.add(chain)
    return out


def during_init(shape: Shape) -> set[str]:
    """The owner's methods that run only while `__init__` runs, before it builds the component
    (before its call of the builder; where there is none, anywhere in it): `pysource.init_only`."""
    init = shape.init()
    if init is None:
        return set()
    me = init.args.args[0].arg if init.args.args else "self"
    builder = shape.builder.name if shape.builder is not None else None
    early = []
    for stmt in init.body:
        if builder is not None and calls_on_self(stmt, builder, me):
            break
        early.append(stmt)
    return run_only_in_init(shape.owner, early, me, set(shape.methods) - {builder}, shape.tree.text(shape.owner_rel),
                            shape.tree, shape.tree.path(shape.owner_rel))


def _self_chains(fn: ast.FunctionDef) -> set[tuple[str, ...]]:
    me = fn.args.args[0].arg if fn.args.args else None
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute):
            chain = _chain(n, me)
            if chain:
                out.add(chain)
    return out


def _chain(node: ast.AST, me: Optional[str]) -> Optional[tuple[str, ...]]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id == me and parts:
        return tuple(reversed(parts))
    return None
