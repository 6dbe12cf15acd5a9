"""Each text parsed at most once per run, by each parser.

A run (one codemod command, one check of the harness) holds a `Parses` and makes it active
for its duration (`with parses:`); every parse of the run goes through `once` (`parse` for
Python's `ast`, `codemods.syntax.nodes.parse` for LibCST), which answers a text it has seen
from the cache. Outside a run nothing is kept, so nothing leaks from one run into the next.
The trees are shared: callers treat them as read-only (LibCST's nodes are immutable; `ast`
nodes are copied before any change).
"""

from __future__ import annotations

import ast
from contextvars import ContextVar
from typing import Callable, Optional, TypeVar

T = TypeVar("T")


class Parses:
    """One run's parse caches: parser name -> {text: tree}."""

    def __init__(self) -> None:
        self._trees: dict[str, dict[str, object]] = {}
        self._tokens: list = []

    def __enter__(self) -> "Parses":
        self._tokens.append(_ACTIVE.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._tokens.pop())

    def once(self, parser: str, text: str, parse: Callable[[str], T]) -> T:
        cache = self._trees.setdefault(parser, {})
        if text not in cache:
            cache[text] = parse(text)  # a failed parse raises, and raises again next time
        return cache[text]


_ACTIVE: ContextVar[Optional[Parses]] = ContextVar("pysource.parsing.active", default=None)


def once(parser: str, text: str, parse: Callable[[str], T]) -> T:
    """`parse(text)`, through the active run's cache for `parser` (none active: just parsed)."""
    run = _ACTIVE.get()
    return parse(text) if run is None else run.once(parser, text, parse)


def expression(text: str) -> ast.Expression:
    """`ast.parse(text, mode="eval")`, once per text in a run (an annotation, a string annotation)."""
    return once("ast-eval", text, lambda t: ast.parse(t, mode="eval"))


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(text, filename)`, once per text in a run (a syntax error names `filename`)."""
    return once("ast", text, lambda t: ast.parse(t, filename))
