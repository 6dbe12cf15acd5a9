"""Independent checks, each in a forked child process of its own, `jobs` at a time.

A whole release's moves are checked one by one, and each check imports its versions' modules
afresh: in one process those stay loaded (16 GB on 0.5.15.post1 -> 0.5.16) and whatever one
check's code leaves behind (a module global, a patched attribute) is there for the next. A child
per check ends with its check: memory is given back, nothing carries over, and the checks run on
every core. The children are forked, so the work and its items need not be picklable; only the
answers travel back (pickled). Where `fork` does not exist, the checks run here, one after the
other.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Sequence, TypeVar, Union

from equivalence import progress

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Failed:
    """A check that gave no answer: what happened to it, in words."""

    why: str


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run_each(work: Callable[[T], R], items: Sequence[T], jobs: int, what: str = "check",
             label: Callable[[T], str] | None = None) -> list[Union[R, Failed]]:
    """`work(item)` for each item, in that order; an item whose work raised (or whose child died)
    gets a `Failed`. A Ctrl-C stops every child and is raised here."""
    if not items:
        return []
    if "fork" not in multiprocessing.get_all_start_methods():
        return [_answer(work, item) for item in progress.each(what, items, label)]
    context = multiprocessing.get_context("fork")
    results: list = [None] * len(items)
    pending = list(range(len(items)))
    running: dict = {}  # the reading end of a child's pipe -> (item index, the child)
    done = 0
    with progress.task(what, len(items)) as shown:
        try:
            while pending or running:
                while pending and len(running) < max(1, jobs):
                    index = pending.pop(0)
                    reader, writer = context.Pipe(duplex=False)
                    child = context.Process(target=_child, args=(writer, work, items[index]), daemon=True)
                    child.start()
                    writer.close()
                    running[reader] = (index, child)
                for reader in wait(list(running)):
                    index, child = running.pop(reader)
                    try:
                        results[index] = reader.recv()
                    except EOFError:
                        child.join()
                        results[index] = Failed(f"the check's process ended without an answer ({_ended(child)})")
                    reader.close()
                    child.join()
                    done += 1
                    shown.update(done, label(items[index]) if label else None)
        except BaseException:
            for _, child in running.values():
                child.kill()
                child.join()
            raise
    return results


def _answer(work: Callable[[T], R], item: T) -> Union[R, Failed]:
    try:
        return work(item)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:
        return Failed(f"{type(e).__name__}: {e}")


def _child(writer, work, item) -> None:
    progress.mute()  # the parent's line counts the checks; children drawing on it would garble it
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "set_num_threads"):
        torch.set_num_threads(1)  # one core per check (and no OpenMP pool inherited across fork)
    try:
        answer = _answer(work, item)
    except KeyboardInterrupt:
        os._exit(130)
    try:
        writer.send(answer)
    except Exception as e:  # an answer that does not pickle: said, never lost silently
        writer.send(Failed(f"the check's answer could not be sent back: {type(e).__name__}: {e}"))
    writer.close()


def _ended(child) -> str:
    code = child.exitcode
    if code is not None and code < 0:
        return f"killed by signal {-code}" + (" (out of memory?)" if -code == 9 else "")
    return f"exit code {code}"
