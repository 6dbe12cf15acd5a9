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

import ast
import builtins
import ctypes
import functools
import os
import sys
import types

from equivalence.engine.load.inputs import WORLD_SUBMODULES
from equivalence.engine.load.stubs import GETTER_RAISED, StubTouched
from equivalence.engine.world.symbolic import DERIVED, DerivedFloat, DerivedInt
from equivalence.engine.world.world import (ABSENT, NONE, OPAQUE, STANDIN, TRACED, TRACERS, Absent, World, canon,
                                            canon_args, is_standin, value)

CURRENT: list[World] = []  # the world of the run in progress (one at a time)


def world() -> World:
    return CURRENT[-1]


def _k(self) -> str:
    return object.__getattribute__(self, "_standin_key")


REPEATS = 4  # a value derived by the same step this many times running is its own next one
FOLD_FROM = 64  # ... checked only for keys this long (the hot path of a run)


def derived(key: str, step: str) -> str:
    """The key of what `step` (`.next`, `['<slice>']`) gives from the value `key`: a loop walking
    a value (`text = text[1:]`, `node = node.next`) reaches a fixed point after REPEATS steps
    instead of a fresh input each turn, so the world can answer it (`""`, None) and the loop ends;
    without it every turn read a new input, its key one step longer, until the run was cut."""
    child = key + step
    if len(child) >= FOLD_FROM and child.endswith(step * (REPEATS + 1)):
        return key
    return child


def call_back(w: World, at: str, handed: list) -> None:
    """Each function the code under test made (a lambda, a local def) handed to a stand-in at the
    call `at`: the stand-in may call it, so the world does, there and once, with its required
    arguments the world's (`AT.called_back(N).M`); its calls and writes are events, its result or
    exception one more. Without it, code passed as a callback (`result.add_check(name, value,
    lambda _: ...)`) never ran and its branches were never compared."""
    for n, f in enumerate(handed):
        if type(f) is not types.FunctionType or f.__code__ not in w.own_code:
            continue
        code = f.__code__
        where = f"{at}.called_back({n})"
        positional = [_given(w, f"{where}.{m}") for m in range(code.co_argcount - len(f.__defaults__ or ()))]
        keywords = {name: _given(w, f"{where}.{name}") for name in code.co_varnames[code.co_argcount:
                    code.co_argcount + code.co_kwonlyargcount] if name not in (f.__kwdefaults__ or {})}
        w.events.append(("called back", where))
        try:
            returned = f(*positional, **keywords)
        except (StubTouched, Absent):
            raise  # not a behaviour of the code: the run says so
        except Exception as e:
            w.events.append(("called back raised", where, type(e).__name__, str(e)))
        else:
            w.events.append(("called back returned", where, canon(returned)))


def _given(w: World, key: str):
    try:
        return w.value(key)
    except Absent:
        return None


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


MAPPING_VIEWS = {"items", "keys", "values"}  # called on a stand-in: the key is wanted as a dict
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
        child = derived(key, f".{name}")
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
        elif name in MAPPING_VIEWS and owner and not args and not kwargs:
            w.demand(owner, "mapping")
        positional = tuple(canon(a) for a in args)
        keywords = tuple((k, canon(v)) for k, v in kwargs.items())
        w.events.append(("call", key, positional, keywords))
        described = ", ".join([repr(c) for c in positional] + [f"{k}={c!r}" for k, c in keywords])  # canon_args
        result = f"{key}({described})"
        if w.own_code:
            call_back(w, result, [*args, *kwargs.values()])
        caught = _caught_around(w, sys._getframe(1))
        if caught:  # called under `try: ... except E:`: the call may also raise E
            raises = [("raises", e) for e in caught]
            if result in w.domains.options:
                w.domains.grow(result, raises)
            else:
                w.domains.ensure(result, [OPAQUE, NONE, *raises])
        try:
            return w.value(result)
        except Absent:  # a call result is never "absent": treat as None
            return None

    def __await__(self):
        # awaited (`await client.fetch(...)`, the result of a call the world answers): the value
        # the await gives is an input of its own, as a call's result is
        w, key = _w(self), _k(self)
        w.touched.add(key)
        try:
            result = w.value(f"await {key}")
        except Absent:
            result = None
        return result
        yield  # a generator: `await` takes its return value, no event loop is needed

    def __getitem__(self, item):
        try:
            return self._standin_child(derived(_k(self), f"[{canon(item)!r}]"))
        except Absent:
            raise KeyError(item) from None

    def __setitem__(self, item, v):
        w, key = _w(self), _k(self)
        w.touched.add(key)
        w.events.append(("setitem", key, canon(item), canon(v)))
        w.written[f"{key}[{canon(item)!r}]"] = v

    @property
    def __class__(self):
        # `isinstance(x, list)` asks this (after type(x)): the code under test testing a type
        # gives the key values of the types it tests (_tested_types)
        w, key = _w(self), _k(self)
        tested = _tested_types(w)
        if tested:
            w.demand(key, "class", tested)
        return type(self)

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

    def __contains__(self, sub):
        w = _w(self)
        w.demand(_k(self), "contains", sub)
        if is_standin(sub):  # looked for in a container (`name in groups`): a name, which the container's options hold
            w.demand(_k(sub), "str", None)
        raise TypeError(f"argument of type '{type(self).__name__}' is not iterable")

    __index__ = _refuse("__index__", "number", "'{t}' object cannot be interpreted as an integer")
    __int__ = _refuse("__int__", "convert", "int() argument must be a string, a bytes-like object or a real number, not '{t}'")
    __float__ = _refuse("__float__", "convert", "float() argument must be a string or a real number, not '{t}'")
    __neg__ = _refuse("__neg__", "number", "bad operand type for unary -: '{t}'")
    __pos__ = _refuse("__pos__", "number", "bad operand type for unary +: '{t}'")
    __abs__ = _refuse("__abs__", "number", "bad operand type for abs(): '{t}'")
    __invert__ = _refuse("__invert__", "bitwise", "bad operand type for unary ~: '{t}'")
    __lt__ = __le__ = __gt__ = __ge__ = _not_implemented("order")
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _not_implemented("number")
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _not_implemented("number")
    __mod__ = __rmod__ = __pow__ = __rpow__ = _not_implemented("number")
    __and__ = __rand__ = __xor__ = __rxor__ = _not_implemented("bitwise")
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _not_implemented("number")

    def __or__(self, other):
        if _class_union(self, other, sys._getframe(1)):
            return ClassUnion((self, other))
        return _BITWISE_OR(self, other)

    def __ror__(self, other):
        if _class_union(self, other, sys._getframe(1)):
            return ClassUnion((other, self))
        return _BITWISE_OR(self, other)


_BITWISE_OR = _not_implemented("bitwise")


class ClassUnion:
    """`A | B` where a stand-in stands for a class (`isinstance(config, Qwen3NextConfig |
    Qwen3_5Config)`, the classes stubbed): isinstance and issubclass ask each member in turn, as
    they ask the members of a real union or of a tuple."""

    __slots__ = ("members",)

    def __init__(self, members: tuple):
        self.members = tuple(m for x in members for m in (x.members if isinstance(x, ClassUnion) else (x,)))

    def __or__(self, other):
        return ClassUnion((self, other))

    def __ror__(self, other):
        return ClassUnion((other, self))

    def __instancecheck__(self, obj):
        return any(isinstance(obj, m) for m in self.members)

    def __subclasscheck__(self, cls):
        return any(issubclass(cls, m) for m in self.members)

    def __repr__(self):
        return " | ".join(map(repr, self.members))


def _class_union(standin: "StandIn", other, frame) -> bool:
    """Whether `standin | other` is a union of classes: the other side is a class (or a union), or
    the `|` is written inside the second argument of an `isinstance`/`issubclass` call."""
    if isinstance(other, (type, types.UnionType, ClassUnion)):
        return True
    if not is_standin(other):
        return False
    w = _w(standin)
    if id(frame.f_globals) not in w.namespaces:
        return False
    return _in_class_test(w, frame.f_code, frame.f_lasti)


class SizedStandIn(StandIn):
    """A stand-in with n items (`KEY[i]`), truthy whatever n (world.sized)."""

    __slots__ = ("_standin_size",)

    def __init__(self, key: str, world_: World, size: int):
        super().__init__(key, world_)
        object.__setattr__(self, "_standin_size", size)

    def __len__(self):
        return object.__getattribute__(self, "_standin_size")

    def __iter__(self):
        w, key = _w(self), _k(self)
        return iter([w.value(f"{key}[{i}]") for i in range(len(self))])


def make_instance(cls: type, key: str, world_: World):
    """An instance of `cls` (a class of the code) made without `__init__`: what its class defines
    is real, any other attribute the world's `KEY.name` (world.instance)."""
    defined = {name for klass in cls.__mro__ for name in vars(klass)}

    def __getattribute__(self, name):
        if name in defined or name[:2] == "__" == name[-2:]:
            return object.__getattribute__(self, name)
        state = object.__getattribute__(self, "__dict__")
        if name in state:
            return state[name]
        try:
            return CURRENT[-1].value(f"{key}.{name}")
        except Absent:
            raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}", name=name, obj=self) from None

    try:
        traced = type(cls.__name__, (cls,), {"__getattribute__": __getattribute__, "__module__": cls.__module__})
        return object.__new__(traced)
    except TypeError:  # a class object.__new__ cannot make (a C type, slots in the way): a stand-in
        return StandIn(key, world_)


def _tested_types(w: World) -> tuple:
    """The types the code under test is testing a value against, when the current `__class__`
    lookup comes from its `isinstance(x, T)` (T a name, a module's attribute or a tuple of them)."""
    frame = sys._getframe(2)
    if id(frame.f_globals) not in w.namespaces:
        return ()
    node = _call_at(w, frame.f_code, frame.f_lasti)
    if node is None or not (isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2):
        return ()
    out = []
    for t in node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]:
        found = _resolve(t, frame)
        if isinstance(found, type):
            out.append(found)
    return tuple(out)


def _resolve(node: ast.AST, frame):
    """A name, or an attribute of a real module, as the frame sees it (None if anything else)."""
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, builtins.__dict__):
            if node.id in scope:
                return scope[node.id]
        return None
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, frame)
        if type(base) is types.ModuleType or type(base) is PartlyRealModule:  # `torch.dtype` as the code sees torch
            return getattr(base, node.attr, None)
    return None


_HANDLERS: dict[tuple, tuple] = {}  # (code, offset) -> the exception classes caught around it


def _caught_around(w: World, frame) -> tuple:
    """The exception classes (builtin ones, or classes of the code) that the `try` statements
    around the instruction `frame` is running catch, when that frame runs code under test."""
    if id(frame.f_globals) not in w.namespaces:
        return ()
    code, offset = frame.f_code, frame.f_lasti
    found = _HANDLERS.get((code, offset))
    if found is not None:
        return found
    tree = w.trees.get(code.co_filename)
    out = []
    position = _positions(code)[offset // 2] if tree is not None and 0 <= offset // 2 < len(_positions(code)) else None
    if position is not None and position[0] is not None:
        for node in _tries(tree):
            first, last = node.body[0], node.body[-1]
            if (first.lineno, first.col_offset) <= (position[0], position[2]) \
                    and (position[1], position[3]) <= (last.end_lineno, last.end_col_offset):
                for handler in node.handlers:
                    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                    for t in names:
                        cls = _resolve(t, frame) if t is not None else Exception
                        if isinstance(cls, type) and issubclass(Exception, cls):
                            cls = Exception  # `except BaseException:` catches what `except:` does
                        if isinstance(cls, type) and issubclass(cls, Exception) and cls not in out:
                            out.append(cls)
    if len(_HANDLERS) > 4096:
        _HANDLERS.clear()
    found = _HANDLERS[(code, offset)] = tuple(out)
    return found


_TRIES: dict[int, tuple] = {}
_POSITIONS: dict[types.CodeType, list] = {}


def _tries(tree: ast.Module) -> list[ast.Try]:
    cached = _TRIES.get(id(tree))
    if cached is None or cached[0] is not tree:
        while len(_TRIES) >= 8:
            _TRIES.pop(next(iter(_TRIES)))
        cached = _TRIES[id(tree)] = (tree, [n for n in ast.walk(tree) if isinstance(n, ast.Try) and n.handlers])
    return cached[1]


def _positions(code: types.CodeType) -> list:
    found = _POSITIONS.get(code)
    if found is None:
        if len(_POSITIONS) > 256:
            _POSITIONS.clear()
        found = _POSITIONS[code] = list(code.co_positions())
    return found


_CALLS: dict[int, tuple[ast.Module, dict[tuple, ast.Call]]] = {}  # id of a parsed module -> its calls by span


def _call_at(w: World, code: types.CodeType, offset: int) -> ast.Call | None:
    """The call expression the instruction at `offset` of `code` belongs to, in the source the
    version runs (world.trees: file -> its parsed text, a mutant's included)."""
    tree = w.trees.get(code.co_filename)
    if tree is None:
        return None
    positions = _positions(code)
    if not 0 <= offset // 2 < len(positions):
        return None
    line, end_line, col, end_col = positions[offset // 2]
    cached = _CALLS.get(id(tree))
    if cached is None or cached[0] is not tree:
        while len(_CALLS) >= 8:
            _CALLS.pop(next(iter(_CALLS)))
        cached = _CALLS[id(tree)] = (tree, {(n.lineno, n.end_lineno, n.col_offset, n.end_col_offset): n
                                            for n in ast.walk(tree) if isinstance(n, ast.Call)})
    return cached[1].get((line, end_line, col, end_col))


_CLASS_TESTS: dict[int, tuple[ast.Module, list[tuple]]] = {}  # id of a parsed module -> spans of class tests' 2nd args


def _in_class_test(w: World, code: types.CodeType, offset: int) -> bool:
    """Whether the instruction at `offset` lies inside the second argument of an `isinstance` or
    `issubclass` call, in the source the version runs."""
    tree = w.trees.get(code.co_filename)
    positions = _positions(code)
    if tree is None or not 0 <= offset // 2 < len(positions):
        return False
    line, end_line, col, end_col = positions[offset // 2]
    if line is None or col is None:
        return False
    cached = _CLASS_TESTS.get(id(tree))
    if cached is None or cached[0] is not tree:
        while len(_CLASS_TESTS) >= 8:
            _CLASS_TESTS.pop(next(iter(_CLASS_TESTS)))
        spans = [(a.lineno, a.col_offset, a.end_lineno, a.end_col_offset) for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "issubclass")
                 and len(n.args) == 2 for a in n.args[1:]]
        cached = _CLASS_TESTS[id(tree)] = (tree, spans)
    return any((l1, c1) <= (line, col) and (end_line, end_col) <= (l2, c2) for l1, c1, l2, c2 in cached[1])


class TracedStr(str):
    """A string the world gave a key, which still tells the world how the code uses it: compared
    with a literal (also after `.upper()`, `.strip()`, ...), tested for a prefix, a suffix or a
    substring, its key gets the values that tell those tests apart (the literal, its other case,
    an extension of it)."""

    def __new__(cls, v: str, key: str, world_: World):
        out = str.__new__(cls, v)
        out._key, out._world = key, world_
        return out

    __hash__ = str.__hash__

    def _demand(self, kind, arg):
        if CURRENT and CURRENT[-1] is self._world:
            self._world.demand(self._key, kind, arg, traced=True)

    def __eq__(self, other):
        if type(other) in (str, TracedStr):
            self._demand("eq", str.__str__(other))
        return str.__eq__(self, other)

    def __ne__(self, other):
        if type(other) in (str, TracedStr):
            self._demand("eq", str.__str__(other))
        return str.__ne__(self, other)

    def __contains__(self, sub):
        if type(sub) is str:
            self._demand("substr", sub)
        return str.__contains__(self, sub)

    # `float(s)`, `int(s)` of a str subclass ask these (its number slots): the key gets text that
    # reads as a number (a str declared where the code wants a number written: `["tse", "1.5"]`)
    def __float__(self):
        self._demand("numeric-text", None)
        return float(str.__str__(self))

    def __int__(self):
        self._demand("numeric-text", None)
        return int(str.__str__(self))

    def startswith(self, prefix, *args):
        self._demand("str", _str_affixes("startswith", (prefix,) if isinstance(prefix, str) else tuple(prefix)))
        return str.startswith(self, prefix, *args)

    def endswith(self, suffix, *args):
        self._demand("str", _str_affixes("endswith", (suffix,) if isinstance(suffix, str) else tuple(suffix)))
        return str.endswith(self, suffix, *args)

    def split(self, sep=None, maxsplit=-1):
        if isinstance(sep, str) and sep:
            self._demand("substr", sep)
        return str.split(self, sep, maxsplit)

    def _same_key(self, v: str) -> "TracedStr":
        return TracedStr(v, self._key, self._world)

    def upper(self):
        return self._same_key(str.upper(self))

    def lower(self):
        return self._same_key(str.lower(self))

    def casefold(self):
        return self._same_key(str.casefold(self))

    def strip(self, *args):
        return self._same_key(str.strip(self, *args))

    def lstrip(self, *args):
        return self._same_key(str.lstrip(self, *args))

    def rstrip(self, *args):
        return self._same_key(str.rstrip(self, *args))


def _number_tracer(plain: type, derived: type):
    class Traced(derived):
        """A number the world gave a key, which still tells the world what the code compares it
        with (its key gets that value's neighbours), and, as a variable of the run's path, what
        the code computed from it and compared (symbolic.py)."""

        def __new__(cls, v, key: str, world_: World):
            out = plain.__new__(cls, v)
            out._key, out._world = key, world_
            out._expr = ("var", key, "int" if plain is int else "real")
            return out

        __hash__ = plain.__hash__

        def _on_compare(self, other):
            if type(other) in (int, float) and CURRENT and CURRENT[-1] is self._world:
                self._world.demand(self._key, "order", other, traced=True)

    Traced.__name__ = Traced.__qualname__ = f"Traced{plain.__name__.capitalize()}"
    return Traced


TracedInt = _number_tracer(int, DerivedInt)
TracedFloat = _number_tracer(float, DerivedFloat)

STANDIN.extend([StandIn, SizedStandIn, make_instance])
TRACERS.update({str: TracedStr, int: TracedInt, float: TracedFloat})
TRACED.update({TracedStr: str, TracedInt: int, TracedFloat: float, **DERIVED})


def traced_class(cls: type, real: set[str]) -> type:
    """A subclass of `cls` whose instances answer from the world (see the module docstring)."""

    methods = {name for klass in cls.__mro__ for name, v in vars(klass).items()
               if isinstance(v, (types.FunctionType, staticmethod, classmethod))}

    def __getattribute__(self, name):
        if name in real or name[:2] == "__" == name[-2:]:
            try:
                return object.__getattribute__(self, name)
            except AttributeError as e:  # a stubbed base's __getattr__ comes next: it re-raises a getter's
                if len(GETTER_RAISED) > 256:
                    GETTER_RAISED.clear()
                GETTER_RAISED[name] = (self, e)
                raise
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
    traced = type(cls.__name__, (cls,), namespace)
    traced.__abstractmethods__ = frozenset()  # an abstract base's own methods still run (the rest: the world)
    return traced


UNSET = object()  # a variable the code removed in this run


class Environ:
    """`os.environ` for the code under test: each variable is the world's `env:NAME` (absent by
    default); a write is an event, and what the code set or removed reads back in the same run."""

    def _get(self, name):
        w = world()
        key = f"env:{name}"
        if key in w.written:  # what the code set (or unset) in this run reads back
            if w.written[key] is UNSET:
                raise Absent(key)
            return w.written[key]
        return w.value(key, [ABSENT, *(value(s) for s in w.strings)])

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
        w = world()
        w.events.append(("setenv", name, canon(v)))
        w.written[f"env:{name}"] = v

    def setdefault(self, name, default=None):
        try:
            return self._get(name)
        except Absent:
            self[name] = default
            return default

    def pop(self, name, *default):
        w = world()
        w.events.append(("unsetenv", name))
        try:
            return self._get(name)
        except Absent:
            if default:
                return default[0]
            raise KeyError(name) from None
        finally:
            w.written[f"env:{name}"] = UNSET


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

    def __init__(self, real: types.ModuleType, platform: tuple[str, ...] = (), effects: tuple[str, ...] = ()):
        """`platform`: attributes the code tests the module for (`hasattr(torch, "float4_e2m1fn_x2")`):
        each is the world's key `MODULE.attr`, the real value (or a stand-in, where this platform
        lacks it) and absent: both platforms run. `effects`: its functions the code calls for their
        effect (inputs.GlobalInput.effects): each call is an event, then made for real."""
        super().__init__(real.__name__)
        self.__real = real
        self.__platform = platform
        self.__effects = effects

    def __getattr__(self, name):
        dotted = f"{self.__name__}.{name}"
        if dotted in WORLD_SUBMODULES:
            return world().value(dotted, [OPAQUE])
        if name in self.__platform:
            here = [value(getattr(self.__real, name)), ABSENT] if hasattr(self.__real, name) else [ABSENT, OPAQUE]
            try:
                return world().value(dotted, here)
            except Absent:
                raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}", name=name) from None
        found = getattr(self.__real, name)
        if name in UNINITIALISED:
            found = _zeroed(found)
        elif dotted == "torch.device":
            found = _device_class(found)
        return recorded(dotted, found) if name in self.__effects and callable(found) else found


# torch's factories of uninitialised memory: what a tensor they make holds is whatever the memory
# held, so two versions' would differ where the code is the same; zeroed, as torch's own
# `fill_uninitialized_memory` fills it (that switch needs deterministic mode, which slows every op)
UNINITIALISED = frozenset({"empty", "empty_like", "empty_strided"})
# Zeroing writes every page: for a pool of gigabytes the world sized, seconds and gigabytes a run.
# Past this size the block's whole pages are handed back to the kernel instead (madvise
# MADV_DONTNEED on the process's private memory: read again, they are zero, and cost nothing until
# written); only the partial pages at its two ends are written. Not "fresh from the kernel, zero
# already": malloc serves a large block from its heap's free space when it has enough (a run's
# freed blocks coalesce), garbage and all.
HANDED_BACK_PAST = 32 << 20
_MADV_DONTNEED = 4


def _zeroed(factory):
    def make(*args, **kwargs):
        made = factory(*args, **kwargs)
        if hasattr(made, "zero_") and not _handed_back(made):
            made.zero_()
        return made
    return make


def _handed_back(made) -> bool:
    """Whether `made`'s memory now reads zero without having been written (False: zero it)."""
    try:
        if made.device.type != "cpu" or made.numel() * made.element_size() <= HANDED_BACK_PAST:
            return False
        storage = made.untyped_storage()
        start, size = storage.data_ptr(), storage.nbytes()
    except (AttributeError, RuntimeError, TypeError):
        return False
    page = _page_size()
    if page is None:
        return False
    first, last = -(-start // page) * page, (start + size) // page * page
    libc = _libc()
    if libc.madvise(ctypes.c_void_p(first), ctypes.c_size_t(last - first), _MADV_DONTNEED) != 0:
        return False
    ctypes.memset(start, 0, first - start)
    ctypes.memset(last, 0, start + size - last)
    return True


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc


@functools.cache
def _page_size() -> int | None:
    """The page size where MADV_DONTNEED is known to make private pages read zero (Linux)."""
    return os.sysconf("SC_PAGE_SIZE") if sys.platform.startswith("linux") else None


class OutOfTreeDevice:
    """`torch.device` as the code under test calls it: torch's own class, except that a device
    type this build does not know and the code names in a literal (`if self.device == "musa"`)
    is registered as torch's out-of-tree backend (PrivateUse1), as torch_musa and torch_npu do
    on their machines. One such device a process, as a machine has one: another is rejected, as
    torch rejects it."""

    def __init__(self, real: type):
        self.real = real

    def __call__(self, *args, **kwargs):
        try:
            return self.real(*args, **kwargs)
        except RuntimeError as e:
            name = args[0].partition(":")[0] if args and isinstance(args[0], str) else None
            if name is None or "device type at start of device string" not in str(e) \
                    or name not in world().strings or not _out_of_tree(name):
                raise
            return self.real(*args, **kwargs)

    def __instancecheck__(self, obj):
        return isinstance(obj, self.real)

    def __subclasscheck__(self, cls):
        return issubclass(cls, self.real)

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __eq__(self, other):
        return other is self or other is self.real

    def __hash__(self):
        return hash(self.real)

    def __repr__(self):
        return repr(self.real)


_device_class = functools.cache(OutOfTreeDevice)  # one stand-in for torch.device: `torch.device is torch.device`


def _out_of_tree(name: str) -> bool:
    """Whether torch takes `name` as its out-of-tree device now (registered here if no other is)."""
    import torch

    current = torch._C._get_privateuse1_backend_name()
    if current == "privateuseone" and name.isidentifier() and name.islower():
        torch.utils.rename_privateuse1_backend(name)
        return True
    return current == name


def recorded(dotted: str, function):
    """`function` (real), its calls events of the run: ("call", dotted, arguments, keywords)."""
    def call(*args, **kwargs):
        world().events.append(("call", dotted, tuple(canon(a) for a in args),
                               tuple((k, canon(v)) for k, v in kwargs.items())))
        return function(*args, **kwargs)
    call.__wrapped_real__ = function  # set again on a module already set up: recorded once
    return call
