"""Timing shared by the benchmarks: two callables measured turn about in one process.

Times are the process's CPU time (user + system, `time.process_time`): both sides are
single-threaded and CPU-bound (the files they read are in the page cache after the warm-up),
and CPU time does not count the time other processes of a shared machine hold the cores, which
wall-clock time does (a burst of load during one side's turn skews a wall-clock ratio).
"""

from __future__ import annotations

import gc
import resource
import subprocess
import time


def interleaved(codemod, plain, repeat: int = 5) -> tuple[float, float]:
    """Best times of `codemod` and `plain`, run turn about (a shared machine's load then weighs
    on both alike). Each codemod run parses afresh: its parse caches live as long as the run.
    The garbage of the previous call is collected before each timed call, outside its time, so
    that neither side pays for the other's."""
    times: dict[str, list[float]] = {"codemod": [], "plain": []}
    for _ in range(repeat):
        for name, fn in (("codemod", codemod), ("plain", plain)):
            gc.collect()
            t = time.process_time()
            fn()
            times[name].append(time.process_time() - t)
    return min(times["codemod"]), min(times["plain"])


def child_cpu(cmd: list[str], check: bool = True) -> float:
    """CPU seconds (user + system) a child process running `cmd` took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
