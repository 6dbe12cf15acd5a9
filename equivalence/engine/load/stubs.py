"""Stand-ins for the sglang modules (and missing third-party ones) the code under test imports.

A stub is permissive while a version is being imported, because sglang's module-level code
runs with stubbed names (`_is_hip = is_hip()`, `if _is_npu: ...`, stub class bases,
decorators).  Once the version is loaded the stubs are *armed*: any use of a stub value by the
code under test raises `StubTouched` naming it, which the harness reports as "input not
modelled" and never as a pass.

Import-time rules, each chosen so that import succeeds without guessing a real answer:
- `bool(stub)` is False while importing (so `if _is_npu:` skips platform set-up);
  armed, it raises.
- calling a stub with a single function or class returns that argument unchanged (a stubbed
  decorator keeps the real method); any other call returns a new stub, a call with a lambda too
  (a decorator factory given a predicate, `@register(lambda arch: ...)`: the stub it returns then
  keeps the decorated function).
- `isinstance(x, stub)` / `issubclass` hold while importing: a module-level
  `assert isinstance(MoriEPLLDispatchOutput, DispatchOutput)` checks the real package's typing,
  which holds there; armed, they raise.
- a stub used as a class base contributes a `StubBase` class (see `__mro_entries__`), which
  takes the class keywords the real base would (`class C(msgspec.Struct, frozen=True)`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types


class StubTouched(Exception):
    """The code under test used a value that only exists as a stub: the input is not modelled."""

    def __init__(self, name: str, use: str):
        super().__init__(f"stub {name} used ({use}) by the code under test")
        self.stub_name = name
        self.use = use


class StubScope:
    """All stubs created while importing one version; armed once the import is done.

    While importing, a stub compared with a literal (`mode not in ("off", "record")`) records
    it (`compared`): module-level code that validates a stubbed value (an environment variable
    read through sglang's `envs`) rejects every stub, so the import is retried with such stubs
    replaced by a literal they were compared with (`pretend`: what that code accepts)."""

    def __init__(self, label: str, pretend: dict[str, object] | None = None):
        self.label = label
        self.armed = False
        self.base_misses: list[str] = []  # attribute names looked up through a stub base
        self.compared: dict[str, list] = {}  # stub name -> literals it was compared with while importing
        self.pretend = dict(pretend or {})  # stub name -> the literal it is, this import
        self.skipped: list[str] = []  # "file:line: why": module-level calls on stubs left out (version.py)


LITERALS = (str, int, float, bool, type(None))


def stub(name: str, scope: StubScope):
    """The stub for `name`, or the literal the import takes it to be (StubScope.pretend)."""
    if name in scope.pretend:
        return scope.pretend[name]
    return StubValue(name, scope)


def _compared(stub_value: "StubValue", other) -> None:
    scope = object.__getattribute__(stub_value, "_scope")
    if not scope.armed and type(other) in LITERALS:
        found = scope.compared.setdefault(object.__getattribute__(stub_value, "_name"), [])
        if other not in found:
            found.append(other)


def _guard(stub: "StubValue", use: str) -> None:
    if object.__getattribute__(stub, "_scope").armed:
        raise StubTouched(object.__getattribute__(stub, "_name"), use)


def _import_only(use: str, result):
    def method(self, *args, **kwargs):
        _guard(self, use)
        return result(self, *args) if callable(result) else result

    method.__name__ = use
    return method


def _child(self, *args):
    return stub(f"{object.__getattribute__(self, '_name')}(...)", object.__getattribute__(self, "_scope"))


class StubValue:
    """Any name imported from a stubbed module."""

    __slots__ = ("_name", "_scope", "_children")

    def __init__(self, name: str, scope: StubScope):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_scope", scope)
        object.__setattr__(self, "_children", {})

    def __repr__(self) -> str:  # safe: reports name stubs
        return f"<stub {object.__getattribute__(self, '_name')}>"

    def __getattr__(self, attr: str):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        _guard(self, f"attribute .{attr}")
        children = object.__getattribute__(self, "_children")
        if attr not in children:
            name = f"{object.__getattribute__(self, '_name')}.{attr}"
            children[attr] = stub(name, object.__getattribute__(self, "_scope"))
        return children[attr]

    def __setattr__(self, attr, value):
        _guard(self, f"attribute .{attr} set")
        object.__getattribute__(self, "_children")[attr] = value

    def __call__(self, *args, **kwargs):
        _guard(self, "call")
        if len(args) == 1 and not kwargs and isinstance(args[0], (type, types.FunctionType)) \
                and getattr(args[0], "__name__", "") != "<lambda>":  # `@` decorates a def or class, never a lambda
            return args[0]
        return _child(self)

    def __bool__(self):
        _guard(self, "truth value")
        return False

    def __mro_entries__(self, bases):
        _guard(self, "class base")
        return (make_stub_base(object.__getattribute__(self, "_name"), object.__getattribute__(self, "_scope")),)

    def __hash__(self):
        _guard(self, "hash")
        return id(self)

    def __eq__(self, other):
        _guard(self, "==")
        _compared(self, other)
        return self is other

    def __ne__(self, other):
        _guard(self, "!=")
        _compared(self, other)
        return self is not other

    def __instancecheck__(self, obj):
        _guard(self, "isinstance")
        return True  # while importing: `assert isinstance(C, Protocol)` of the real package holds

    def __subclasscheck__(self, cls):
        _guard(self, "issubclass")
        return True

    def __iter__(self):
        _guard(self, "iteration")
        return iter(())

    def __len__(self):
        _guard(self, "len")
        return 0

    def __contains__(self, item):
        _guard(self, "in")
        return False

    def __format__(self, spec):
        _guard(self, "format")
        return repr(self)

    def __str__(self):
        _guard(self, "str")
        return repr(self)

    __getitem__ = _import_only("[]", _child)
    __lt__ = _import_only("<", False)
    __le__ = _import_only("<=", False)
    __gt__ = _import_only(">", False)
    __ge__ = _import_only(">=", False)
    __add__ = __radd__ = _import_only("+", _child)
    __sub__ = __rsub__ = _import_only("-", _child)
    __mul__ = __rmul__ = _import_only("*", _child)
    __truediv__ = __rtruediv__ = _import_only("/", _child)
    __or__ = __ror__ = _import_only("|", _child)
    __and__ = __rand__ = _import_only("&", _child)
    __neg__ = _import_only("unary -", _child)
    __int__ = _import_only("int()", 0)
    __index__ = _import_only("index", 0)
    __float__ = _import_only("float()", 0.0)
    __enter__ = _import_only("with", _child)
    __exit__ = _import_only("with exit", False)


def is_stub(value) -> bool:
    return type(value) is StubValue


# attribute -> (instance, the AttributeError its lookup raised), left by the traced class's
# __getattribute__ (world/standins.py) for the stub base's __getattr__, which Python calls next
GETTER_RAISED: dict[str, tuple[object, AttributeError]] = {}  # (cleared past 256 names: see standins)


def _is_descriptor(cls: type, attr: str) -> bool:
    """`attr` is found on `cls` as a descriptor with a getter (a property): its lookup runs code."""
    for klass in cls.__mro__:
        if attr in vars(klass):
            return hasattr(type(vars(klass)[attr]), "__get__") and hasattr(type(vars(klass)[attr]), "__set__")
    return False


def make_stub_base(name: str, scope: StubScope) -> type:
    """A stand-in for a stubbed class base, e.g. `ModelRunnerKVCacheMixin`: it takes any class
    keywords, and its constructor, reached by the code under test, is a stub's use.

    Lookups that miss on the real class fall through to `__getattr__`, which records the name
    (so the harness can tell an unmodelled mixin member from an input it made absent) and then
    raises AttributeError exactly as a plain missing attribute would.
    """

    def __getattr__(self, attr):
        raised = GETTER_RAISED.pop(attr, None)
        if raised is not None and raised[0] is self and _is_descriptor(type(self), attr):
            raise raised[1]  # a property's getter raised it: as without this __getattr__
        scope.base_misses.append(attr)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'", name=attr, obj=self)

    def __init_subclass__(cls, **options):  # class keywords the real base takes (`msgspec.Struct, frozen=True`)
        super(base, cls).__init_subclass__()

    def __init__(self, *args, **kwargs):  # what the real base's constructor does is not modelled
        if scope.armed:
            raise StubTouched(name, "constructor")

    base = type(f"StubBase[{name}]", (), {"__getattr__": __getattr__, "__init__": __init__, "__stub_base__": name,
                                           "__init_subclass__": classmethod(__init_subclass__)})
    return base


class StubModule(types.ModuleType):
    """A module whose every attribute is a stub value (or a submodule loaded by the finder)."""

    def __init__(self, name: str, scope: StubScope):
        super().__init__(name)
        self.__path__ = []  # a package, so that submodules can be imported
        self.__stub_scope__ = scope

    def __getattr__(self, attr: str):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        value = stub(f"{self.__name__}.{attr}", self.__stub_scope__)
        setattr(self, attr, value)
        return value


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves stub modules for `prefixes` (first on sys.meta_path), or as a last resort for a
    missing module that a module of `importers` imports: a real third-party package's own
    imports (`try: import flint` in sympy) meet the ImportError they expect, never a stub."""

    def __init__(self, scope: StubScope, prefixes: tuple[str, ...] | None, importers: tuple[str, ...] = ()):
        self.scope = scope
        self.prefixes = prefixes
        self.importers = importers
        self.served: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        if self.prefixes is not None and not fullname.startswith(self.prefixes):
            return None
        if self.prefixes is None and not _importer().startswith(self.importers):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        self.served.append(spec.name)
        return StubModule(spec.name, self.scope)

    def exec_module(self, module):
        pass


def _importer() -> str:
    """The `__name__` of the module whose code runs the import in progress (the first frame
    outside the import machinery)."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or frame.f_globals.get("__name__", "").startswith("importlib")):
        frame = frame.f_back
    return "" if frame is None else frame.f_globals.get("__name__", "")


_import_lock = threading.RLock()


class PrivateModules:
    """Install stub finders and extra modules into sys.modules only while importing one version.

    On exit, every module imported under the stub finders is removed and the previous
    sys.modules entries with the same names are restored, so nothing of one version is
    visible to the next one (the loaded functions keep their own `__globals__`).
    """

    def __init__(self, scope: StubScope, prefixes: tuple[str, ...] = ("sglang",)):
        self.first = StubFinder(scope, prefixes)
        self.last = StubFinder(scope, None, importers=prefixes)

    def __enter__(self):
        _import_lock.acquire()
        self.saved = dict(sys.modules)
        for name in self.saved:  # another sglang (installed, or a previous version) must not answer
            if name == "sglang" or name.startswith("sglang."):
                del sys.modules[name]
        sys.meta_path.insert(0, self.first)
        sys.meta_path.append(self.last)
        return self

    def __exit__(self, *exc):
        sys.meta_path.remove(self.first)
        sys.meta_path.remove(self.last)
        # Drop every sglang module and stub of this version; real third-party modules that
        # got imported for the first time (torch submodules) hold no version data and stay.
        ours = set(self.first.served) | set(self.last.served)
        for name in list(sys.modules):
            if name in ours or name == "sglang" or name.startswith("sglang."):
                del sys.modules[name]
        for name, module in self.saved.items():
            if name == "sglang" or name.startswith("sglang."):
                sys.modules[name] = module
        _import_lock.release()
        return False
