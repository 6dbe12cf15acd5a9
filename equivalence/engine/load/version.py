"""Load one version of a tree for `CLASS.METHOD`: the real modules that hold the logic, run.

`pysource.extraction.locate` says where the version keeps the method (method, static method, wrapper, moved
function, call sites). The class's module and the target module are executed from the tree's
files under a private sys.modules (stubs.PrivateModules: the rest of the package is stubbed,
then armed); the target first, so that the class's module imports the real one. The version
then holds the code objects that run (the call site compiled as a function, the method or
wrapper, the moved function) and the inputs its code reads (inputs.py).
"""

from __future__ import annotations

import ast
import copy
import importlib
import importlib.util
import sys
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path

import torch  # noqa: F401  (real, and imported before any version: its own optional imports must not meet the stubs)

from equivalence.engine.load.errors import CouldNotImport, LoadError
from equivalence.engine.load.defaults import PASSED, passing_defaults, unpassed
from equivalence.engine.load.defaults import options as default_options
from equivalence.engine.load.faithful import HELPERS
from equivalence.engine.load.inputs import Inputs, derive
from pysource.extraction import Extraction, LocateError, locate
from pysource.inheritance import Hierarchy, InheritanceError
from pysource.names import attribute_chain
from pysource.modules import import_bindings, module_name
from equivalence.engine.run.awaited import driven
from equivalence.engine.load.stubs import PrivateModules, StubModule, StubScope, is_stub

ENTRY = "__equivalence_entry__"
FELL_THROUGH = "__equivalence_fell_through__"
ONCE = "__equivalence_once__"  # the one pass a call site leaving its method's loop (continue, break) runs in  # the entry ran its statements to the end (no return)


class _FellThrough:
    def __repr__(self) -> str:
        return "<fell through>"


FELL_THROUGH_MARK = _FellThrough()


@dataclass
class Unit:
    """A function of the version that runs for real: branch coverage is measured on it."""

    role: str  # "call site", "method", "static method", "wrapper", "function"
    code: types.CodeType
    node: ast.AST
    rel: str


@dataclass
class Caller:
    """What the caller of the extracted function does around it (empty before the extraction)."""

    applied: set[tuple[str, str]] = field(default_factory=set)  # ("set", "self.X") / ("call", "self.M") after it returns
    eager: set[str] = field(default_factory=set)  # self. chains its arguments read (before the function runs)
    eager_calls: set[str] = field(default_factory=set)  # self. chains its arguments call
    code: types.CodeType | None = None  # the code holding the call (the wrapper's, else the call site's)
    arguments: list[tuple[str, tuple]] = field(default_factory=list)  # (keyword or #i, span) of each argument
    constructs: bool = False  # the code under test is a constructor (`__init__`): compare.ABANDONED


@dataclass
class Version:
    label: str
    root: Path
    ext: Extraction
    modules: dict[str, types.ModuleType]  # file (relative) -> the loaded module
    cls: type
    entry: types.FunctionType  # (self, *entry_args[, defaults.PASSED]): the call site's statements
    entry_args: list[str]
    entry_defaults: dict[str, list[tuple]]  # parameters the call site leaves at their default -> options
    units: list[Unit]
    inputs: Inputs
    caller: Caller
    stub_scope: StubScope
    overrides: dict[str, str] = field(default_factory=dict)
    # `(self, keywords)`: the method called directly, when the call site calls it only on some
    # paths (its guard filters out inputs other callers pass); None when the site always calls it
    direct: types.FunctionType | None = None
    direct_params: dict[str, list[tuple] | None] = field(default_factory=dict)  # -> options (None: the world's)
    together: tuple[tuple[str, str], ...] = ()  # (method, function) moved along: real in both (check.Method)
    co_moved: tuple[tuple[str, str], ...] = ()  # (method, MODULE.function) moved elsewhere: one call (check.Method)

    def where(self) -> str:
        site = self.ext.call_sites[0] if self.ext.call_sites else None
        return f"{self.root / self.ext.source_rel}:{site.line}" if site else str(self.root / self.ext.source_rel)


def exec_module(name: str, filename: str, source: str | ast.Module) -> types.ModuleType:
    """Execute `source` (text, or the module already parsed) as module `name` (its parent
    package: a stub, or a module loaded before)."""
    parent, _, child = name.rpartition(".")
    parent_module = importlib.import_module(parent) if parent else None
    spec = importlib.util.spec_from_file_location(name, filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if parent_module is not None:
        setattr(parent_module, child, module)
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == filename]
        where = f"{filename}:{frames[-1].lineno}" if frames else filename
        top = [f.lineno for f in frames if f.name == "<module>"]
        tree = source if isinstance(source, ast.Module) else ast.parse(source)
        side_effect = _stub_side_effect(tree, top[-1], module.__dict__) if top else None
        raise CouldNotImport(f"{where}: importing failed: {type(e).__name__}: {e}", side_effect) from None
    return module


def _stub_side_effect(tree: ast.Module, line: int, namespace: dict) -> int | None:
    """The line of the module-level statement running at `line`, when it is a bare call that reads
    a stub (a name bound to a stub value or module): its effect is on what a stub stands for."""
    stmt = next((s for s in _module_level(tree.body) if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return None
    names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    return stmt.lineno if any(is_stub(namespace.get(n)) or isinstance(namespace.get(n), StubModule)
                              for n in names) else None


def _module_level(body: list[ast.stmt]):
    """The simple statements module-level code runs (inside `if`, `try`, `with`; not in a def)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        blocks = [getattr(stmt, n) for n in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, n, None), list)]
        blocks += [h.body for h in getattr(stmt, "handlers", [])]
        if blocks:
            for block in blocks:
                yield from _module_level(block)
        else:
            yield stmt


def _without(tree: ast.Module, lines: set[int]) -> ast.Module:
    """A copy of `tree` with the module-level statements starting at `lines` made `pass`."""
    if not lines:
        return tree
    tree = copy.deepcopy(tree)
    blocks = [tree.body]
    while blocks:
        block = blocks.pop()
        for i, stmt in enumerate(block):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if stmt.lineno in lines and isinstance(stmt, ast.Expr):
                block[i] = ast.copy_location(ast.Pass(), stmt)
            blocks += [getattr(stmt, n) for n in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, n, None), list)]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
    return tree


def load(root: Path, label: str, source_rel: str, class_name: str, method_name: str,
         function_name: str | None = None, overrides: dict[str, str] | None = None,
         real_inputs: dict[str, str] | None = None, direct: bool = False, bases: bool = False) -> Version:
    """`real_inputs`: real modules a preset makes inputs (inputs.derive); `direct`: the method is
    called directly, not through its call site (the other version has none in the class);
    `bases`: the modules of the checkout defining the classes of CLASS's order run for real too
    (the deepest first), so that what CLASS inherits, and `super()`, reach their real code."""
    overrides = dict(overrides or {})
    try:
        ext = locate(root, source_rel, class_name, method_name, function_name, overrides)
        above = _base_modules(ext) if bases else []
    except LocateError as e:
        raise LoadError(str(e)) from None
    if direct:
        ext.call_sites = []
    rels = [r for r in dict.fromkeys([ext.target_rel, *above, source_rel]) if r]
    package = source_rel.split("/")[0]
    scope, modules = import_modules(ext.files, rels, label, package)
    scope.armed = True
    cls = _the_class(modules[source_rel], ext)
    entry, entry_args, entry_defaults, site_node = _compile_entry(ext, modules[source_rel])
    units = [Unit("call site", getattr(entry, "__wrapped__", entry).__code__, site_node, source_rel)] if ext.call_sites else []
    units += _method_units(ext, cls, modules)
    if bases:
        units += _super_units(ext, modules)
    local = [(source_rel, site_node, {*entry_args, PASSED})] + [(u.rel, u.node, set()) for u in units if u.role != "call site"]
    try:
        inputs = derive(local, {rel: ext.files.parse(rel) for rel in rels}, package, set(HELPERS), ext.files.canonical,
                        real_inputs)
    except SyntaxError as e:  # already parsed by locate: not expected
        raise LoadError(f"{e.filename}:{e.lineno}: {e.msg}") from None
    caller = _caller(ext)
    caller.constructs = method_name == "__init__"
    if ext.call is not None:
        holder = "wrapper" if ext.wrapper is not None else "call site"
        caller.code = next((u.code for u in units if u.role == holder), None)
        caller.arguments = [(f"#{i}", _span(a)) for i, a in enumerate(ext.call.positional)]
        caller.arguments += [(k, _span(v)) for k, v in ext.call.keyword_nodes.items()]
    direct, direct_params = _direct_entry(ext, modules[source_rel]) if _calls_on_some_paths(ext) else (None, {})
    return Version(label, Path(root), ext, modules, cls, entry, entry_args, entry_defaults, units, inputs,
                   caller, scope, overrides, direct, direct_params)


def _base_modules(ext: Extraction) -> list[str]:
    """The files defining the classes of CLASS's order in the checkout, the deepest first."""
    try:
        return Hierarchy(ext.files, ext.source_rel.split("/")[0]).modules_in_order(
            ext.source_rel, ext.class_name, f"{ext.files.path(ext.source_rel)}:{ext.class_node.lineno}")
    except InheritanceError as e:
        raise LocateError(str(e)) from None


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


IMPORT_ATTEMPTS = 8


def import_modules(files, rels: list[str], label: str, package: str) -> tuple[StubScope, dict]:
    """The version's modules executed (the target first), the rest of the package stubbed. When
    module-level code rejects a stubbed value it compared with literals (`if mode not in ("off",
    "record"): raise`), the import is tried again with that value one of those literals, in
    turn (StubScope.pretend, kept in the scope: reports name it); the first failure is raised
    when no literal gets it through."""
    pretend: dict[str, object] = {}
    tried: dict[str, int] = {}
    literals: dict[str, list] = {}  # what the failing imports compared each stub with
    skipped: dict[str, dict[int, str]] = {}  # rel -> line of a stub's side effect left out -> why
    first = None
    for _ in range(IMPORT_ATTEMPTS):
        scope = StubScope(label, pretend)
        modules = {}
        rel = None
        try:
            with PrivateModules(scope, prefixes=(package,)):
                for rel in rels:
                    parsed = _without(files.parse(rel), set(skipped.get(rel, ())))
                    modules[rel] = exec_module(module_name(rel), files.path(rel), parsed)
            _follow_reexports(files, modules)
            scope.compared = {**scope.compared, **{n: literals[n] for n in pretend if n in literals}}
            scope.skipped = [f"{files.path(r)}:{line}: {why}" for r, lines in skipped.items()
                             for line, why in lines.items()]
            return scope, modules
        except CouldNotImport as e:
            first = first or e
            if e.side_effect is not None and e.side_effect not in skipped.get(rel, {}):
                skipped.setdefault(rel, {})[e.side_effect] = str(e).partition("importing failed: ")[2]
                continue
            for name, found in scope.compared.items():
                literals.setdefault(name, found)
            candidates = {name: found for name, found in scope.compared.items()
                          if tried.get(name, -1) + 1 < len(found)}
            if not candidates:
                break
            # the latest value compared (the one the failing check looked at) takes its next literal
            name = list(candidates)[-1]
            tried[name] = tried.get(name, -1) + 1
            pretend = {**pretend, name: candidates[name][tried[name]]}
    raise first


def _follow_reexports(files, modules: dict[str, types.ModuleType]) -> None:
    """A name a loaded module imports through a package that re-exports it (`from
    sglang.srt.mem_cache.allocator import BaseTokenToKVPoolAllocator`, defined in `.base`): the
    package is stubbed, so the import gave a stub; where the object's own module is loaded, the
    name is bound to it, as Python's import would (inputs.ModuleGlobals.origin then counts it as
    code, not an input)."""
    loaded = {module_name(rel): module for rel, module in modules.items()}
    for rel, module in modules.items():
        for stmt in files.parse(rel).body:
            if not isinstance(stmt, ast.ImportFrom):
                continue
            for binding in import_bindings(stmt, rel):
                home, _, attr = files.canonical(binding.qualname).rpartition(".")
                if home in loaded and is_stub(module.__dict__.get(binding.name)) and attr in loaded[home].__dict__:
                    module.__dict__[binding.name] = loaded[home].__dict__[attr]


def _the_class(module: types.ModuleType, ext: Extraction) -> type:
    cls = module.__dict__.get(ext.class_name)
    path = ext.files.path(ext.source_rel)
    if not isinstance(cls, type) or cls.__module__ != module.__name__:
        raise LoadError(f"{path}:{ext.class_node.lineno}: {ext.class_name} is not the class defined in the file ({cls!r})")
    return cls


def _function(value) -> types.FunctionType:
    if isinstance(value, property):  # the getter runs on each read
        return value.fget
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value


def from_file(value, path: str, name: str):
    """The function the file defines under a decorator that wraps it (`@contextmanager`,
    `functools.wraps`): the one whose code is the file's `def name`, found through `__wrapped__`
    (the wrapper may be defined in the same file)."""
    seen = 0
    while not (isinstance(value, types.FunctionType) and value.__code__.co_filename == path
               and value.__code__.co_name == name) and hasattr(value, "__wrapped__") and seen < 8:
        value, seen = value.__wrapped__, seen + 1
    return value


def _method_units(ext: Extraction, cls: type, modules: dict) -> list[Unit]:
    out = []
    if ext.method is not None:
        role = {"wrapper": "wrapper", "static": "static method"}.get(ext.shape, "method")
        fn = from_file(_function(_looked_up(ext, cls, modules)), ext.files.path(ext.method_rel), ext.method_name)
        if not isinstance(fn, types.FunctionType) or fn.__code__.co_filename != ext.files.path(ext.method_rel):
            raise LoadError(f"{ext.files.path(ext.method_rel)}:{ext.method.lineno}: {ext.class_name}.{ext.method_name} "
                            f"is not the function from the file ({fn!r})")
        out.append(Unit(role, fn.__code__, ext.method, ext.method_rel))
    if ext.function is not None:
        fn = from_file(modules[ext.target_rel].__dict__.get(ext.function.name), ext.files.path(ext.target_rel),
                        ext.function.name)
        if not isinstance(fn, types.FunctionType) or fn.__code__.co_filename != ext.files.path(ext.target_rel):
            raise LoadError(f"{ext.files.path(ext.target_rel)}:{ext.function.lineno}: {ext.function.name} is not the "
                            f"function from the file ({fn!r})")
        out.append(Unit("function", fn.__code__, ext.function, ext.target_rel))
    return out


def _super_units(ext: Extraction, modules: dict) -> list[Unit]:
    """The methods `super().METHOD(...)` reaches from the method, in turn, on an instance of CLASS
    (each the next class of CLASS's order defining it, in the checkout): run for real from the
    bases' modules, their branches measured and their reads inputs, as the method's own
    (`super().__init__(...)` runs the base's construction)."""
    if ext.method is None or ext.method_kind == "static":
        return []
    where = f"{ext.files.path(ext.source_rel)}:{ext.class_node.lineno}"
    hierarchy = Hierarchy(ext.files, ext.source_rel.split("/")[0])
    current = ext.inherited.qualname if ext.inherited is not None else f"{module_name(ext.source_rel)}.{ext.class_name}"
    node, out = ext.method, []
    try:
        while calls_super(node, ext.method_name) and len(out) < 16:
            found = hierarchy.defining_class(ext.source_rel, ext.class_name, ext.method_name, where, after=current)
            if found is None:
                break
            module = modules.get(found.rel)
            owner = module.__dict__.get(found.class_node.name) if module is not None else None
            fn = _function(owner.__dict__.get(ext.method_name)) if isinstance(owner, type) else None
            fn = from_file(fn, ext.files.path(found.rel), ext.method_name)
            if not isinstance(fn, types.FunctionType) or fn.__code__.co_filename != ext.files.path(found.rel):
                raise LoadError(f"{ext.files.path(found.rel)}:{found.member.lineno}: {found.name}.{ext.method_name}, "
                                f"which super().{ext.method_name} reaches, is not the function from the file ({fn!r})")
            out.append(Unit(f"super {found.name}.{ext.method_name}", fn.__code__, found.member, found.rel))
            current, node = found.qualname, found.member
    except InheritanceError as e:
        raise LoadError(str(e)) from None
    return out


def calls_super(fn: ast.AST, name: str) -> bool:
    """Whether `fn`'s body calls `super().NAME(...)` (`super()` without arguments)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
               and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name)
               and n.func.value.func.id == "super" and not n.func.value.args for n in ast.walk(fn))


def _looked_up(ext: Extraction, cls: type, modules: dict):
    """CLASS's own method, or, when it inherits it, what Python's lookup on the loaded class finds:
    it must be the defining class's, as the checkout tells it (a base the loader stubbed, or another
    class of the order defining it at run time, is refused)."""
    if ext.inherited is None:
        return cls.__dict__.get(ext.method_name)
    owner = next((c for c in cls.__mro__ if ext.method_name in c.__dict__), None)
    module = modules.get(ext.inherited.rel)
    expected = module.__dict__.get(ext.inherited.class_node.name) if module is not None else None
    if owner is None or owner is not expected:
        raise LoadError(f"{ext.files.path(ext.method_rel)}:{ext.method.lineno}: {ext.class_name} inherits "
                        f"{ext.method_name} from {ext.inherited.name} as the checkout reads it, but the loaded class "
                        f"finds it in {owner!r}: not proven")
    return owner.__dict__[ext.method_name]


def _compile_entry(ext: Extraction, module: types.ModuleType
                   ) -> tuple[types.FunctionType, list[str], dict[str, list[tuple]], ast.AST]:
    """A function `(self, *free names)` whose body is the first call site's statements, line
    numbers kept, its call also passing what the world gives the parameters it leaves at their
    default (`defaults.py`: then a last parameter PASSED); without a call site in the class, one
    calling `self.METHOD(...)` with the method's parameters."""
    defaults: dict[str, list[tuple]] = {}
    if ext.call_sites:
        site = ext.call_sites[0]
        body, args = _receiver_bound(ext, site) + site.statements, list(site.free_names)
        called = ext.method if site.calls == "method" else ext.function
        if called is not None and isinstance(site.call, ast.Call):  # (a property's read passes nothing)
            left = unpassed(called, site.call, site.calls == "method" and ext.method_kind == "instance")
            defaults = {name: default_options(d) for name, d in left.items() if name not in args}
        if defaults:
            body = passing_defaults(body, site.call)
    else:
        if ext.method is None:  # (an instance, class or static method is called directly on the instance)
            raise LoadError(f"{ext.files.path(ext.source_rel)}:{ext.class_node.lineno}: nothing in {ext.class_name} "
                            f"calls {ext.method_name}, and it is no method of the class to call directly")
        body, args = _direct_call(ext)
    # a call site in an async method (`await self.m(...)`): the entry is a coroutine function, driven to its end
    awaits = any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for s in body for n in ast.walk(s))
    if _leaves_an_enclosing_loop(body):  # `... : continue` inside the method's loop: the entry's one pass ends
        body = _one_pass(body, module)
    live = _live_out(ext, body) if ext.call_sites else []
    if live:  # falling through, the entry returns the method's locals its statements bound for later
        end = body[-1].end_lineno + 1
        body = [*body, ast.Return(ast.Tuple([ast.Name(FELL_THROUGH, ast.Load()), ast.Call(
            ast.Name("locals", ast.Load()), [], [])], ast.Load()), lineno=end, col_offset=0, end_lineno=end,
            end_col_offset=0)]
        ast.fix_missing_locations(body[-1])
        module.__dict__[FELL_THROUGH] = FELL_THROUGH_MARK
    fn = (ast.AsyncFunctionDef if awaits else ast.FunctionDef)(
        name=ENTRY,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in ["self", *args, *([PASSED] if defaults else [])]],
                           kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=body, decorator_list=[], returns=None, type_params=[],
    )
    ast.copy_location(fn, body[0])
    fn.end_lineno, fn.end_col_offset = body[-1].end_lineno, body[-1].end_col_offset
    for a in fn.args.args:
        ast.copy_location(a, body[0])
    namespace: dict = {}
    code = compile(ast.Module(body=[fn], type_ignores=[]), ext.files.path(ext.source_rel), "exec")
    exec(code, module.__dict__, namespace)
    entry = driven(namespace[ENTRY]) if awaits else namespace[ENTRY]
    entry.live_out = live
    return entry, args, defaults, ast.Module(body=body[:-1] if live else body, type_ignores=[])


def _receiver_bound(ext: Extraction, site) -> list[ast.stmt]:
    """The statement binding the enclosing method's receiver when it is not named `self`: `cls`
    of a class method is the instance's class (`cls._partition_cores(...)`), another name of an
    instance method the instance. Placed at the call site's first line."""
    enclosing = next((n for n in ext.class_node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.name == site.method), None)
    if enclosing is None or not enclosing.args.args:
        return []
    decorators = {d.id for d in enclosing.decorator_list if isinstance(d, ast.Name)}
    if "staticmethod" in decorators or enclosing.args.args[0].arg == "self":
        return []
    receiver = enclosing.args.args[0].arg
    value = "type(self)" if "classmethod" in decorators else "self"
    stmt = ast.parse(f"{receiver} = {value}").body[0]
    return [ast.increment_lineno(stmt, site.statements[0].lineno - 1)]


def _direct_call(ext: Extraction) -> tuple[list[ast.stmt], list[str]]:
    """`return self.METHOD(p, ..., k=k)` at the method's line, and the parameters it passes."""
    params = ext.method.args
    positional = [a.arg for a in params.posonlyargs + params.args][_bound(ext):]
    keywords = [a.arg for a in params.kwonlyargs]
    call = ", ".join(positional + [f"{k}={k}" for k in keywords])
    awaited = "await " if isinstance(ext.method, ast.AsyncFunctionDef) else ""  # an async method's coroutine run
    body = ast.parse(f"return {awaited}self.{ext.method_name}" + ("" if ext.is_property else f"({call})")).body
    return ast.increment_lineno(ast.Module(body=body, type_ignores=[]), ext.method.lineno - 1).body, positional + keywords


def _bound(ext: Extraction) -> int:
    """How many leading parameters the call binds (self or cls: 1; a static method's: none)."""
    return 0 if ext.method_kind == "static" else 1


def _direct_entry(ext: Extraction, module: types.ModuleType) -> tuple[types.FunctionType, dict[str, list[tuple] | None]]:
    """`(self, keywords)` calling `self.METHOD(**keywords)` at the method's line, and its
    parameters: those with a default -> their options (not passed first), the others -> None
    (the world's own options for `arg:NAME`)."""
    a = ext.method.args
    named = [*a.args[_bound(ext):], *a.kwonlyargs]
    defaults = dict(zip([p.arg for p in a.args][len(a.args) - len(a.defaults):], a.defaults))
    defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
    params = {p.arg: default_options(defaults[p.arg]) if p.arg in defaults else None for p in named}
    called = "" if ext.is_property else f"(**{PASSED})"  # a property is read
    is_async = isinstance(ext.method, ast.AsyncFunctionDef)
    body = ast.parse(f"{'async ' if is_async else ''}def {ENTRY}(self, {PASSED}):\n"
                     f"    return {'await ' if is_async else ''}self.{ext.method_name}{called}")
    ast.increment_lineno(body, ext.method.lineno - 1)
    namespace: dict = {}
    exec(compile(body, ext.files.path(ext.source_rel), "exec"), module.__dict__, namespace)
    return (driven(namespace[ENTRY]) if is_async else namespace[ENTRY]), params


def _calls_on_some_paths(ext: Extraction) -> bool:
    """Whether the driven call site calls the method (as a method of the instance, which both
    versions keep) only on some paths of its statements: in a branch, right of `and`/`or`, in a
    conditional expression, a loop, a comprehension, a handler. Its guard then keeps inputs away
    that the method's other callers may pass (`... or self.size <= 0 or self.limit() > n`)."""
    if not ext.call_sites or ext.method is None or ext.method_kind != "instance":
        return False
    site = ext.call_sites[0]
    if site.calls != "method" or ext.method.args.posonlyargs:
        return False

    def reach(node: ast.AST, guarded: bool) -> bool | None:
        if node is site.call:
            return guarded
        for name, value in ast.iter_fields(node):
            for i, child in enumerate(value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    found = reach(child, guarded or _on_some_paths(node, name, i))
                    if found is not None:
                        return found
        return None

    return any(reach(s, False) for s in site.statements)


def _on_some_paths(node: ast.AST, name: str, index: int) -> bool:
    """Whether `node`'s field `name` (item `index`) runs only on some paths through `node`."""
    if isinstance(node, (ast.If, ast.While, ast.For, ast.AsyncFor, ast.IfExp)):
        return name in ("body", "orelse")
    if isinstance(node, ast.BoolOp):
        return index > 0
    if isinstance(node, ast.Compare):
        return name == "comparators" and index > 0
    if isinstance(node, ast.Try):
        return name in ("handlers", "orelse")
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        return name in ("elt", "key", "value") or (name == "generators" and index > 0)
    if isinstance(node, ast.comprehension):
        return name == "ifs"
    return isinstance(node, (ast.Match, ast.Lambda))


HOW = "__equivalence_how__"  # how the one pass ended: "continue", "break", or the end of the statements
LEFT = "__equivalence_left__"  # records it as an event: which way the call site leaves its loop is behaviour


def _one_pass(body: list[ast.stmt], module: types.ModuleType) -> list[ast.stmt]:
    """`body` in a loop of one pass, the way it left that pass recorded (`continue` and falling
    through end the pass alike: only the event tells the method's loop went on or not)."""
    first, last = body[0], body[-1]
    wrapped = ast.parse(f"{HOW} = None\n"
                        f"for {ONCE} in (0,):\n"
                        f"    {HOW} = 'continue'\n"
                        f"    pass\n"
                        f"    {HOW} = 'end of its statements'\n"
                        f"else:\n"
                        f"    {ONCE} = None\n"
                        f"{LEFT}({HOW}, {ONCE})\n").body  # no branch of its own: coverage measures the call site
    for node in wrapped:
        for n in ast.walk(node):
            if hasattr(n, "lineno"):
                n.lineno, n.col_offset = first.lineno, first.col_offset
                n.end_lineno, n.end_col_offset = last.end_lineno, last.end_col_offset
    loop = wrapped[1]
    loop.body[1:2] = body
    module.__dict__[LEFT] = _record_left
    return wrapped


def _record_left(how: str, once) -> None:
    """`once` is None when the pass ended without `break` (the loop's `else` ran)."""
    from equivalence.engine.world.standins import CURRENT

    if CURRENT:
        CURRENT[-1].events.append(("left the loop around the call site by", how if once is None else "break"))


def _leaves_an_enclosing_loop(body: list[ast.stmt]) -> bool:
    """Whether the statements `continue` or `break` a loop around them (not one of their own)."""
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Continue, ast.Break)):
            return True
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            todo += n.orelse  # an else clause belongs to the loop around
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo += [c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt) or hasattr(c, "body")]
    return False


def _live_out(ext: Extraction, statements: list[ast.stmt]) -> list[str]:
    """The locals the call site's statements bind that the enclosing method reads elsewhere (after
    them, or before them in a loop): what the call hands on to the rest of the method
    (`reserved_mem += self.reserve_for_graph_mb()`, and `reserved_mem` used further down)."""
    site = ext.call_sites[0]
    method = next((f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and f.name == site.method), None)
    if method is None:
        return []
    inside = {id(n) for s in statements for n in ast.walk(s)}
    bound = {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = {n.id for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in inside}
    return sorted(bound & read)


def _caller(ext: Extraction) -> Caller:
    """From the caller of the extracted function (the wrapper, else the call site): what it
    applies after the function returns, and what its arguments read and call up front."""
    out = Caller()
    if ext.call is None:
        return out
    statements = list(ext.wrapper.body) if ext.wrapper is not None else [ext.call.statement,
                                                                           *ext.call.result.follow_up]
    arguments = [*ext.call.positional, *ext.call.keyword_nodes.values()]
    inside = {id(n) for a in arguments for n in ast.walk(a)}
    for stmt in statements:
        for n in ast.walk(stmt):
            if id(n) in inside:
                continue
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for t in ast.walk(target):
                        chain = attribute_chain(t) if isinstance(t, ast.Attribute) else None
                        if chain:
                            out.applied.add(("set", chain))
            elif isinstance(n, ast.Call) and n is not ext.call.node and attribute_chain(n.func):
                out.applied.add(("call", attribute_chain(n.func)))
    for a in arguments:
        for n in ast.walk(a):
            chain = attribute_chain(n) if isinstance(n, ast.Attribute) else None
            if chain:
                out.eager.add(chain)
            if isinstance(n, ast.Call) and attribute_chain(n.func):
                out.eager_calls.add(attribute_chain(n.func))
    return out
