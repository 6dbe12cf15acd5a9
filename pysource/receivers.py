"""What an expression is an instance of, where the code says it (Python's `ast`, across a checkout).

A refactoring that moves `CLASS.METHOD` must tell `x.METHOD(...)` calls of it from calls of a
same-named method of another class. The type of `x` is read off what the code declares, never
guessed from names:
- `self` (the first parameter of a method) is an instance of the method's class, or of the class
  its annotation names (a mixin's `def loop(self: Scheduler)`);
- a parameter, a variable or an attribute annotated `T` (`Optional[T]`, `Union[...]`, `T | None`,
  `"T"`, `Type[T]`, `List[T]` read by item) holds a `T`; a property or a function returning `T`;
- a name only `import X` statements bind is the module `X` (`Module("X")`), and a builtin
  class nothing in the file rebinds is that class (`set()` makes a `builtins.set`; not `type` and
  `super`, whose call gives its argument's class);
- a name or an attribute assigned `T(...)` (a class of the checkout, or one it imports) holds a
  `T`, and so does one assigned any expression whose type is known that way (another attribute,
  `a or b`, `x if c else y`, a call of a class object returned by a function annotated `Type[T]`);
- an attribute declared without a useful type (`tp_worker: Any` in a dataclass, `self.x = x` from
  an unannotated parameter) takes the types of what every construction of its class in the
  checkout passes for it (`Manager(tp_worker=self.tp_worker)`), when every one can be read.
The attribute of a class is looked up in the class and its bases; where no base declares its
type, the assignments of its subclasses count too (an instance typed `T` may be one of them).
Anything else is unknown (`None`): a caller then treats the place as ambiguous and lists it.

Types are frozensets of `Instance(QUALNAME)`, `ClassObject(QUALNAME)`, `Module(NAME)`, `Function`
(one to call), `Sequence(TYPES)` (a container whose items are TYPES), `FixedTuple((TYPES, ...))`
and NONE; a class is named by its defining module and name
(`sglang.srt.model_executor.model_runner.ModelRunner`, re-exports followed; `<test/x.py>.C` for a
file outside the package), a class from outside the checkout by the name its import spells
(`torch.nn.Module`).
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

from pysource import parsing
from pysource.attribute_text import binds, bindings
from pysource.checkout import Checkout
from pysource.bindings import binding_index
from pysource.imports import FileNames, nodes, nodes_on_lines, parents_of
from pysource.modules import import_bindings, module_level_statements
from pysource.text_search import search_near


@dataclass(frozen=True, slots=True)
class Instance:
    qualname: str


@dataclass(frozen=True, slots=True)
class ClassObject:
    qualname: str


@dataclass(frozen=True, slots=True)
class Module:
    name: str


@dataclass(frozen=True, slots=True)
class Function:
    """A function to call, defined in `path`; `bound`: a call passes its first parameter (a method
    reached through an instance, a class method)."""

    path: Path
    node: ast.AST
    bound: bool


@dataclass(frozen=True, slots=True)
class Sequence:
    """A container (a list, a set, a mapping's values) whose items are `items`."""

    items: Types


@dataclass(frozen=True, slots=True)
class FixedTuple:
    """A tuple of as many items as `items`, each of its own types."""

    items: tuple


@dataclass(frozen=True, slots=True)
class NoneValue:
    pass


Type = Union[Instance, ClassObject, Module, Function, Sequence, FixedTuple, NoneValue]
Types = Optional[frozenset]  # None: unknown
NONE = NoneValue()

PROPERTIES = {"property", "cached_property", "functools.cached_property", "abstractproperty"}
OPTIONAL = {"Optional"}
UNIONS = {"Union"}
CLASS_OF = {"Type", "type"}
SEQUENCES = {"List", "list", "Sequence", "Tuple", "tuple", "Iterable", "Set", "set", "FrozenSet", "frozenset",
             "Deque", "deque", "MutableSequence", "Iterator", "Collection"}
MAPPINGS = {"Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict"}
WRAPPERS = {"Annotated", "ClassVar", "Final", "InitVar"}
UNKNOWN_NAMES = {"Any", "object", "TypeVar", "Callable", "Self"}
MAX_DEPTH = 12


def union(parts: Iterable[Types]) -> Types:
    out: set = set()
    for p in parts:
        if p is None:
            return None
        out |= p
    return frozenset(out)


class File:
    """One parsed file: its tree, its names, each node's parent."""

    def __init__(self, path: Path, tree: ast.Module, names: FileNames, module: Optional[str]):
        self.path, self.tree, self.names, self.module = path, tree, names, module
        self._parents: dict[int, ast.AST] = {}  # those noted by `nodes_spelling`, or every node's
        self._every_parent = False

    def nodes_spelling(self, words: Iterable[str]) -> Iterator[ast.AST]:
        """The nodes that may spell one of `words`, and their ancestors, in `nodes`' order
        (`nodes_on_lines`; every node without the file's text); their parents are noted."""
        lines: set[int] = set()
        for word in words:
            on = self.names.lines_of(word)
            if on is None:
                return nodes(self.tree)
            lines.update(on)
        return nodes_on_lines(self.tree, sorted(lines), self._parents)

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        if node is self.tree:
            return None
        if id(node) not in self._parents and not self._every_parent:
            self._every_parent = True
            self._parents.update(parents_of(self.tree))
        return self._parents.get(id(node))

    def enclosing(self, node: ast.AST) -> tuple[Optional[ast.AST], Optional[ast.ClassDef]]:
        """(the innermost function or lambda holding `node`, the class that function is a method of)."""
        n = self.parent(node)
        while n is not None and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            n = self.parent(n)
        if n is None:
            return None, None
        up = self.parent(n)
        return n, up if isinstance(up, ast.ClassDef) and n in up.body else None


class Program:
    """The checkout's files parsed on demand (once each), its classes followed from file to file,
    and the types of expressions (see the module docstring)."""

    def __init__(self, checkout: Checkout):
        self.checkout = checkout
        self._files: dict[Path, Optional[File]] = {}
        self._classes: dict[str, Optional[tuple[File, ast.ClassDef]]] = {}
        self._attr: dict[tuple[str, str], Types] = {}
        self._subclasses: dict[str, frozenset[str]] = {}
        self._busy: set = set()
        self._index: dict = {}
        self._stack: list = []
        self._tainted: set = set()

    def over(self, checkout: Checkout) -> "Program":
        """A program over `checkout`, the same files with some texts replaced (`Checkout.overrides`):
        each file whose text is the same keeps its parse and names; what spans files (classes,
        types, subclasses) is found anew."""
        other = Program(checkout)
        other._files = {p: f for p, f in self._files.items() if self._same_text(checkout, p)}
        return other

    def _same_text(self, checkout: Checkout, path: Path) -> bool:
        """Whether `path` reads the same in `checkout` as in this program's (both read the file, or
        both replace it by the same text)."""
        rel = checkout.relative(path, checkout.package_root)
        return self.checkout.overrides.get(rel) == checkout.overrides.get(rel)

    # -- files and classes ------------------------------------------------------------------
    def file(self, path: Path) -> Optional[File]:
        path = Path(path)
        if path not in self._files:
            try:
                tree = self.checkout.parse(path)
            except (SyntaxError, ValueError, OSError):
                self._files[path] = None
            else:
                module = self.checkout.module_of(path) or f"<{self.checkout.relative(path)}>"
                names = FileNames(tree, self.checkout.package_of(path), module, text=self.checkout.text(path))
                self._files[path] = File(path, tree, names, module)
        return self._files[path]

    def module_path(self, module: str) -> Optional[Path]:
        if module.startswith("<") and module.endswith(">"):
            return self.checkout.root / module[1:-1]
        found = self.checkout.modules().get(module)
        return Path(found) if found is not None else None

    def outside(self, qualified: str) -> bool:
        """Whether a dotted name comes from outside the checkout (`Checkout.from_outside`)."""
        return self.checkout.from_outside(qualified)

    def class_def(self, qualname: Optional[str], depth: int = 0) -> Optional[tuple[File, ast.ClassDef]]:
        """The file and definition of the class `qualname` names (re-exports followed)."""
        if qualname is None or depth > 6:
            return None
        if qualname in self._classes:
            return self._classes[qualname]
        self._classes[qualname] = None
        module, _, name = qualname.rpartition(".")
        path = self.module_path(module) if module else None
        found = None
        f = self.file(path) if path is not None and path.is_file() else None
        if f is not None:
            defs = [s for s in module_level_statements(f.tree.body) if isinstance(s, ast.ClassDef) and s.name == name]
            if len(defs) == 1:
                found = (f, defs[0])
            elif not defs:
                for target in f.names.imported.get(name, ()):
                    found = self.class_def(target, depth + 1)
                    if found is not None:
                        break
        self._classes[qualname] = found
        return found

    def canonical(self, qualname: str) -> str:
        """The class's name where it is defined (`sglang.srt.x.C` for a re-export of it)."""
        found = self.class_def(qualname)
        if found is None:
            return qualname
        f, node = found
        return f"{f.module}.{node.name}"

    def qualified(self, f: File, node: ast.ClassDef) -> str:
        return f"{f.module}.{node.name}"

    def bases(self, qualname: str) -> Optional[list[str]]:
        """The qualified names of the class's bases; None when one cannot be followed (bound
        otherwise, computed); a base from outside the checkout is named by its import."""
        found = self.class_def(qualname)
        if found is None:
            return [] if self.outside(qualname) else None
        f, node = found
        out = []
        for base in node.bases:
            base = base.value if isinstance(base, ast.Subscript) else base
            q = f.names.qualify(base)
            if q is not None:
                out.append(q if self.outside(q) else self.canonical(q))
                continue
            if not isinstance(base, ast.Name):
                return None
            if hasattr(builtins, base.id) and base.id not in f.names.imported and base.id not in f.names.bound_otherwise:
                continue
            candidates = self._module_classes(f, base.id)
            if candidates is None:
                return None
            out += candidates
        return out

    def _module_classes(self, f: File, name: str) -> Optional[list[str]]:
        """The classes a module-level name may be bound to (`if X: from m import C` / `else:
        class C: ...`): each binding a class definition or an import of a class; else None."""
        out = []
        for stmt in binding_index(f.tree).get(name, []):
            if isinstance(stmt, ast.ClassDef):
                out.append(f"{f.module}.{name}")
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                targets = [b.qualname for b in import_bindings(stmt, self.checkout.relative(f.path, self.checkout.package_root))
                           if b.name == name]
                if len(targets) != 1:
                    return None
                q = targets[0]
                if not self.outside(q) and self.class_def(q) is None:
                    return None
                out.append(q if self.outside(q) else self.canonical(q))
            else:
                return None
        return out or None

    def lineage(self, qualname: str) -> Optional[list[str]]:
        """The class and every class it derives from (depth first); None when some base cannot
        be followed. A class from outside the checkout ends its line."""
        out, todo, seen = [], [qualname], set()
        while todo:
            q = todo.pop(0)
            if q in seen:
                continue
            seen.add(q)
            out.append(q)
            if self.outside(q):
                continue
            bases = self.bases(q)
            if bases is None or len(seen) > 60:
                return None
            todo += bases
        return out

    def derives(self, qualname: str, base: str) -> bool:
        """Whether class `qualname` is `base` or derives from it, as far as its bases can be followed."""
        todo, seen = [qualname], set()
        while todo:
            q = todo.pop()
            if q == base:
                return True
            if q in seen or self.outside(q) or len(seen) > 60:
                continue
            seen.add(q)
            todo += self.bases(q) or []
        return False

    def overrides(self, qualname: str, names: Iterable[str]) -> Iterator[tuple[File, ast.ClassDef, ast.FunctionDef]]:
        """(file, subclass, def) for each method of a subclass of `qualname` named in `names`."""
        names = set(names)
        for sub in sorted(self.subclasses(qualname)):
            got = self.class_def(sub)
            if got is None:
                continue
            f, node = got
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in names:
                    yield f, node, stmt

    def subclasses(self, qualname: str) -> frozenset[str]:
        """Every class of the checkout deriving from `qualname` (transitively), found among the
        files whose class statements spell its name in their bases."""
        if qualname in self._subclasses:
            return self._subclasses[qualname]
        self._subclasses[qualname] = frozenset()
        out: set[str] = set()
        todo = [qualname]
        while todo:
            q = todo.pop()
            name = q.rpartition(".")[2]
            for path in self.checkout.naming_a_base(name.encode()):
                f = self.file(Path(path))
                if f is None:
                    continue
                for node in f.names.class_defs:
                    if any(
                            (b.value if isinstance(b, ast.Subscript) else b) is not None
                            and _spells(b, name) for b in node.bases):
                        sub = self.qualified(f, node)
                        if sub not in out and sub != qualname and self.derives(sub, q):
                            out.add(sub)
                            todo.append(sub)
        self._subclasses[qualname] = frozenset(out)
        return self._subclasses[qualname]

    # -- types --------------------------------------------------------------------------------
    def type_of(self, f: File, node: ast.AST, depth: int = 0) -> Types:
        """What `node` (an expression of file `f`) is, as the code declares it (module docstring)."""
        if depth > MAX_DEPTH:
            return None
        key = (id(f), id(node))
        if key in self._busy:  # the expression's type depends on itself: nothing more from here
            self._tainted.update(self._stack)
            return frozenset()
        self._busy.add(key)
        try:
            return self._type_of(f, node, depth + 1)
        finally:
            self._busy.discard(key)

    def _type_of(self, f: File, node: ast.AST, depth: int) -> Types:
        if isinstance(node, ast.Constant):
            return frozenset([NONE]) if node.value is None else frozenset([Instance(f"builtins.{type(node.value).__name__}")])
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return frozenset([Instance("builtins.list")])
        if isinstance(node, (ast.Dict, ast.DictComp, ast.JoinedStr)):
            return frozenset([Instance("builtins.dict" if not isinstance(node, ast.JoinedStr) else "builtins.str")])
        if isinstance(node, ast.IfExp):
            return union([self.type_of(f, node.body, depth), self.type_of(f, node.orelse, depth)])
        if isinstance(node, ast.BoolOp):
            return union(self.type_of(f, v, depth) for v in node.values)
        if isinstance(node, ast.NamedExpr):
            return self.type_of(f, node.value, depth)
        if isinstance(node, ast.Name):
            return self._name(f, node, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(f, node, depth)
        if isinstance(node, ast.Call):
            return self._call(f, node, depth)
        if isinstance(node, ast.Subscript):
            inner = self.type_of(f, node.value, depth)
            if inner is None:
                return None
            if isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
                return _element(inner, node.slice.value)
            items = [t.items for t in inner if isinstance(t, Sequence)]
            if len(items) != len(inner):
                return None
            return union(items)
        if isinstance(node, ast.Await):
            return None
        return None

    def _call(self, f: File, node: ast.Call, depth: int) -> Types:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super":
            return None
        callee = self.type_of(f, func, depth)
        if callee is None:
            q = f.names.qualify(func)
            return frozenset([Instance(q)]) if q is not None and self.outside(q) and q.rpartition(".")[2][:1].isupper() \
                else None
        out: list[Types] = []
        for t in callee:
            if t == NONE:
                continue
            if isinstance(t, ClassObject):
                out.append(frozenset([Instance(t.qualname)]))
            elif isinstance(t, Function):
                out.append(self._returns(t.path, t.node, t.bound, f, node, depth))
            else:
                return None
        return union(out)

    def _returns(self, path: Path, fn: ast.AST, bound: bool, f: File, call: ast.Call, depth: int) -> Types:
        """What calling `fn` (defined in file `path`) as `call` (in file `f`) returns: its return
        annotation, else what its `return`s give, a returned parameter being what the call passes."""
        home = self.file(path)
        if home is None:
            return None
        if fn.returns is not None:
            declared = self.annotation(home, fn.returns)
            if declared is not None or not _uninformative(fn.returns):
                return declared
        returns = [n.value for n in _own_nodes(fn) if isinstance(n, ast.Return)]
        if not returns:
            return frozenset([NONE])
        args = fn.args
        params = [p.arg for p in [*args.posonlyargs, *args.args]][1 if bound else 0:]
        out = []
        for r in returns:
            if r is None:
                out.append(frozenset([NONE]))
            elif isinstance(r, ast.Name) and r.id in params + [p.arg for p in args.kwonlyargs] \
                    and not _rebinds(fn, r.id):
                passed = next((k.value for k in call.keywords if k.arg == r.id), None)
                if passed is None and r.id in params and params.index(r.id) < len(call.args):
                    passed = call.args[params.index(r.id)]
                if passed is None or isinstance(passed, ast.Starred):
                    return None
                out.append(self.type_of(f, passed, depth))
            else:
                out.append(self.type_of(home, r, depth))
        return union(out)

    def _name(self, f: File, node: ast.Name, depth: int) -> Types:
        fn, cls = f.enclosing(node)
        name = node.id
        while fn is not None:
            args = fn.args
            params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            if cls is not None and params and params[0].arg == name and not _decorated(fn, "staticmethod"):
                declared = self.annotation(f, params[0].annotation) if params[0].annotation is not None else None
                if declared:  # a mixin's `def loop(self: Scheduler)`: the class it is written for
                    return declared
                if _decorated(fn, "classmethod"):
                    return frozenset([ClassObject(self.qualified(f, cls))])
                return frozenset([Instance(self.qualified(f, cls))])
            for p in params:
                if p.arg == name:
                    return self.annotation(f, p.annotation) if p.annotation is not None else None
            if args.vararg is not None and args.vararg.arg == name or args.kwarg is not None and args.kwarg.arg == name:
                return None
            if not isinstance(fn, ast.Lambda):
                found = _assignments(fn.body, name)
                if found is not None:
                    return union(self._assigned(f, name, v, depth) for v in found)
            fn, cls = f.enclosing(fn)
        return self._global(f, name, depth)

    def _global(self, f: File, name: str, depth: int) -> Types:
        q = f.names.qualify(ast.Name(name, ast.Load()))
        if q is not None:
            return self._imported(f, name, q, depth)
        if name in f.names.imported:
            return None
        if isinstance(getattr(builtins, name, None), type) and name not in _CLASS_OF_ITS_ARGUMENT \
                and name not in f.names.bound_otherwise:
            return frozenset([ClassObject(f"builtins.{name}")])  # `set()`: nothing in the file rebinds it
        defs = [s for s in f.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and s.name == name]
        if defs:
            if len(defs) == 1 and isinstance(defs[0], ast.ClassDef):
                return frozenset([ClassObject(f"{f.module}.{name}")])
            if len(defs) == 1:
                return frozenset([Function(f.path, defs[0], False)])
            return None
        found = _assignments(f.tree.body, name, module_level=True)
        values = list(found or [])
        for n in _declaring_global(f, name):  # `global NAME` then NAME = ... in a function
            more = _assignments(n.body, name)
            if more is None:
                continue
            values += more
        if not values:
            return None
        return union(self._assigned(f, name, v, depth) for v in values)

    def _imported(self, f: File, name: str, q: str, depth: int) -> Types:
        """What `name` of file `f` is, bound by an import to the dotted name `q`: a class, a global of
        another module of the checkout, a class from outside it (a capitalised name), or a module
        (every statement binding `name` is an `import X`)."""
        binders = f.names.binders.get(name)
        if binders and all(isinstance(s, ast.Import) for s in binders) and name not in f.names.bound_otherwise:
            return frozenset([Module(q)])
        if self.class_def(q) is not None:
            return frozenset([ClassObject(self.canonical(q))])
        module, _, attr = q.rpartition(".")
        path = self.module_path(module) if module else None
        if path is None:
            if self.outside(q) and name not in f.names.bound_otherwise:
                return frozenset([ClassObject(q)]) if attr[:1].isupper() else None
            return None
        if path == f.path:
            return None
        other = self.file(path)
        return None if other is None else self._global(other, attr, depth)

    def _assigned(self, f: File, name: str, value: tuple, depth: int) -> Types:
        """The type of one assignment of `name` found by `_assignments` (typed where it is)."""
        kind, node = value
        if kind == "import":  # a function-level import: what the module-level one would give
            q = f.names.qualify(ast.Name(name, ast.Load()))
            return None if q is None else self._imported(f, name, q, depth)
        if kind == "annotation":
            return self.annotation(f, node)
        if kind == "def":
            if isinstance(node, ast.ClassDef):
                return None  # a class defined in a function: not one the checkout can name
            return frozenset([Function(f.path, node, False)])
        if kind == "unpack":
            return _element(self.type_of(f, node[0], depth), node[1])
        if kind == "value":
            return self.type_of(f, node, depth)
        return None

    def _attribute(self, f: File, node: ast.Attribute, depth: int) -> Types:
        q = f.names.qualify(node)
        if q is not None:
            if self.class_def(q) is not None:
                return frozenset([ClassObject(self.canonical(q))])
            module, _, attr = q.rpartition(".")
            path = self.module_path(module)
            if path is not None:
                other = self.file(path)
                return None if other is None else self._global(other, attr, depth)
            if self.outside(q):
                return frozenset([ClassObject(q)]) if attr[:1].isupper() else None
        owner = self.type_of(f, node.value, depth)
        if owner is None:
            return None
        out = []
        for t in owner:
            if t == NONE:
                continue
            if not isinstance(t, (Instance, ClassObject)) or t.qualname.startswith("builtins.") \
                    or self.outside(t.qualname):
                return None
            out.append(self.attribute_type(t.qualname, node.attr, depth) if isinstance(t, Instance)
                       else self.class_attribute_type(t.qualname, node.attr))
        return union(out)

    def attribute_contract(self, attr: str) -> tuple[Types, list[tuple[Path, int]], list[tuple[Path, int]]]:
        """What an attribute named `attr` holds wherever the checkout declares it: (the union of
        those types, where they are declared, the bindings that declare nothing). Declared: a
        property's return annotation, a class-level or `self.attr: T` annotation, `self.attr = p`
        from a parameter annotated `T`, `self.attr = T(...)`. For `x.attr` where nothing says
        what `x` is, a caller may take it as evidence, and must show the bindings it rests on."""
        key = ("contract", attr)
        if key in self._index:
            return self._index[key]
        types, declared, silent = set(), [], []
        name = attr.encode()
        for path in self.checkout.select(lambda data: search_near(binds(attr), data, name, 5), mentioning=name):
            lines, may_declare = bindings(self.checkout.data(path), attr)
            if not may_declare:  # bindings that declare nothing, counted from their text without parsing them
                silent += [(path, line) for line in lines]
                continue
            f = self.file(path)
            if f is None:
                continue
            for cls in f.names.class_defs:
                for stmt in cls.body:
                    t, line = None, None
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr \
                            and any(_decorator_name(d) in PROPERTIES for d in stmt.decorator_list):
                        t, line = self.annotation(f, stmt.returns), stmt.lineno
                    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                        t, line = self.annotation(f, stmt.annotation), stmt.lineno
                    else:
                        continue
                    (types.update(t), declared.append((path, line))) if t else silent.append((path, line))
                for fn, n, one in self.writes_of(f, cls, attr):
                    t = None
                    if isinstance(n, ast.AnnAssign):
                        t = self.annotation(f, n.annotation)
                    elif isinstance(n, ast.Assign) and one in n.targets:
                        value = n.value
                        params = {p.arg: p for p in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
                        if isinstance(value, ast.Name) and value.id in params and params[value.id].annotation is not None:
                            t = self.annotation(f, params[value.id].annotation)
                        elif isinstance(value, ast.Call):
                            callee = f.names.qualify(value.func)
                            if callee is not None and self.class_def(callee) is not None:
                                t = frozenset([Instance(self.canonical(callee))])
                    if t:
                        types |= t
                        declared.append((path, n.lineno))
                    else:
                        silent.append((path, n.lineno))
        result = (frozenset(types) if types else None, declared, silent)
        self._index[key] = result
        return result

    def _is_self(self, f: File, node: ast.AST) -> bool:
        """`node` is the first parameter of the method it is in (those bindings count with the class)."""
        if not isinstance(node, ast.Name):
            return False
        fn, cls = f.enclosing(node)
        return cls is not None and bool(fn.args.args) and fn.args.args[0].arg == node.id

    def class_attribute_type(self, qualname: str, attr: str) -> Types:
        """`CLS.attr`: what calling a class method or static method of the class returns."""
        line = self.lineage(qualname)
        for q in line or ():
            got = self.class_def(q)
            if got is None:
                continue
            cf, cls = got
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                    if _decorated(stmt, "classmethod"):
                        return frozenset([Function(cf.path, stmt, True)])
                    if _decorated(stmt, "staticmethod"):
                        return frozenset([Function(cf.path, stmt, False)])
                    return None
        return None

    def attribute_type(self, qualname: str, attr: str, depth: int = 0) -> Types:
        """The type of `attr` on an instance of class `qualname` (module docstring). A lookup that
        comes back to itself (`self.model = load(self.model)`) contributes nothing there: the
        least solution; what was computed inside such a cycle is not kept, but for its start."""
        key = (qualname, attr)
        if key in self._attr:
            return self._attr[key]
        if key in self._stack:
            for above in self._stack[self._stack.index(key) + 1:]:
                self._tainted.add(above)
            return frozenset()
        self._stack.append(key)
        try:
            result = self._attribute_type(qualname, attr, depth)
        finally:
            self._stack.pop()
        if key in self._tainted:
            self._tainted.discard(key)
        else:
            self._attr[key] = result
        return result

    def _attribute_type(self, qualname: str, attr: str, depth: int) -> Types:
        line = self.lineage(qualname)
        if line is None:
            return None
        assigned, found = [], False
        for q in line:
            got = self.class_def(q)
            if got is None:
                if self.outside(q):
                    continue
                return None
            declared, a, seen = self._members(*got, attr, depth)
            if declared is not None:
                return declared  # the first class of the line declaring it says what it is
            found |= seen
            assigned += a
        here = union(assigned)
        if here is None:
            return None
        for q in sorted(self.subclasses(qualname)):  # an instance typed `qualname` may be one of them
            got = self.class_def(q)
            if got is None:
                return None
            declared, a, seen = self._members(*got, attr, depth)
            found |= seen
            assigned += [declared] if declared is not None else a
        return union(assigned) if found else None

    def _members(self, f: File, cls: ast.ClassDef, attr: str, depth: int) -> tuple[Types, list, bool]:
        """(the declared type of `attr` in class `cls`, the types of its assignments there, whether
        the class binds it at all)."""
        declared, assigned, seen = None, [], False
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                seen = True
                if any(_decorator_name(d) in PROPERTIES for d in stmt.decorator_list):
                    declared = self.annotation(f, stmt.returns) if stmt.returns is not None else None
                    if declared is None:
                        assigned.append(self._returned(f, stmt, depth))
                else:  # a bound method: calling it gives what it returns
                    assigned.append(frozenset([Function(f.path, stmt, not _decorated(stmt, "staticmethod"))]))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                seen = True
                t = self.annotation(f, stmt.annotation)
                if t is not None:
                    declared = t
                else:
                    assigned.append(self._constructed(f, cls, attr, depth))
            elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                seen = True
                assigned.append(self.type_of(f, stmt.value, depth))
        for fn, n, one in self.writes_of(f, cls, attr):
            seen = True
            if isinstance(n, ast.AnnAssign):
                assigned.append(self.annotation(f, n.annotation))
            elif isinstance(n, ast.Assign) and one in n.targets:
                assigned.append(self._from_value(f, cls, fn, n.value, depth))
            elif isinstance(n, ast.Assign):
                assigned.append(self._unpacked(f, n, one, depth))
            else:
                assigned.append(None)
        return declared, assigned, seen

    def writes_of(self, f: File, cls: ast.ClassDef, attr: str) -> list[tuple[ast.AST, ast.AST, ast.Attribute]]:
        """`self_writes(f, cls)[attr]`, found on the lines that spell `attr` (the whole class
        without the file's text)."""
        lines = f.names.lines_of(attr)
        if lines is None:
            return self.self_writes(f, cls).get(attr, [])
        return [w for fn in _methods(cls) for w in _writes(fn, nodes_on_lines(fn, lines)) if w[2].attr == attr]

    def self_writes(self, f: File, cls: ast.ClassDef) -> dict[str, list[tuple[ast.AST, ast.AST, ast.Attribute]]]:
        """{attribute: [(method, statement, target)]} for every `self.attribute = ...` (and `+=`,
        `for self.x in`, `del`) in the class's methods, `self` being each method's first parameter."""
        key = ("writes", id(cls))
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = {}
            for fn in _methods(cls):
                for w in _writes(fn, nodes(fn)):
                    found.setdefault(w[2].attr, []).append(w)
        return found

    def _unpacked(self, f: File, n: ast.Assign, target: ast.AST, depth: int) -> Types:
        """The type of one element `target` of a tuple assignment `a, b = value`."""
        for t in n.targets:
            if isinstance(t, (ast.Tuple, ast.List)) and target in t.elts and not any(
                    isinstance(e, ast.Starred) for e in t.elts):
                return _element(self.type_of(f, n.value, depth), t.elts.index(target))
        return None

    def _from_value(self, f: File, cls: ast.ClassDef, fn: ast.FunctionDef, value: ast.expr, depth: int) -> Types:
        """The type of what `self.attr = value` stores; a parameter of `__init__` without a useful
        annotation: what the constructions of the class pass for it."""
        t = self.type_of(f, value, depth)
        if t is not None or fn.name != "__init__" or not isinstance(value, ast.Name):
            return t
        params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        if not any(p.arg == value.id for p in params):
            return None
        return self._constructed(f, cls, value.id, depth, init=fn)

    def _returned(self, f: File, fn: ast.FunctionDef, depth: int) -> Types:
        returns = [n.value for n in _own_nodes(fn) if isinstance(n, ast.Return) and n.value is not None]
        return union(self.type_of(f, r, depth) for r in returns) if returns else None

    def _constructed(self, f: File, cls: ast.ClassDef, name: str, depth: int, init=None) -> Types:
        """What every `CLS(...)` of the checkout passes for the field (or `__init__` parameter)
        `name`, when each one can be read (by keyword, or by position)."""
        qualname = self.qualified(f, cls)
        if init is not None:
            params = [p.arg for p in [*init.args.posonlyargs, *init.args.args][1:]]
        else:
            params = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        out: list[Types] = []
        spelled = cls.name.encode()
        called = re.compile(rb"\b" + re.escape(spelled) + rb"\s*\(")
        for path in self.checkout.select(lambda data: search_near(called, data, spelled, 0), mentioning=spelled):
            other = self.file(path)
            if other is None:
                return None
            for n in other.nodes_spelling([cls.name]):
                if not (isinstance(n, ast.Call) and _spells(n.func, cls.name)):
                    continue
                callee = self.type_of(other, n.func, depth)
                if callee is None or ClassObject(qualname) not in callee:
                    continue
                if any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None for k in n.keywords):
                    return None
                value = next((k.value for k in n.keywords if k.arg == name), None)
                if value is None and name in params and params.index(name) < len(n.args):
                    value = n.args[params.index(name)]
                if value is None:
                    continue  # its default (or absent)
                out.append(self.type_of(other, value, depth))
        return union(out) if out else None

    def annotation(self, f: File, node: Optional[ast.AST]) -> Types:
        """The types an annotation names (module docstring); None when it names nothing useful."""
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            if node.value is None:
                return frozenset([NONE])
            if isinstance(node.value, str):
                try:
                    inner = parsing.expression(node.value).body
                except SyntaxError:
                    return None
                return self.annotation(f, inner)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return union([self.annotation(f, node.left), self.annotation(f, node.right)])
        if isinstance(node, ast.Subscript):
            head = _head(node.value)
            args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in OPTIONAL:
                return union([self.annotation(f, args[0]), frozenset([NONE])])
            if head in UNIONS:
                return union(self.annotation(f, a) for a in args)
            if head in WRAPPERS:
                return self.annotation(f, args[0])
            if head in CLASS_OF:
                inner = self.annotation(f, args[0])
                return None if inner is None else frozenset(ClassObject(t.qualname) if isinstance(t, Instance) else t for t in inner)
            if head in ("Tuple", "tuple") and not any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args):
                return frozenset([FixedTuple(tuple(self.annotation(f, a) for a in args))])
            if head in SEQUENCES:
                items = [a for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
                return frozenset([Sequence(union(self.annotation(f, a) for a in items) if items else None)])
            if head in MAPPINGS:
                return frozenset([Sequence(self.annotation(f, args[-1]))])
            return self.annotation(f, node.value)
        if isinstance(node, (ast.Name, ast.Attribute)):
            head = _head(node)
            if head in UNKNOWN_NAMES:
                return None
            if isinstance(node, ast.Name) and node.id == "None":
                return frozenset([NONE])
            q = f.names.qualify(node)
            if q is None and isinstance(node, ast.Name):
                if node.id in _local_classes(f.tree):
                    q = f"{f.module}.{node.id}"
                elif hasattr(builtins, node.id) and node.id not in f.names.bound_otherwise:
                    return frozenset([Instance(f"builtins.{node.id}")])
            if q is None:
                return None
            if q.split(".")[0] in ("typing", "typing_extensions"):
                return None
            if self.outside(q):
                return frozenset([Instance(q)])
            return frozenset([Instance(self.canonical(q))]) if self.class_def(q) is not None else None
        return None


def _element(types: Types, index: int) -> Types:
    """The type of item `index` of a value of `types` (a fixed tuple, or a container)."""
    if types is None:
        return None
    out = []
    for t in types:
        if isinstance(t, FixedTuple) and -len(t.items) <= index < len(t.items):
            out.append(t.items[index])
        elif isinstance(t, Sequence):
            out.append(t.items)
        else:
            return None
    return union(out)


def _methods(cls: ast.ClassDef) -> Iterator[ast.AST]:
    """The class's methods that take `self` (not static methods)."""
    for fn in cls.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args and not _decorated(fn, "staticmethod"):
            yield fn


def _writes(fn: ast.AST, walk: Iterable[ast.AST]) -> Iterator[tuple[ast.AST, ast.AST, ast.Attribute]]:
    """(fn, statement, target) for each `self.X = ...` (and `+=`, `for self.X in`, `del`) among
    the nodes `walk` gives of method `fn`."""
    me = fn.args.args[0].arg
    for n in walk:
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [n.target]
        elif isinstance(n, ast.Delete):
            targets = n.targets
        else:
            continue
        for t in targets:
            for one in _flat(t):
                if isinstance(one, ast.Attribute) and isinstance(one.value, ast.Name) and one.value.id == me:
                    yield fn, n, one


def _flat(target: ast.AST) -> list[ast.AST]:
    """The single targets of an assignment target (`a, (b, c)` -> a, b, c)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [x for e in target.elts for x in _flat(e.value if isinstance(e, ast.Starred) else e)]
    return [target]


def _own_nodes(fn: ast.AST):
    """The nodes of a function's own body (not of functions, lambdas or classes nested in it)."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def _rebinds(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in _own_nodes(fn))


def _uninformative(node: ast.AST) -> bool:
    """`-> Any`, `-> Type`, `-> object`: an annotation that says nothing a caller could use."""
    return _head(node) in UNKNOWN_NAMES | CLASS_OF if isinstance(node, (ast.Name, ast.Attribute)) else False


def _head(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


# builtin classes whose call gives (a proxy of) its argument's class, not an instance of the builtin
_CLASS_OF_ITS_ARGUMENT = {"type", "super"}


def _declaring_global(f: File, name: str) -> list[ast.AST]:
    """The functions holding a `global NAME` statement, at any depth (an outer function too)."""
    found = list(f.nodes_spelling([name]))
    lines = [n.lineno for n in found if isinstance(n, ast.Global) and name in n.names]
    return [n for n in found if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(n.lineno <= line <= n.end_lineno for line in lines)]


def _spells(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name or isinstance(node, ast.Attribute) and node.attr == name


def _decorator_name(d: ast.AST) -> str:
    d = d.func if isinstance(d, ast.Call) else d
    return ast.unparse(d)


def _decorated(fn: ast.AST, name: str) -> bool:
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(d, ast.Name) and d.id == name for d in fn.decorator_list)


def _local_classes(tree: ast.Module) -> set[str]:
    return {s.name for s in tree.body if isinstance(s, ast.ClassDef)}


def _assignments(body: list[ast.stmt], name: str, module_level: bool = False) -> Optional[list]:
    """The assignments of `name` in `body` (not in nested functions or classes), each
    ("value", expr) or ("annotation", expr) or ("other", node); None when nothing binds it there."""
    found: list = []
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n.name == name:
                found.append(("def", n))
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    found.append(("value", n.value))
                elif isinstance(t, (ast.Tuple, ast.List)) and any(
                        isinstance(e, ast.Name) and e.id == name for e in ast.walk(t)):
                    flat = [isinstance(e, ast.Name) and e.id == name for e in t.elts]
                    if any(flat) and not any(isinstance(e, ast.Starred) for e in t.elts):
                        found.append(("unpack", (n.value, flat.index(True))))
                    else:
                        found.append(("other", n))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            found.append(("annotation", n.annotation))
        elif isinstance(n, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr,
                            ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.comprehension)):
            bound = {t.id for t in ast.walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            if isinstance(n, ast.ExceptHandler) and n.name:
                bound.add(n.name)
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name).split(".")[0] == name for a in n.names):
                    found.append(("import", n))
                continue
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name) and n.target.id == name:
                found.append(("value", n.value))
            elif name in bound and not isinstance(n, (ast.For, ast.With, ast.AsyncFor, ast.AsyncWith)):
                found.append(("other", n))
            elif isinstance(n, (ast.For, ast.AsyncFor)) and any(
                    isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)):
                found.append(("other", n))
            elif isinstance(n, (ast.With, ast.AsyncWith)) and any(
                    item.optional_vars is not None and any(isinstance(t, ast.Name) and t.id == name
                                                           for t in ast.walk(item.optional_vars)) for item in n.items):
                found.append(("other", n))
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.stmt, ast.expr, ast.ExceptHandler, ast.comprehension)):
                todo.append(child)
    return found if found else None
