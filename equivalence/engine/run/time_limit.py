"""A time limit for one run of the code under test. A value the harness draws can send real code
into a loop it never ends in practice (`range(1, max_bs + 1)` with max_bs a large number of the
pool; a deep copy of an input reaching the whole world): one such run held a whole-release check
for hours. A run past RUN_SECONDS is stopped and counted as not checked (its observation names
CUT among what was not modelled), never as a behaviour: the pair is then inconclusive, not
equivalent, and the report says which runs were cut."""

from __future__ import annotations

import _signal  # signal.signal without the enum wrapping: it is called four times a run
import signal
import sys
import threading
import time
from typing import Callable

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


RETRY_SECONDS = 0.01  # after the limit, raised again this often until the run is out of the block
WALL_FACTOR = 5  # a run blocked without using the CPU (a sleep, a lock) is stopped after this many times the limit


def _stop(signum, frame) -> None:
    # The signal can land where an exception is ignored (a gc callback, a __del__, a weakref
    # callback: Python prints it and goes on) or where the code under test swallows it: raised
    # again shortly, until the block is left. Never into this module's own frames (the quiet hook,
    # the block's exit): the exit must disarm the timers, and the hook must not fail.
    signal.setitimer(signal.ITIMER_PROF if signum == signal.SIGPROF else signal.ITIMER_REAL, RETRY_SECONDS)
    if frame is None or frame.f_code.co_filename != __file__:
        raise RanTooLong(f"the run went past {RUN_SECONDS:g} s and was stopped")


def _quiet(previous: Callable) -> Callable:
    def hook(unraisable) -> None:
        if not isinstance(unraisable.exc_value, RanTooLong):
            previous(unraisable)
    return hook


class limited:
    """Stop the block with RanTooLong after `seconds` of CPU time (default RUN_SECONDS: a loaded
    machine does not cut a run sooner), or WALL_FACTOR times that of wall time; on the main thread
    of a platform with SIGALRM, elsewhere no limit. A class, not a generator: its exit runs in this
    module, where the signal is never raised."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = RUN_SECONDS if seconds is None else seconds
        self.armed = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if not self.armed:
            return
        self.handlers = _signal.signal(signal.SIGPROF, _stop), _signal.signal(signal.SIGALRM, _stop)
        self.unraisable = sys.unraisablehook
        sys.unraisablehook = _quiet(self.unraisable)
        signal.setitimer(signal.ITIMER_PROF, self.seconds)
        signal.setitimer(signal.ITIMER_REAL, self.seconds * WALL_FACTOR)

    def __exit__(self, kind, value, traceback) -> None:
        global stopped
        if not self.armed:
            return
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGPROF, self.handlers[0])
        _signal.signal(signal.SIGALRM, self.handlers[1])
        sys.unraisablehook = self.unraisable
        if kind is RanTooLong:
            stopped += 1
