"""A time limit for one run of the code under test. A value the harness draws can send real code
into a loop it never ends in practice (`range(1, max_bs + 1)` with max_bs a large number of the
pool; a deep copy of an input reaching the whole world): one such run held a whole-release check
for hours. A run past RUN_SECONDS is stopped and counted as not checked (its observation names
CUT among what was not modelled), never as a behaviour: the pair is then inconclusive, not
equivalent, and the report says which runs were cut."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

RUN_SECONDS = 2.0  # runs take well under 10 ms; traced for coverage, under 100 ms
CUT = "<a run cut at the time limit>"
CUTS_PER_PAIR = 10  # a pair's exploration ends after this many runs stopped (the rest would be too)
PAIR_SECONDS = 60.0  # a pair's exploration ends after this long (most take under 5 s; runs of 0.5 s each
                     # that are not stopped, a deep copy of a large input, would go on for hours)
stopped = 0  # runs stopped in this process so far


def pair_clock() -> Callable[[], bool]:
    """For one pair's exploration: whether it must end now (CUTS_PER_PAIR runs stopped since, or
    PAIR_SECONDS of CPU time spent: a loaded machine does not end it sooner)."""
    cuts, start = stopped, time.process_time()
    return lambda: stopped - cuts >= CUTS_PER_PAIR or time.process_time() - start >= PAIR_SECONDS


class RanTooLong(BaseException):
    """Raised into the code under test at the limit (a BaseException: its `except Exception`
    clauses do not swallow it)."""


def _stop(signum, frame) -> None:
    global stopped
    stopped += 1
    raise RanTooLong(f"the run went past {RUN_SECONDS:g} s and was stopped")


@contextmanager
def limited(seconds: float | None = None) -> Iterator[None]:
    """Stop the block with RanTooLong after `seconds` (default RUN_SECONDS; on the main thread of
    a platform with SIGALRM; elsewhere, no limit)."""
    seconds = RUN_SECONDS if seconds is None else seconds
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
