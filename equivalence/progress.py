"""Progress of a long check on stderr, shown only when stderr is a terminal.

    for before, after in progress.each("pair", pairs, lambda p: f"{p[0].label} -> {p[1].label}"):
        for config in progress.each("configurations", configs):
            ...

Nested loops share one line, outermost first ("pair 2/6: step 1 -> step 2 · configurations
4096/8784", n being the item under way), rewritten in place after a carriage return at most
every INTERVAL seconds (at once for a new label, or when a loop ends), and blanked when the outermost
loop ends, so that whatever follows on stderr starts on a clean line: print nothing else on
stderr inside such a loop. When stderr is not a terminal (CI logs, a pipe, scripts reading
`--json`) `each` returns `items` themselves: nothing is printed and nothing is spent.
`task(what, total)` is the same as a context, for loops that are not one iteration
(`with progress.task("commit", n) as t: ... t.update(i, subject)`).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, Collection, Iterator, TypeVar

INTERVAL = 0.1  # seconds between two redraws of the line

T = TypeVar("T")
_running: list["Task"] = []  # the loops on the line, outermost first
_drawn_at = 0.0  # when the line was last drawn (time.monotonic)
_muted = False  # a child process of a check (engine.forked): the parent draws the line


class Task:
    """One part of the line: `what n/total`, then `: label` if it has one."""

    def __init__(self, what: str, total: int):
        self.what, self.total, self.n, self.label = what, total, 0, ""

    def __enter__(self) -> "Task":
        _running.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _running.remove(self)
        if _running:
            _draw()
        else:
            _blank()

    def update(self, n: int, label: str | None = None) -> None:
        """Item `n` of `total` is under way: redrawn at once for a new label (a pair, a
        mutant), else if the line is older than INTERVAL (a counter)."""
        self.n = n
        if label is not None and label != self.label:
            self.label = label
            _draw()
        elif time.monotonic() - _drawn_at >= INTERVAL:
            _draw()

    def __str__(self) -> str:
        return f"{self.what} {self.n}/{self.total}" + (f": {self.label}" if self.label else "")


class _Silent:
    """A task that prints nothing: stderr is not a terminal."""

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def update(self, n: int, label: str | None = None) -> None:
        pass


def _shown() -> bool:
    """Whether progress goes on stderr: a terminal (asked once per outermost loop)."""
    return not _muted and (bool(_running) or sys.stderr.isatty())


def mute() -> None:
    """Nothing shown from now on in this process (a child whose parent shows the progress)."""
    global _muted
    _muted = True


def task(what: str, total: int) -> Task | _Silent:
    """A context for `total` items of `what`, nested under the loop running, if any."""
    return Task(what, total) if _shown() else _Silent()


def each(what: str, items: Collection[T], label: Callable[[T], str] | None = None) -> Collection[T] | Iterator[T]:
    """`items`, counted on the line as `what n/total` (`: label(item)` if given)."""
    return _counted(what, items, label) if _shown() else items


def _counted(what: str, items: Collection[T], label: Callable[[T], str] | None) -> Iterator[T]:
    with Task(what, len(items)) as t:
        for n, item in enumerate(items, 1):
            t.update(n, label(item) if label else None)
            yield item


def _width() -> int:
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        columns = 0
    return (columns or 80) - 1  # (a terminal of unknown size says 0) the last column would wrap


def _draw() -> None:
    global _drawn_at
    width = _width()
    sys.stderr.write("\r" + " · ".join(map(str, _running))[:width].ljust(width))
    sys.stderr.flush()
    _drawn_at = time.monotonic()


def _blank() -> None:
    sys.stderr.write("\r" + " " * _width() + "\r")
    sys.stderr.flush()
