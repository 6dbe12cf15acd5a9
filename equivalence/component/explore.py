"""The configurations a sequence shape runs: the engine's deterministic exploration
(`engine.run.explore`: from the seed, every other option of each key a run read, in order of how
many choices a configuration makes), with one difference: within a number of choices, the keys a
run read last are varied first, and a call's result is tried as None even when the code never
looked into it (it may keep it, and test it by identity later: `if group is not None`), and the
sequence's own keys (`call[i]`, `rebind@i`) are always varied. A sequence's calls read many keys (each call's arguments, what the
first call reads) before the one that decides how far it gets (`len(ports) == self.tp_size`); varying
those first gets the later calls run within the budget."""

from __future__ import annotations

import collections
import heapq
import itertools
from typing import Callable

from equivalence import progress
from equivalence.engine.run.explore import Explored
from equivalence.engine.world.world import Domains

ALWAYS = ("call[", "rebind@")  # the sequence's own keys: plain values, never looked into, always varied


def explore(run: Callable[[dict, frozenset | None], tuple[dict, dict, set]], domains: Domains, seeds: list[dict],
            budget: int, stop: Callable[[], bool] | None = None, novel: Callable[[], bool] | None = None) -> Explored:
    """`run(config, identity)` runs both versions and returns (the configuration as recorded,
    keys read -> option used, keys looked into); `identity` is a seed's own choices (None for
    the configurations the exploration adds: their identity is what they read). A seed is a
    configuration of its own, even where it differs from another only in keys no run reads (a
    preset's configurations are an exact set); `budget` counts the runs beyond the seeds.
    `stop()` ends the exploration early when it says so. `novel()`, as for the engine's, says
    whether the last run reached code no run reached before: its variations jump the queue, so
    the exploration goes where coverage grows, however many choices and calls deep."""
    order = itertools.count()
    tier = [1]  # 0 while queueing the variations of a run that reached new code
    queue: list = []
    queued: set[frozenset] = set()
    done: set[frozenset] = set()
    contexts: dict[str, list[dict]] = {}  # key -> explicit choices of the runs that read it at its default
    touched_ever: set[str] = set()
    out = Explored()

    def push(config: dict, again: bool = False) -> None:
        frozen = frozenset(config.items())
        if again or frozen not in queued:
            queued.add(frozen)
            heapq.heappush(queue, (tier[0], len(config), next(order), config, None))

    def expand(context: dict, key: str, used) -> None:
        for option in domains.options[key]:
            if option != used:
                push({**context, key: option})

    def follow(explicit: dict, read: dict, touched: set, new_code: bool = False) -> None:
        """Queue what this run makes worth trying (see the module docstring)."""
        newly = {k for k in touched if k not in touched_ever and k in contexts}
        touched_ever.update(touched)
        fixed = domains.fixed
        tier[0] = 0 if new_code else 1
        for key, option in reversed(read.items()):  # the keys read last first: get further into the code
            if key in explicit or key in fixed:
                continue
            contexts.setdefault(key, []).append(explicit)
            # a call's result kept and later tested by identity (`group is not None`) is never looked
            # into: its None is tried too
            if key in touched_ever or len(domains.options[key]) > 2 or key.endswith(")") or key.startswith(ALWAYS):
                expand(explicit, key, option)
        tier[0] = 1
        grown = domains.take_grown()
        if grown or newly:
            for key in list(dict.fromkeys([*grown, *sorted(newly)])):
                for context in contexts.get(key, []):
                    push(context, again=True)
                    expand(context, key, None)

    def step(config: dict, seed: frozenset | None) -> bool:
        """Run one configuration; False once the exploration must stop."""
        recorded, read, touched = run(config, seed)
        identity = seed or frozenset(read.items())
        if identity in done:
            return True
        done.add(identity)
        out.configs.append(recorded)
        shown.total = len(out.configs) + len(pending) + len(queue)  # grows as the runs discover keys
        shown.update(len(out.configs))
        if stop is not None and stop():
            return False
        # a seed's choices all stand; an added configuration's only where they were read
        follow(config if seed is not None else {k: v for k, v in config.items() if k in read}, read, touched,
               novel is not None and novel())
        return True

    pending = collections.deque(seeds)  # in order, before anything the runs add
    with progress.task("configurations", len(seeds)) as shown:
        while pending or queue:
            if len(out.configs) >= len(seeds) + budget:
                out.budget_reached = True
                break
            if pending:
                config = pending.popleft()
                if not step(config, frozenset(config.items())):
                    break
            elif not step(*heapq.heappop(queue)[3:]):
                break
    return out


def size(config: dict, options: dict[str, list]) -> tuple[int, int]:
    """How far a run is from the defaults (by the final domains' `options`): its non-default
    choices, then how many of those are not plain values (a stand-in, None, absent)."""
    changed = [option for key, option in config.items() if options.get(key, [option])[0] != option]
    return len(changed), sum(1 for option in changed if option[0] != "value" or option[1] is None)
