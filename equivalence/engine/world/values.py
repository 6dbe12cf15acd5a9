"""Observed values that compare as values: `same`, the one comparison of everything a run
observes (the method check, the component check, the mutants and a preset's findings all ask
it), and `snapshot`, what `world.canon` keeps of a value whose `==` is no bool.

A torch tensor, a numpy array or any other object whose `==` answers element by element (and so
raises, or says too little, when taken as a bool: `Boolean value of Tensor with no values is
ambiguous`) is kept as an `Array`: a copy of its data made when it was observed (a later in-place
change of the live object does not alter what was seen), with what tells such values apart. Two
tensors are the same when their type, dtype, device and shape are and their elements are equal
(`torch.equal`, NaN where the other has NaN); two numpy arrays when their type, dtype and shape are
and `numpy.array_equal` holds (NaN equal to NaN where the dtype has it); any other such object when
its type, its `shape` (if it has one) and `(a == b).all()` agree. Plain values compare by `==` as
before (`1 == 1.0`), but two NaN floats are the same value.
"""

from __future__ import annotations

import math
import sys


class Array:
    """A snapshot of an element-wise value: `kind` (its type's name), `dtype`, `device` and
    `shape` as text, and `data`, a copy of it (None where it has no data to copy: a meta tensor)."""

    __slots__ = ("kind", "dtype", "device", "shape", "data", "text")

    def __init__(self, kind: str, dtype: str, device: str, shape: tuple, data, text: str):
        self.kind, self.dtype, self.device, self.shape, self.data, self.text = kind, dtype, device, shape, data, text

    def header(self) -> tuple:
        return self.kind, self.dtype, self.device, self.shape

    def __eq__(self, other):
        return same(self, other)

    def __ne__(self, other):
        return not same(self, other)

    def __hash__(self):
        return hash(self.header())

    def __repr__(self):
        return self.text

    __str__ = __repr__


def snapshot(v) -> Array | None:
    """An `Array` of `v` when its `==` is element-wise (a tensor, a numpy array, any object whose
    `v == v` is no bool that `bool()` accepts), else None: `v` is kept as it is."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(v, torch.Tensor):
        return _tensor(torch, v)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(v, numpy.ndarray):
        return Array(type(v).__name__, str(v.dtype), "", tuple(v.shape), v.copy(), _text(v))
    return None


def elementwise(v) -> Array | None:
    """An `Array` of `v` (kept, not copied) when `v == v` is no bool that `bool()` accepts: an
    element-wise value of a library `snapshot` does not know. None otherwise (`==` is a bool, or
    raises: then `v` compares as it always did)."""
    try:
        answer = v == v
    except Exception:  # noqa: BLE001 - an object of the code under test: compared as before
        return None
    if type(answer) is bool:
        return None
    try:
        bool(answer)
        return None  # numpy.bool_, a one-element answer read as one truth value
    except Exception:  # noqa: BLE001
        pass
    shape = getattr(v, "shape", None)
    return Array(type(v).__name__, str(getattr(v, "dtype", "")), str(getattr(v, "device", "")),
                 tuple(shape) if isinstance(shape, (tuple, list)) else (repr(shape),), v, _text(v))


def _tensor(torch, v) -> Array:
    kind, dtype, device, shape = type(v).__name__, str(v.dtype), str(v.device), tuple(v.shape)
    try:
        data = v.detach().to("cpu", copy=True) if v.device.type != "meta" else None
    except Exception:  # noqa: BLE001 - a tensor without data to copy (sparse layouts, ...): its text stands for it
        data = None
    return Array(kind, dtype, device, shape, data, _text(v))


def _text(v) -> str:
    try:
        return repr(v)
    except Exception:  # noqa: BLE001
        return f"<{type(v).__name__}>"


def same(a, b) -> bool:
    """Whether two observed values (observations, events, tuples of them, ...) are the same:
    tuples and lists item by item, `Array`s as their kind says (above), other values by `==` (a
    NaN float the same as another), and an `==` that is no bool by `.all()` of it.

    Python's own `==` answers first, and its True stands: of the values `world.canon` keeps, every
    one whose `==` is element-wise is an `Array`, whose `==` is this function. Only where it is not
    True (a difference, a NaN, an element-wise answer, an exception) are the values walked."""
    if a is b:
        return True
    try:
        if (a == b) is True:
            return True
    except Exception:  # noqa: BLE001 - an element-wise value inside (a raw tensor): walked below
        pass
    ta, tb = type(a), type(b)
    if ta in (tuple, list) or tb in (tuple, list):
        return ta is tb and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if ta is Array or tb is Array:
        return ta is tb and a.header() == b.header() and _same_data(a, b)
    if ta is float and tb is float and math.isnan(a) and math.isnan(b):
        return True
    answer = a == b
    if type(answer) is bool:
        return answer
    try:
        return bool(answer)
    except Exception:  # noqa: BLE001 - an element-wise answer: all of it, between values of one type and shape
        pass
    return ta is tb and repr(getattr(a, "shape", None)) == repr(getattr(b, "shape", None)) and _all(answer)


def _all(answer) -> bool:
    try:
        return bool(answer.all())
    except Exception:  # noqa: BLE001 - an answer that cannot be summed up: not shown to be the same
        return False


def _same_data(a: Array, b: Array) -> bool:
    x, y = a.data, b.data
    if x is None or y is None:
        return x is None and y is None and a.text == b.text
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        try:
            if torch.equal(x, y):
                return True
            return (x.is_floating_point() or x.is_complex()) and bool(
                torch.all((x == y) | (torch.isnan(x) & torch.isnan(y))))
        except Exception:  # noqa: BLE001 - a layout torch.equal does not take: its text
            return a.text == b.text
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(x, numpy.ndarray):
        try:
            return bool(numpy.array_equal(x, y, equal_nan=True))
        except TypeError:  # a dtype without NaN (objects, strings)
            return bool(numpy.array_equal(x, y))
    answer = x == y
    try:
        return bool(answer)
    except Exception:  # noqa: BLE001
        return _all(answer)
