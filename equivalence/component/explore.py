"""How a sequence shape is explored: the engine's exploration (`engine.run.explore`), with the
keys a run read last varied first, and a call's result tried as None even when the code never
looked into it (it may keep it, and test it by identity later: `if group is not None`), and the
sequence's own keys (`call[i]`, `rebind@i`) always varied. A sequence's calls read many keys
(each call's arguments, what the first call reads) before the one that decides how far it gets
(`len(ports) == self.tp_size`); varying those first gets the later calls run within the budget."""

from __future__ import annotations

from typing import Callable

from equivalence.engine.run import explore as engine
from equivalence.engine.run.explore import Explored
from equivalence.engine.world.world import Domains

ALWAYS = ("call[", "rebind@")  # the sequence's own keys: plain values, never looked into, always varied


def always_varied(key: str) -> bool:
    return key.endswith(")") or key.startswith(ALWAYS)


def explore(run: Callable[[dict, frozenset | None], tuple[dict, dict, set]], domains: Domains, seeds: list[dict],
            budget: int, stop: Callable[[], bool] | None = None, novel: Callable[[], bool] | None = None,
            propose: Callable[[], list[dict]] | None = None, saturate: int | None = None) -> Explored:
    return engine.explore(run, domains, seeds, budget, stop, novel, read_last_first=True, always_varied=always_varied,
                          propose=propose, saturate=saturate)
