"""A key's first options from what the code declares it to be (pysource.declared): types first.

A key the code declares (a parameter's annotation, a class's field, an item of a declared
container) starts from values of its type instead of a stand-in: the literal default the
declaration gives first (`tp_size: int = 1` starts at 1), then values of each arm of the type,
then None and a stand-in last (an annotation may say less than the truth: sglang has
`x: int = None` and tests `is not None` of fields declared `int`; the stand-in still learns from
what the code does with it). A container's items are keys of
their own (`KEY[0]`, `KEY['alpha']`), declared by the container's item type in turn, so both
versions see the same values and the demands and the solver work on them as on any key. Values
are the world's options, not values drawn by Hypothesis' `from_type`: a drawn dict would be one
opaque value, where the world needs each item as a key of its own.
"""

from __future__ import annotations

from pysource.declared import (NO_DEFAULT, Declared, DictOf, InstanceOf, ListOf, LiteralOf, NoneValue, OneOf,
                               Scalar, TupleOf)
from equivalence.engine.world.world import (MAX_DICT_KEYS, MAX_OPTIONS, NONE, OPAQUE, OTHER_KEY, SMALL_INTS,
                                            _code_strings, seq, value)

SCALAR_OPTIONS = {
    "int": [value(n) for n in SMALL_INTS],
    "float": [value(1.0), value(0.0), value(0.5), value(-1.0)],
    "bool": [value(False), value(True)],
    "str": [value("x"), value("")],
    "bytes": [value(b""), value(b"x")],
}
MAX_TUPLE = 8  # a fixed tuple longer than this is not built item by item


def typed_options(declared: Declared, strings: tuple = (), items: tuple = (), lengths: tuple = ()) -> list[tuple] | None:
    """The options of a declared key, or None when the declaration gives no value to build
    (an instance of a class: its attributes are declared in turn, the stand-in stays).
    `strings`, `items`, `lengths`: the world's pools (what the code compares with, the keys it
    looks items up by, the lengths it tests)."""
    shaped = _options(declared.shape, strings, items, lengths)
    if shaped is None:
        return None
    default = declared.default
    first = [value(default)] if default is not NO_DEFAULT and type(default) in (int, float, str, bool, type(None)) \
        else []
    options = list(dict.fromkeys([*first, *shaped]))[:MAX_OPTIONS - 2]
    return options + [o for o in (NONE, OPAQUE) if o not in options]


def _options(shape, strings, items, lengths) -> list[tuple] | None:
    if isinstance(shape, Scalar):
        marked = separated(strings) if shape.name == "str" else None
        return list(SCALAR_OPTIONS[shape.name]) + ([value(marked)] if marked else [])
    if isinstance(shape, NoneValue):
        return [NONE]
    if isinstance(shape, LiteralOf):
        return [value(v) for v in shape.values if type(v) in (int, float, str, bool, type(None))
                or type(v).__module__ == "torch" and type(v).__name__ == "dtype"] or None  # a dtype a value as well
    if isinstance(shape, ListOf):
        if shape.kind == "set":
            return None  # a set is one value, mutable: no option can hold it safely
        make = seq if shape.kind == "list" else (lambda n: ("tuple", n))
        return [make(n) for n in dict.fromkeys([1, 0, 2, 3, *lengths])]
    if isinstance(shape, TupleOf):
        return [("tuple", len(shape.items))] if len(shape.items) <= MAX_TUPLE else None
    if isinstance(shape, DictOf):
        if shape.key is not None and shape.key != Scalar("str"):
            return [("dict", ())]
        every = tuple(dict.fromkeys([*items, *_code_strings(strings)]))[:MAX_DICT_KEYS]
        return [("dict", ()), ("dict", every), *(("dict", every[:i] + every[i + 1:]) for i in range(len(every))),
                ("dict", (*every, OTHER_KEY))]
    if isinstance(shape, InstanceOf):
        return None
    if isinstance(shape, OneOf):
        out = []
        for arm in shape.arms:
            got = _options(arm, strings, items, lengths)
            if got is None and not isinstance(arm, InstanceOf):
                return None
            out += got if got is not None else [OPAQUE]
        return list(dict.fromkeys(out))
    return None


def separated(strings: tuple) -> str | None:
    """A text holding every separator the code's string literals name (`"%"`, `"/"`, `"="`: the
    literals made of punctuation only), or None. A string the code builds from a key (an
    f-string, `.replace`, `os.path.dirname`) no longer tells the world what it was searched for,
    so a declared str also takes one value that holds them all: `"%" in os.path.dirname(f"{d}/x")`
    runs both ways."""
    marks = dict.fromkeys(c for s in _code_strings(strings) if len(s) <= 3 and not any(ch.isalnum() or ch.isspace() for ch in s)
                          for c in s)
    return "x" + "".join(marks)[:8] if marks else None


def item_shape(shape, index) -> object:
    """The shape of item `index` (an int, or a dict's key) of a value of `shape`."""
    if isinstance(shape, OneOf):
        found = [item_shape(a, index) for a in shape.arms if not isinstance(a, NoneValue)]
        return found[0] if len(found) == 1 else None
    if isinstance(shape, ListOf):
        return shape.item
    if isinstance(shape, TupleOf) and isinstance(index, int) and -len(shape.items) <= index < len(shape.items):
        return shape.items[index]
    if isinstance(shape, DictOf):
        return shape.value
    return None


def instance_of(shape) -> str | None:
    """The class a value of `shape` is an instance of (Optional[C] too), else None."""
    if isinstance(shape, InstanceOf):
        return shape.qualname
    if isinstance(shape, OneOf):
        found = [a for a in shape.arms if not isinstance(a, NoneValue)]
        return found[0].qualname if len(found) == 1 and isinstance(found[0], InstanceOf) else None
    return None
