"""What an expression may be: a frozenset of the small frozen types below (its `Types`), or None
where the code does not say."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Union


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


def union(parts: Iterable[Types]) -> Types:
    out: set = set()
    for p in parts:
        if p is None:
            return None
        out |= p
    return frozenset(out)


def element(types: Types, index: int) -> Types:
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
