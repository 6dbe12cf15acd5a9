"""The world both versions run in: one answer per access path ("key"), chosen per configuration.

A key names what the code asked for, by where the value comes from, never by the name a
version gives it: `self.tp_size`, `env:SGLANG_CPU_OMP_THREADS_BIND`,
`sglang.srt.utils.get_cpu_ids_by_node()`, `self.model_config.hf_config.quantization_config`.
The wrapper that passes `tp_size=self.tp_size` and the old body that reads `self.tp_size` ask
the same key, so both versions see the same world.

Each key has a domain, its options in the order found (the first is the default):
- OPAQUE: a stand-in (standins.py) answering every attribute, call and item by child keys;
- ABSENT: the attribute (or variable) does not exist;
- ("value", v): a plain value (None, a bool, an int, a string, a torch dtype, ...);
- ("seq", n): a list of n elements, each the child key `KEY[i]`;
- ("same", OTHER): the very object key OTHER stands for (offered once the code compares the two);
- ("array", n): a numpy array of n numbers, each the child key `KEY[i]` (1, else 0), offered to a
  key the code combines bitwise (`mask &= other`): masks are arrays or tensors as often as ints.
Domains grow from demands: a stand-in used where only a kind of value works (compared with a
literal, looked up in a table, tested for truth, ordered, indexed, measured with len, split as
a string) records which options the key needs, and the next configurations offer them. A configuration is a
mapping key -> option; keys it does not name take their default.
"""

from __future__ import annotations

import collections.abc
import logging
import re
import sys
import types
import zlib
from typing import Callable
from dataclasses import dataclass, field

from equivalence.engine.world.values import elementwise, snapshot

OPAQUE = ("opaque",)
ABSENT = ("absent",)
NONE = None  # value(None), below
MAX_OPTIONS = 14  # per key: demands never grow a domain past this with values derived from a literal
EACH_DEMAND = 3  # ... but for the first few of each kind of use of the key (a value and its two neighbours: Domains.grow)
MAX_LITERALS = 28  # ... nor past this with the literals the code tests the key against themselves
SMALL_INTS = (1, 2, 0, 3)
# a declared type's first value that says nothing of its own (typed.py: a `str` is "x" until the
# code shows what it wants): a demand that needs a value replaces it as a stand-in's default is
PLACEHOLDERS: set = set()  # {value("x")}, below
NAN = float("nan")  # one object: an option holding it equals itself (options are compared, and looked up)
FLOAT_SPECIALS = (NAN, float("inf"), float("-inf"))  # (-0.0 is no option: it equals 0)


class Value(tuple):
    """The option ("value", v) for a bool or a float (`value`), equal only to one holding a value
    of the same type: False, 0 and 0.0 are equal in Python, yet code tells them apart
    (`isinstance(x, bool)` before a number test), so each is an option, a configuration and a run
    of its own."""

    __slots__ = ()

    def __eq__(self, other):  # (on the hot path: the value's own type only, not its items')
        return tuple.__eq__(self, other) is True and type(self[1]) is type(other[1])

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__  # the same as a plain tuple's (0 and False collide: eq tells them apart)


def value(v) -> tuple:
    # Only a bool or a float can equal a value of another type (False == 0 == 0.0): the rest stay
    # plain tuples, compared in C (options are compared and hashed millions of times a check).
    # A plain tuple compared with a Value gets Value.__eq__: Python tries a subclass's first.
    return Value(("value", v)) if type(v) is bool or type(v) is float else ("value", v)


NONE = value(None)
PLACEHOLDERS.add(value("x"))


def seq(n: int) -> tuple:
    return ("seq", n)


def same(key: str) -> tuple:
    """The option "the value of that other key" (the same object)."""
    return ("same", key)


STANDIN: list = []  # StandIn, SizedStandIn, the instance maker (standins.py registers them: the modules use each other)
TRACERS: dict[type, object] = {}  # plain type -> the traced value maker (standins.py registers them)


def is_standin(v) -> bool:
    """Whether `v` is a stand-in (a sized one too)."""
    kind = type(v)
    return bool(STANDIN) and (kind is STANDIN[0] or kind is STANDIN[1])


def key_of(v) -> str | None:
    """The key a stand-in answers for, else None."""
    return object.__getattribute__(v, "_standin_key") if is_standin(v) else None


class Absent(Exception):
    """Raised by `World.value` for an ABSENT key; callers turn it into what the code sees."""


def describe(option: tuple):
    """An option as reports show it."""
    if option == OPAQUE:
        return "<stand-in>"
    if option == ABSENT:
        return "<absent>"
    if option[0] == "seq":
        return f"<list of {option[1]}>"
    if option[0] == "same":
        return f"<the same as {option[1]}>"
    if option[0] == "raises":
        return f"<raises {option[1].__name__}>"
    if option[0] == "sized":
        return f"<truthy, {option[1]} items>"
    if option[0] == "tuple":
        return f"<tuple of {option[1]}>"
    if option[0] == "array":
        return f"<array of {option[1]}>"
    if option[0] == "dict":
        return f"<dict of {', '.join(map(repr, option[1])) or 'nothing'}>"
    if option[0] == "instance":
        return f"<{option[1].__qualname__} instance>"
    return json_value(option[1])


def json_value(v):
    if isinstance(v, (str, bool, int, float)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, types.ModuleType):
        return f"<module {v.__name__}>"
    try:
        return str(v)
    except Exception:  # noqa: BLE001  (a repr reading state the ended run no longer answers: a module of stand-ins)
        return f"<{type(v).__qualname__} object>"


PLAIN = (str, bool, int, float, type(None), bytes)
NAN_SEEN = ("float", "nan")  # what canon makes of any NaN


TRACED: dict[type, type] = {}  # a traced value's class -> the plain type (standins.py registers them)


def untraced(v):
    """`v` with its traced values plain, in tuples too: what an option holds. A traced value
    belongs to the run that made it (its comparisons demand options of that run's world), and
    cannot be copied as the domains are for each mutant's run."""
    kind = type(v)
    plain = TRACED.get(kind)
    if plain is not None:
        return plain(v)
    if kind is tuple or kind is Value:  # an option (`("value", 3)`): rebuilt only when something in it is traced
        for x in v:
            if type(x) in TRACED or type(x) is tuple:
                return kind(untraced(x) for x in v)
    return v


def canon(v, depth: int = 0):
    """A value as an event or a key holds it: the same in both versions and in every run (stand-ins
    by their key, traced values as plain ones, containers element by element, other objects by
    type, never by address)."""
    plain = TRACED.get(type(v))
    if plain is not None:
        v = plain(v)
    elif is_standin(v):  # by type() first: an isinstance would ask the stand-in's __class__ (a demand's work)
        return f"<{key_of(v)}>"
    if isinstance(v, float) and v != v:
        return NAN_SEEN  # NaN is no value equal to itself: each version's would differ
    if isinstance(v, PLAIN):
        return v
    key = key_of(v)
    if key is not None:
        return f"<{key}>"
    array = snapshot(v)  # a tensor, an array: a copy, compared as such (values.same)
    if array is not None:
        return array
    module = _torch_module(v, depth)
    if module is not None:
        return module
    if depth > 4:
        return f"<{type(v).__name__}>"
    if isinstance(v, (list, tuple)):
        return tuple(canon(x, depth + 1) for x in v)
    if isinstance(v, (set, frozenset)):
        return ("set",) + tuple(sorted((repr(canon(x, depth + 1)) for x in v)))
    if isinstance(v, dict):
        return ("dict",) + tuple((canon(k, depth + 1), canon(x, depth + 1)) for k, x in v.items())
    if isinstance(v, types.ModuleType):
        return f"<module {v.__name__}>"
    if isinstance(v, logging.Logger):
        return f"<logger {v.name}>"
    if isinstance(v, types.FunctionType) and "<locals>" in v.__qualname__:
        return _local_function(v)
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"<{getattr(v, '__qualname__', type(v).__name__)}>"
    if isinstance(v, RUNNING):  # a generator handed on (`load(model, (x for x in it))`): never by address
        return _by_code(type(v).__name__, v.__qualname__, getattr(v, "gi_code", None) or getattr(v, "cr_code", None)
                        or v.ag_code)
    if isinstance(v, types.MethodType):  # a bound method handed on (`pool.submit(self._load, ...)`): never by address
        receiver = v.__self__
        by_type = not is_standin(receiver) and key_of(receiver) is None and type(receiver).__repr__ is object.__repr__
        # an object known only by its type (the instance under test, a component): its class may be what moved
        return f"<bound method {v.__func__.__name__}" + ("" if by_type else f" of {canon(receiver, depth + 1)}") + ">"
    if type(v).__repr__ is object.__repr__:
        return f"<{type(v).__name__}>"
    try:
        hash(v)
    except TypeError:
        return f"<{type(v).__name__}>"
    return elementwise(v) or v  # torch dtypes, enums, ...: compared by value


def _torch_module(v, depth: int):
    """A torch module (`nn.Linear(...)` a run built) by what it is, not by identity: its class,
    its structure as torch prints it, and each parameter and buffer as a copy. Two modules built
    alike from the same random state are the same value."""
    torch = sys.modules.get("torch")
    nn = getattr(torch, "nn", None) if torch is not None else None
    if nn is None or not isinstance(v, nn.Module):
        return None
    try:
        text = repr(v)
        state = tuple((name, canon(t, depth + 1)) for name, t in v.state_dict().items())
    except Exception:  # noqa: BLE001  (a module whose state cannot be read: by its type)
        return f"<{type(v).__qualname__}>"
    return ("module", type(v).__qualname__, text, state)


def _local_function(f: types.FunctionType) -> str:
    """A function made by a run of the code (a lambda, a nested def): by its name and its code,
    not by where it was defined, which moves with the code (`Owner.__init__.<locals>.<lambda>`
    becomes `build.<locals>.<lambda>` when `__init__`'s body moves into `build`)."""
    return _by_code("local function", f.__qualname__, f.__code__)


RUNNING = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)


def _by_code(kind: str, qualname: str, code: types.CodeType) -> str:
    """What a function or generator the run made is: its name past `<locals>.` and a digest of its
    code (the enclosing names move with the code; its repr holds an address)."""
    consts = tuple(c for c in code.co_consts if not isinstance(c, types.CodeType))
    digest = zlib.crc32(repr((code.co_code, code.co_names, consts)).encode())
    return f"<{kind} {qualname.rpartition('<locals>.')[2]} #{digest:08x}>"


def canon_args(args: tuple, kwargs: dict) -> str:
    parts = [repr(canon(a)) for a in args] + [f"{k}={canon(v)!r}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _neighbours(literal) -> list:
    """The values a comparison with `literal` needs: equal, different, extended, other case."""
    if isinstance(literal, bool) or literal is None:
        return [True, False, None]
    if isinstance(literal, int):
        return [literal, literal + 1, literal - 1]
    if isinstance(literal, float):
        return [literal, literal + 0.5, literal - 0.5]
    if isinstance(literal, str):
        out = [literal, literal + "x", ""]
        other_case = literal.swapcase()
        if other_case != literal:
            out.insert(2, other_case)
        return out
    try:
        hash(literal)
    except TypeError:
        return []
    return [] if _holds_a_standin(literal) else [literal]


def _version_like(arg) -> bool:
    """A tuple of plain numbers (a version compared against: `(2, 7)`)."""
    return type(arg) is tuple and bool(arg) and all(type(x) in (int, float) for x in arg)


def _tuple_neighbours(t: tuple) -> list[tuple]:
    """What ordering against `t` needs: equal, just above, just below, and a shorter prefix (below)."""
    return list(dict.fromkeys([t, (*t[:-1], t[-1] + 1), (*t[:-1], t[-1] - 1), t[:-1]]))


def _holds_a_standin(v, depth: int = 0) -> bool:
    """Whether `v` is or holds (in tuples, frozensets) a stand-in, which belongs to one run's world
    and so can be no option (`x == (self.a, 1)`)."""
    if is_standin(v):
        return True
    return type(v) in (tuple, frozenset) and depth < 8 and any(_holds_a_standin(x, depth + 1) for x in v)


def sized(n: int) -> tuple:
    """An object with n items (its children `KEY[i]`) that is truthy whatever n: `not x` and
    `len(x) == 0` can disagree, as they can for any object defining both."""
    return ("sized", n)


def array(n: int) -> tuple:
    """A numpy array of n numbers, its items the keys `KEY[i]` (world.py's docstring)."""
    return ("array", n)


ARRAY_ITEM = [value(1), value(0)]  # an array item's options: set, then clear (a mask's)


def instance(cls: type) -> tuple:
    """An instance of a class of the code, its attributes the world's (`KEY.name`)."""
    return ("instance", cls)


def _of_type(t, lengths=(), items=()) -> list[tuple]:
    """Options of the type `t` an `isinstance` test names."""
    if t is bool:
        return [value(True), value(False)]
    if t is int:
        return [value(0), value(1)]
    if t is float:
        return [value(0.0), value(1.5)]
    if t is str:
        return [value("x")]
    if t is bytes:
        return [value(b"x")]
    if t in (list, collections.abc.Sequence, collections.abc.Iterable, collections.abc.Sized):
        return [seq(0), seq(1), seq(2)]
    if t is tuple:
        return [("tuple", 0), ("tuple", 1), ("tuple", 2)]
    if t in (dict, collections.abc.Mapping):  # empty, every key the code looks up, and each one missing
        every = tuple(items)
        return [("dict", ()), ("dict", every), *(("dict", every[:i] + every[i + 1:]) for i in range(len(every)))]
    if t in (set, frozenset):
        return [value(t())]
    made = _torch_values(t)
    if made:
        return made
    if isinstance(t, type) and t.__module__ not in ("builtins",) and type(t) is type:
        return [instance(t)]
    return []


def _torch_values(t) -> list[tuple]:
    """`isinstance(x, torch.dtype)`, `torch.device`: classes no instance of the world's can pass
    (torch makes them, never subclassed), so values of them as torch makes them."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(t, type):
        return []
    if t is getattr(torch, "dtype", None):
        return [value(torch.float32), value(torch.bfloat16)]
    if t is getattr(torch, "device", None):
        return [value(torch.device("cpu"))]
    return []


def demanded_options(kind: str, arg=None, numbers: tuple[int, ...] = (), lengths: tuple[int, ...] = (),
                     items: tuple = ()) -> list[tuple]:
    """Options a key needs once its stand-in is used as `kind` (see StandIn); `numbers`: the ints
    the code compares or computes with (the pool); `lengths`: the lengths its code tests or
    needs (`len(x) == 4`, `x[3]`, unpacking); `items`: the keys it looks items up by."""
    if kind == "truth":
        return [value(False), value(True)]
    if kind == "eq":
        other = key_of(arg)  # compared with another input: that input's very value (`backend == Backend.X`)
        return [same(other)] if other is not None else [value(v) for v in _neighbours(arg)]
    if kind == "order" and _version_like(arg):  # `torch_release >= (2, 7)`: tuples, which numbers never are
        return [value(v) for v in _tuple_neighbours(arg)]
    if kind in ("number", "order"):
        # ordered against a value: also that value's neighbours (arithmetic operands are not
        # taken: they derive from other keys' values without bound); against a float, the
        # floats no neighbour is (NaN, the infinities)
        near = _neighbours(arg) if kind == "order" and type(arg) in (int, float) else []
        special = FLOAT_SPECIALS if kind == "order" and type(arg) is float else ()
        ints = [n for x in numbers if type(x) is int for n in _neighbours(x)]
        return [value(v) for v in dict.fromkeys([*SMALL_INTS, *ints, *near, *special])]
    if kind == "bitwise":  # `x & y`, `x |= y`, `~x`: an int, or an array of each length (a mask)
        ints = demanded_options("number", None, numbers)
        return [*ints[:1], *(array(n) for n in dict.fromkeys((1, 2, 3, *lengths))), *ints[1:]]
    if kind == "numeric-text":  # float(s), int(s) of a string: text of the numbers the code uses (its floats
        # too: `0.0 <= float(s) <= 0.99`) and their neighbours, small ints, a fraction
        texts = [str(n) for x in numbers for n in _neighbours(x)] + ["nan", "inf"] + [str(n) for n in SMALL_INTS] \
            + ["1.5", "-1"]
        return [value(t) for t in dict.fromkeys(texts)]
    if kind == "seq":
        return [seq(1), seq(0), seq(2), seq(3), *(seq(n) for n in lengths)]
    if kind == "sized":  # measured and tested for truth: also an object that is truthy yet empty
        return [sized(0)]
    if kind == "convert":  # int(x), float(x): numbers, a string that is not one (ValueError), NaN and the infinities
        return [*demanded_options("number", None, numbers), value("x"), *map(value, FLOAT_SPECIALS)]
    if kind == "class":  # isinstance(x, T): a value of each type tested
        return [o for t in arg for o in _of_type(t, lengths, items)]
    if kind == "substr":  # `sub in x` of a string: one holding it
        return [value(f"a{arg}b"), value(f"a{arg}b{arg}c"), value("a")]
    if kind == "contains":  # `"k" in x`: a container holding it, as a sequence or as a mapping's key
        return [seq(0), value((arg,)) if _hashable(arg) else seq(1),
                *([("dict", (str.__str__(arg),))] if isinstance(arg, str) else [])]  # a traced str too
    if kind == "mapping":  # `x.items()`, `x.keys()`, `x.values()`: a dict, keyed as `_of_type(dict)` keys it
        every = tuple(dict.fromkeys(items))[:MAX_DICT_KEYS]
        return [("dict", ()), *_of_type(dict, items=every)[1:], ("dict", (*every, OTHER_KEY))]
    if kind == "str":
        return [value(v) for v in [*(arg or ["x"]), ""]]
    if kind == "key":
        return [value(v) for v in arg]
    return []


def _literals(kind: str, new: list[tuple], arg=None) -> set[tuple]:
    """Which of a demand's options are the code's own values (the value compared with, or
    ordered against with its neighbours, the keys of the tables a key is looked up in): those go
    in up to MAX_LITERALS, so that `x in ("a", "b", ..., "f")` offers each one and not only the
    first few with their neighbours, and `gpu_mem > 60 * 1024` offers 61440 and its neighbours
    however many small ints the key already holds."""
    if kind == "key":
        return set(new)
    if kind == "eq":
        return set(new[:1])
    if kind == "order" and type(arg) in (int, float):
        return {value(v) for v in _neighbours(arg)}
    if kind in ("seq", "class", "mapping"):
        return set(new)
    if kind == "numeric-text":  # the text of the code's numbers and their neighbours, and of NaN and infinity
        return set(new[:new.index(value("nan")) + 2])
    if kind == "bitwise":
        return {o for o in new if o[0] == "array"}
    return set()


# a demand's argument by which it is remembered (a stand-in's, a list's, are not: its options depend on more)
_MEMO_ARGS = {type(None), str, int, float, bool}

# kinds a stand-in cannot serve at all (TypeError): the key's default becomes the first option
# the demand offers, so that the next runs get past this use and further into the code
NEEDS_A_VALUE = {"number", "bitwise", "order", "seq", "str", "contains", "convert", "mapping", "numeric-text"}
MAX_DICT_KEYS = 6  # a mapping demand's dict holds at most these of the keys the code names
OTHER_KEY = "other"  # ... and, in one option, a key that is none of the code's literals


def _array(items: list):
    """A numpy array of `items` (of objects when they are no numbers); a list without numpy."""
    try:
        import numpy
    except ImportError:
        return items
    try:
        return numpy.array(items)
    except (TypeError, ValueError):
        return numpy.array(items, dtype=object)


def _hashable(v) -> bool:
    """A plain value that can be an element (checked first: hashing a stand-in is a demand)."""
    return isinstance(v, (str, int, float, bool, type(None)))


def _code_strings(strings: tuple) -> list[str]:
    """The string pool without what it adds to the code's literals (`""`, each one's other case)."""
    out: list[str] = []
    for s in strings:
        if s and s.swapcase() not in out:
            out.append(s)
    return out


@dataclass
class Domains:
    """Every key's options, shared by all runs of a check (so both versions see the same)."""

    options: dict[str, list[tuple]] = field(default_factory=dict)
    fixed: set[str] = field(default_factory=set)  # keys whose domain a preset gave: no growth
    grown: list[str] = field(default_factory=list)  # keys that gained options since last taken
    pending: dict[str, tuple] = field(default_factory=dict)  # key -> its next default
    demanded: set = field(default_factory=set)  # (key, kind, arg, traced, pools) of the demands made so far
    literal: dict[str, set] = field(default_factory=dict)  # key -> the options grown as the code's own literals
    uses: dict[str, set] = field(default_factory=dict)  # key -> the kinds of demand it met

    def ensure(self, key: str, default: list[tuple]) -> list[tuple]:
        found = self.options.get(key)
        if found is None:
            found = self.options[key] = list(dict.fromkeys(untraced(o) for o in default))
        return found

    def grow(self, key: str, new: list[tuple], prefer: bool = False, literals: set = frozenset(),
             first_use: bool = False) -> None:
        """Add `new` options (up to MAX_OPTIONS besides the literals, those in `literals` up to MAX_LITERALS); with `prefer`, a key whose default is a stand-in takes the first of
        them as its default (NEEDS_A_VALUE) once the runs in progress are done (take_grown), so
        that both versions of a configuration see the same defaults."""
        if key in self.fixed:
            return
        options = self.options.setdefault(key, [OPAQUE])
        own = self.literal.setdefault(key, set())
        new = [untraced(o) for o in new]
        changed, added = False, 0
        for option in new:
            if option in options or option[0] == "instance" and any(
                    o[0] == "instance" and o[1].__qualname__ == option[1].__qualname__ for o in options):
                continue  # one option per class of the code, whichever version's it came from
            # the code's own literals do not take the room of values derived from them, nor the other
            # way; a kind of use of the key met once the room is taken (`first_use`) still gets its
            # first options (`float(s)` of a string after `isinstance` tests filled it: a text that
            # reads as a number)
            if option in literals and len(own) < MAX_LITERALS:
                own.add(option)
            elif option in literals or len(options) - len(own) >= MAX_OPTIONS + EACH_DEMAND * (first_use and added < EACH_DEMAND):
                continue
            options.append(option)
            changed, added = True, added + 1
        if prefer and new and (options[0] == OPAQUE or options[0] in PLACEHOLDERS) and new[0] in options:
            self.pending.setdefault(key, new[0])
            changed = True
        if changed and key not in self.grown:
            self.grown.append(key)

    @classmethod
    def from_hints(cls, hints: Hints) -> "Domains":
        return cls({k: list(v) for k, v in hints.domains.items()}, set(hints.domains))

    def take_grown(self) -> list[str]:
        """The keys whose domain changed since the last call; pending defaults take effect."""
        for key, option in self.pending.items():
            options = self.options[key]
            if options[0] == OPAQUE or options[0] in PLACEHOLDERS:
                options.remove(option)
                options.insert(0, option)
        self.pending.clear()
        out, self.grown = self.grown, []
        return out


@dataclass
class Hints:
    """What a preset knows about some inputs: their domains (fixed: the exploration neither grows
    nor varies them on its own, the seeds do), other keys that name the same input, real modules
    it makes inputs (`torch`), and the configurations to start from."""

    domains: dict[str, list[tuple]] = field(default_factory=dict)
    aliases: list[tuple[re.Pattern, str]] = field(default_factory=list)
    real_inputs: dict[str, str] = field(default_factory=dict)  # global bound by `import NAME` -> key
    seeds: list[dict] = field(default_factory=lambda: [{}])

    def key(self, key: str) -> str:
        return next((alias for pattern, alias in self.aliases if pattern.match(key)), key)


class World:
    """One run's answers: the configuration's choice per key (else the default), the stand-ins
    made so far (one object per key, so `is` works), and what the run asked and used."""

    def __init__(self, domains: Domains, config: dict[str, tuple], absent_names: frozenset[str],
                 pools: tuple = ((), (), ())):
        self.domains = domains
        # what the code compares with (options of env variables, numbers) and its tables' keys;
        # then the lengths it needs and the keys it looks items up by
        self.strings, self.numbers, self.keys, *more = pools
        self.lengths, self.items = (*more, (), ())[:2]
        self.pools_id = hash(pools)  # a demand's options depend on the pools too (a mutant's may differ)
        self.namespaces: frozenset[int] = frozenset()  # ids of the globals of the code under test
        self.classes: dict[str, type] = {}  # qualname -> the class the version's modules define, where one does
        # the code objects of the functions the code under test makes as it runs (its lambdas, its
        # local defs): one handed to a stand-in is called back (standins.call_back)
        self.own_code: frozenset = frozenset()
        self.trees: dict[str, object] = {}  # its files -> their parsed source (what runs)
        self.config = config
        self.absent_names = absent_names
        self.objects: dict[str, object] = {}
        self.read: dict[str, tuple] = {}  # key -> option used, in order of first read
        self.touched: set[str] = set()  # keys whose stand-in the code looked into
        self.written: dict[str, object] = {}  # "KEY.attr" / "KEY[item]" -> value set by the code
        self.events: list = []
        self.resolving: set[str] = set()  # keys whose "the same as" option is being resolved
        self.path: list = []  # the comparisons of traced numbers that decided this run (symbolic.Step)
        # key -> its options from what the code declares it to be, or None (load/declared.py)
        self.declared: Callable[..., list[tuple] | None] | None = None
        self.demanding = False  # `demand` at work

    def value(self, key: str, default: list[tuple] | None = None):
        """The value of `key` in this run (raises Absent)."""
        made = self.objects.get(key)
        if made is not None:
            return made
        options = self.domains.options.get(key)
        if options is None:
            options = self.domains.ensure(key, default if default is not None else self.default_options(key))
        chosen = self.config.get(key, options[0])
        self.read.setdefault(key, chosen)
        if chosen[0] == "value":
            v = chosen[1]
            maker = TRACERS.get(type(v))
            if maker is None or key in self.domains.fixed:
                return v
            made = self.objects[key] = maker(v, key, self)  # still says how the code uses it
            return made
        if chosen == ABSENT:
            raise Absent(key)
        if chosen[0] == "raises":  # a call the code catches an exception of
            try:
                error = chosen[1](f"<{key}>")
            except Exception:
                error = chosen[1].__new__(chosen[1])
            raise error
        if chosen[0] == "same":
            if key in self.resolving:  # a cycle of "the same as": a value of its own
                made = STANDIN[0](key, self)
            else:
                self.resolving.add(key)
                try:
                    made = self.value(chosen[1])
                finally:
                    self.resolving.discard(key)
            self.objects[key] = made
            return made
        if chosen == OPAQUE:
            made = STANDIN[0](key, self)
        elif chosen[0] == "sized":
            made = STANDIN[1](key, self, chosen[1])
        elif chosen[0] == "instance":
            made = STANDIN[2](self.counterpart(chosen[1]), key, self)
        elif chosen[0] == "array":
            made = _array([untraced(self.value(f"{key}[{i}]", list(ARRAY_ITEM))) for i in range(chosen[1])])
        elif chosen[0] == "dict":
            made = {}
            self.objects[key] = made
            made.update((k, self.value(f"{key}[{k!r}]")) for k in chosen[1])
        else:  # ("seq", n), ("tuple", n)
            made = []
            self.objects[key] = made
            made.extend(self.value(f"{key}[{i}]") for i in range(chosen[1]))
            if chosen[0] == "tuple":
                made = tuple(made)
        self.objects[key] = made
        return made

    def counterpart(self, cls: type) -> type:
        """`cls` as the running version defines it: a class of the code an option holds came from
        the version that first tested for it, and the other version may define it in another
        module (moved with the extraction: `LocalSerializedTensor`); a class of neither, itself."""
        return self.classes.get(cls.__qualname__, cls)

    def default_options(self, key: str) -> list[tuple]:
        """A key no preset or demand described yet: values of the type the code declares it to be
        (typed.py), else a stand-in, else None; also absent where the code allows an attribute to be missing (getattr/hasattr with that name, or except
        AttributeError around it)."""
        attr = key.rpartition(".")[2]
        typed = self.declared(key, self.strings, self.items, self.lengths) if self.declared is not None else None
        options = typed if typed is not None else [OPAQUE, NONE]
        if attr in self.absent_names and "(" not in attr and "[" not in attr:
            options.append(ABSENT)
        return options

    def demand(self, key: str, kind: str, arg=None, traced: bool = False) -> None:
        """`traced`: the use of a plain value the key already took (a traced value): it gains
        options, its default stays."""
        if self.demanding:  # the world's own use of a stand-in (an option's __eq__, a literal's hash
            return  # while it works out a demand's options), not the code's: it demands nothing
        self.touched.add(key)
        # the same demand again (the same comparison in another run) grows nothing: answered once
        memo = (key, kind, arg, traced, self.pools_id) if kind != "seq" and type(arg) in _MEMO_ARGS else None
        if memo is not None:
            if memo in self.domains.demanded:
                return
            self.domains.demanded.add(memo)
        self.demanding = True
        try:
            if kind == "seq" and value(True) in self.domains.options.get(key, ()):
                self.domains.grow(key, demanded_options("sized"), literals={sized(0)})
            items = (*self.items, *_code_strings(self.strings)) if kind == "mapping" else self.items
            new = demanded_options(kind, self.keys if kind == "key" else arg, self.numbers, self.lengths, items)
            uses = self.domains.uses.setdefault(key, set())
            self.domains.grow(key, new, prefer=kind in NEEDS_A_VALUE and (not traced or kind == "numeric-text"),
                              literals=_literals(kind, new, arg), first_use=kind not in uses)
            uses.add(kind)
        finally:
            self.demanding = False
