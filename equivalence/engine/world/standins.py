"""Stand-ins: objects that answer the code under test from the current world (world.py).

A `StandIn` for key K is an object with every attribute (`K.name`), every item (`K[k]`) and
every call (`K(args)`, recorded as an event); it is truthy, hashable (a lookup in a table
records that K needs the table's keys) and prints as `<K>`, the same in both versions. Anything else a plain object cannot do either (ordering, arithmetic,
len, iteration, `in`, int(), a format spec) raises the TypeError a plain object raises, after
recording which kind of value K needs (a demand), so that the next configurations give K
such values. Attribute writes and item writes are events, and are read back in the same run.

`traced_class` builds the instance under test: reads of names the run did not write are the
world's `self.NAME` (the class's other methods included: their calls are events, never run);
only the method under test (and the wrapper, the static method) are looked up for real.
`OsProxy` stands for the `os` module: `os.environ` / `os.getenv` read keys `env:NAME`;
`PartlyRealModule` for `torch`: real but for its submodules that answer from the process and
its devices (`torch.distributed`, `torch.cuda`), the world's keys of their name.
"""

from __future__ import annotations

import os
import types

from equivalence.engine.load.inputs import WORLD_SUBMODULES
from equivalence.engine.world.world import ABSENT, OPAQUE, STANDIN, Absent, World, canon, canon_args, value

CURRENT: list[World] = []  # the world of the run in progress (one at a time)


def world() -> World:
    return CURRENT[-1]


def _k(self) -> str:
    return object.__getattribute__(self, "_standin_key")


def _w(self) -> World:
    return object.__getattribute__(self, "_standin_world")


def _refuse(use: str, kind: str, message: str, arg_of=None):
    """A dunder that records a demand and then fails as a plain object would."""

    def method(self, *args):
        arg = args[0] if args else None
        _w(self).demand(_k(self), kind, arg if arg_of is None else arg_of(arg))
        raise TypeError(message.format(t=type(self).__name__, o=type(arg).__name__))

    method.__name__ = use
    return method


def _not_implemented(kind: str):
    def method(self, other):
        _w(self).demand(_k(self), "str" if isinstance(other, str) else kind, other)
        return NotImplemented

    return method


def _str_affixes(name: str, args: tuple) -> list[str] | None:
    """Strings a str method call on a stand-in needs: `.split(sep)` -> a value holding sep."""
    strings = [a for a in args if isinstance(a, str)]
    if name in ("split", "rsplit", "partition", "rpartition"):
        sep = strings[0] if strings else " "
        return [f"a{sep}b", "a"]
    if name == "startswith":
        return [s + x for s in strings for x in ("", "x")] or ["x"]
    if name == "endswith":
        return [x + s for s in strings for x in ("", "x")] or ["x"]
    return None


STR_METHODS = {"split", "rsplit", "partition", "rpartition", "startswith", "endswith", "lower", "upper",
               "strip", "lstrip", "rstrip", "casefold", "isdigit", "isnumeric", "isalpha", "encode"}


class StandIn:
    __slots__ = ("_standin_key", "_standin_world")

    def __init__(self, key: str, world_: World):
        object.__setattr__(self, "_standin_key", key)
        object.__setattr__(self, "_standin_world", world_)

    def __repr__(self) -> str:
        return f"<{_k(self)}>"

    __str__ = __repr__

    def __format__(self, spec):
        if spec:
            _w(self).demand(_k(self), "number")
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return repr(self)

    def __hash__(self):
        # looked up in a dict or set: the key needs the keys of the code's tables (inputs.key_pool)
        _w(self).demand(_k(self), "key")
        return hash(_k(self))

    def __bool__(self):
        _w(self).demand(_k(self), "truth")
        return True

    def __eq__(self, other):
        _w(self).demand(_k(self), "eq", other)
        return self is other

    def __ne__(self, other):
        _w(self).demand(_k(self), "eq", other)
        return self is not other

    def _standin_child(self, child: str):
        """The value of a child key: what the run wrote there, else the world's (raises Absent)."""
        w = _w(self)
        w.touched.add(_k(self))
        return w.written[child] if child in w.written else w.value(child)

    def __getattr__(self, name):
        if name[:2] == "__" == name[-2:]:
            raise AttributeError(name)
        w, key = _w(self), _k(self)  # (inlines _standin_child: the hottest path of a run)
        w.touched.add(key)
        child = f"{key}.{name}"
        try:
            return w.written[child] if child in w.written else w.value(child)
        except Absent:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self) from None

    def __setattr__(self, name, v):
        w, key = _w(self), _k(self)
        w.touched.add(key)
        w.events.append(("set", f"{key}.{name}", canon(v)))
        w.written[f"{key}.{name}"] = v

    def __delattr__(self, name):
        w, key = _w(self), _k(self)
        w.events.append(("del", f"{key}.{name}"))
        w.written[f"{key}.{name}"] = None

    def __call__(self, *args, **kwargs):
        w, key = _w(self), _k(self)
        w.touched.add(key)
        owner, _, name = key.rpartition(".")
        affixes = _str_affixes(name, args) if name in STR_METHODS else None
        if affixes is not None and owner:
            w.demand(owner, "str", affixes)
        described = canon_args(args, kwargs)
        w.events.append(("call", key, tuple(canon(a) for a in args),
                         tuple((k, canon(v)) for k, v in kwargs.items())))
        try:
            return w.value(f"{key}({described})")
        except Absent:  # a call result is never "absent": treat as None
            return None

    def __getitem__(self, item):
        try:
            return self._standin_child(f"{_k(self)}[{canon(item)!r}]")
        except Absent:
            raise KeyError(item) from None

    def __setitem__(self, item, v):
        w, key = _w(self), _k(self)
        w.touched.add(key)
        w.events.append(("setitem", key, canon(item), canon(v)))
        w.written[f"{key}[{canon(item)!r}]"] = v

    def __instancecheck__(self, obj):
        w, key = _w(self), _k(self)
        w.touched.add(key)
        return bool(w.value(f"isinstance({canon(obj)!r}, {key})", [value(False), value(True)]))

    def __enter__(self):
        _w(self).events.append(("enter", _k(self)))
        return _w(self).value(f"{_k(self)}.__enter__()")

    def __exit__(self, *exc):
        _w(self).events.append(("exit", _k(self), None if exc[0] is None else exc[0].__name__))
        return False

    __len__ = _refuse("__len__", "seq", "object of type '{t}' has no len()")
    __iter__ = _refuse("__iter__", "seq", "'{t}' object is not iterable")
    __contains__ = _refuse("__contains__", "contains", "argument of type '{t}' is not iterable", arg_of=lambda a: a)
    __index__ = _refuse("__index__", "number", "'{t}' object cannot be interpreted as an integer")
    __int__ = _refuse("__int__", "number", "int() argument must be a string, a bytes-like object or a real number, not '{t}'")
    __float__ = _refuse("__float__", "number", "float() argument must be a string or a real number, not '{t}'")
    __neg__ = _refuse("__neg__", "number", "bad operand type for unary -: '{t}'")
    __pos__ = _refuse("__pos__", "number", "bad operand type for unary +: '{t}'")
    __abs__ = _refuse("__abs__", "number", "bad operand type for abs(): '{t}'")
    __invert__ = _refuse("__invert__", "number", "bad operand type for unary ~: '{t}'")
    __lt__ = __le__ = __gt__ = __ge__ = _not_implemented("order")
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _not_implemented("number")
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _not_implemented("number")
    __mod__ = __rmod__ = __pow__ = __rpow__ = _not_implemented("number")
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _not_implemented("number")
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _not_implemented("number")


STANDIN.append(StandIn)


def traced_class(cls: type, real: set[str]) -> type:
    """A subclass of `cls` whose instances answer from the world (see the module docstring)."""

    methods = {name for klass in cls.__mro__ for name, v in vars(klass).items()
               if isinstance(v, (types.FunctionType, staticmethod, classmethod))}

    def __getattribute__(self, name):
        if name in real or name[:2] == "__" == name[-2:]:
            return object.__getattribute__(self, name)
        state = object.__getattribute__(self, "__dict__")
        if name in state:
            return state[name]
        try:
            # a method of the class is always there and callable: only the stand-in
            return CURRENT[-1].value(f"self.{name}", [OPAQUE] if name in methods else None)
        except Absent:
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}", name=name, obj=self) from None

    def __setattr__(self, name, v):
        world().events.append(("set", f"self.{name}", canon(v)))
        object.__setattr__(self, name, v)

    def __delattr__(self, name):
        world().events.append(("del", f"self.{name}"))
        object.__delattr__(self, name)

    namespace = {"__getattribute__": __getattribute__, "__setattr__": __setattr__,
                 "__delattr__": __delattr__, "__module__": cls.__module__}
    # Same name as the real class, so that messages naming it compare equal across versions.
    return type(cls.__name__, (cls,), namespace)


class Environ:
    """`os.environ` for the code under test: each variable is the world's `env:NAME` (absent by
    default); reads only (a write is an event)."""

    def _get(self, name):
        w = world()
        return w.value(f"env:{name}", [ABSENT, *(value(s) for s in w.strings)])

    def get(self, name, default=None):
        try:
            return self._get(name)
        except Absent:
            return default

    def __getitem__(self, name):
        try:
            return self._get(name)
        except Absent:
            raise KeyError(name) from None

    def __contains__(self, name):
        try:
            self._get(name)
        except Absent:
            return False
        return True

    def __setitem__(self, name, v):
        world().events.append(("setenv", name, canon(v)))

    def setdefault(self, name, default=None):
        try:
            return self._get(name)
        except Absent:
            world().events.append(("setenv", name, canon(default)))
            return default

    def pop(self, name, *default):
        world().events.append(("unsetenv", name))
        try:
            return self._get(name)
        except Absent:
            if default:
                return default[0]
            raise KeyError(name) from None


PURE_OS = {"path", "sep", "pathsep", "linesep", "curdir", "pardir", "extsep", "altsep", "name", "fspath"}


class OsProxy(types.ModuleType):
    """The `os` module as the code under test sees it: environment reads from the world,
    path arithmetic real, anything else (cpu_count, getpid, ...) the world's `os.NAME`."""

    def __init__(self):
        super().__init__("os")
        self.environ = Environ()

    def getenv(self, name, default=None):
        return self.environ.get(name, default)

    def __getattr__(self, name):
        if name in PURE_OS:
            return getattr(os, name)
        return world().value(f"os.{name}")


class PartlyRealModule(types.ModuleType):
    """A real module (`torch`) as the code under test sees it: real, except its submodules in
    WORLD_SUBMODULES, which are the world's keys of their name (`torch.distributed`)."""

    def __init__(self, real: types.ModuleType):
        super().__init__(real.__name__)
        self.__real = real

    def __getattr__(self, name):
        dotted = f"{self.__name__}.{name}"
        if dotted in WORLD_SUBMODULES:
            return world().value(dotted, [OPAQUE])
        return getattr(self.__real, name)
