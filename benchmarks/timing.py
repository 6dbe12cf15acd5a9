"""Timing shared by the benchmarks: two callables measured turn about in one process."""

from __future__ import annotations

import time

from codemods.refactoring.pipeline import forget_parsed


def interleaved(codemod, plain, repeat: int = 5) -> tuple[float, float]:
    """Best times of `codemod` and `plain`, run turn about (a shared machine's load then weighs
    on both alike); the parse caches are emptied before each codemod run."""
    times: dict[str, list[float]] = {"codemod": [], "plain": []}
    for _ in range(repeat):
        for name, fn in (("codemod", codemod), ("plain", plain)):
            forget_parsed()
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return min(times["codemod"]), min(times["plain"])
