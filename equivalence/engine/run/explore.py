"""Which configurations a pair runs: a deterministic exploration of the keys the runs discover.

It starts from the seeds (all defaults, or a preset's configurations). Each run reports the
keys both versions read, with the option each took. For every key read at its default whose
value the code looked into (or whose options are other than a stand-in and None), each other option
of its domain is tried on top of that run's choices (restricted to the keys it read: a key
not read cannot matter). When a domain changes (a demand added options, or gave a stand-in key
a value as default), every configuration that read the key at its default runs again: the
code then gets further, and its new keys are explored in turn. Configurations run in order of
their number of explicit choices, so the first divergent configuration found for a kind is one
of the smallest; the variations of a run that reached new code go first, and so do those of an
input no run read before that the code looked into (a call's result keyed by an argument that
just took a value: `is_runai_obj_uri((':',))` once `served_model_name` is `(':',)`). A run that
reached new code is also run with each of its choices undone, first: the new path may not need
them, and the keys behind it are read at their defaults there (a gate passed in a run that had
also emptied a list, whose loop lies behind the gate). Stops when nothing is left to try or after
`budget` runs (reported).
"""

from __future__ import annotations

import collections
import heapq
import itertools
from dataclasses import dataclass, field
from typing import Callable

from equivalence import progress
from equivalence.engine.world.world import NONE, OPAQUE, Domains

SOLVE_AFTER = 200  # runs without new code before the solver is asked (it is asked too when nothing is left)
GENERIC = [OPAQUE, NONE]  # what any key may be: varied only once the code looks into its stand-in


@dataclass
class Explored:
    configs: list[dict] = field(default_factory=list)  # each run: every key read -> the option it took
    budget_reached: bool = False
    saturated: bool = False  # stopped: `saturate` runs in a row reached no new code


def explore(run: Callable[[dict, frozenset | None], tuple[dict, dict, set]], domains: Domains, seeds: list[dict],
            budget: int, stop: Callable[[], bool] | None = None, novel: Callable[[], bool] | None = None,
            read_last_first: bool = False, always_varied: Callable[[str], bool] | None = None,
            propose: Callable[[], list[dict]] | None = None, saturate: int | None = None) -> Explored:
    """`run(config, identity)` runs both versions and returns (the configuration as recorded,
    keys read -> option used, keys looked into); `identity` is a seed's own choices (None for
    the configurations the exploration adds: their identity is what they read). A seed is a
    configuration of its own, even where it differs from another only in keys no run reads (a
    preset's configurations are an exact set); `budget` counts the runs beyond the seeds.
    `stop()` ends the exploration early when it says so. `novel()`, when given, says whether the
    last run reached code no run reached before (a new arc between lines of the code under test):
    such a run is varied further first (its variations jump the queue) and more widely (also
    each key it read at a plain stand-in takes None), so that the exploration goes where
    coverage grows, however many choices deep. `read_last_first`: the keys a run read last are
    varied first (within a number of choices); `always_varied(key)`: a key varied whatever its
    options (one the code keeps without looking into it); `propose()`: configurations solved for
    (solve.py), asked for when nothing is left to try or after SOLVE_AFTER runs that reached no
    new code, and run first; `saturate`: stop once that many runs in a row reached no new code and
    the solver has nothing left to propose (`Explored.saturated`)."""
    order = itertools.count()
    tier = [1]  # 0 while queueing the variations of a run that reached new code
    queue: list = []
    queued: set[frozenset] = set()
    waiting: dict[frozenset, tuple] = {}  # queued, not run yet -> its live entry of the queue
    done: set[frozenset] = set()
    contexts: dict[str, list[dict]] = {}  # key -> explicit choices of the runs that read it at its default
    touched_ever: set[str] = set()
    read_ever: set[str] = set()
    out = Explored()

    def push(config: dict, again: bool = False, probe: bool = False) -> None:
        """Queue `config`; one still waiting moves up when a run that reached new code asks for
        it too (its entry further back is then skipped): a variation first queued as one of many
        would otherwise wait behind every variation of the runs that reach new code."""
        frozen = frozenset(config.items())
        earlier = waiting.get(frozen)
        t = tier[0]
        if earlier is None and frozen in queued and not again:
            return  # run before: again only once a domain it read grew
        if earlier is not None:
            earlier_tier, earlier_probe = earlier[0], earlier[5]
            if t >= earlier_tier and not (earlier_probe and not probe):
                return  # asked for no sooner, nor more firmly (a probe is followed only if it reaches new code)
            t, probe = min(t, earlier_tier), probe and earlier_probe
        queued.add(frozen)
        entry = waiting[frozen] = (t, len(config), next(order), config, None, probe)
        heapq.heappush(queue, entry)

    def pop():
        """The next live entry of the queue (None when none is left)."""
        while queue:
            entry = heapq.heappop(queue)
            frozen = frozenset(entry[3].items())
            if waiting.get(frozen) is entry:
                del waiting[frozen]
                return entry
        return None

    def expand(context: dict, key: str, used, probe: bool = False) -> None:
        for option in domains.options[key]:
            if option != used:
                push({**context, key: option}, probe=probe)

    def follow(explicit: dict, read: dict, touched: set, new_code: bool = False, reduce: bool = False) -> None:
        """Queue what this run makes worth trying (see the module docstring); with `reduce` (a run
        that reached new code, not a seed), also the run with each of its choices undone."""
        newly = {k for k in touched if k not in touched_ever and k in contexts}
        touched_ever.update(touched)
        fixed = domains.fixed
        for key, option in reversed(read.items()) if read_last_first else read.items():
            if key in explicit or key in fixed:
                continue
            contexts.setdefault(key, []).append(explicit)
            options = domains.options[key]
            # an input no run read before, which the code looked into: as new code
            tier[0] = 0 if new_code or (key not in read_ever and len(options) > 1 and options != GENERIC) else 1
            if key in touched_ever or len(options) > 2 or (len(options) == 2 and options != GENERIC) \
                    or (always_varied is not None and always_varied(key)):
                expand(explicit, key, option)
            elif new_code:  # a probe: followed further only if it reaches new code itself
                expand(explicit, key, option, probe=True)
        if reduce:
            tier[0] = 0
            for key in explicit:
                if key not in seeded:
                    push({k: v for k, v in explicit.items() if k != key})
        tier[0] = 1
        read_ever.update(read)
        grown = domains.take_grown()
        if grown or newly:
            for key in list(dict.fromkeys([*grown, *sorted(newly)])):
                for context in contexts.get(key, []):
                    push(context, again=True)
                    expand(context, key, None)

    def step(config: dict, seed: frozenset | None, probe: bool = False) -> bool:
        """Run one configuration; False once the exploration must stop. A probe (a plain stand-in
        set to None in a run that reached new code) is followed only if it reaches new code too."""
        recorded, read, touched = run(config, seed)
        identity = seed or frozenset(read.items())
        if identity in done:
            return True
        done.add(identity)
        out.configs.append(recorded)
        shown.total = len(out.configs) + len(pending) + len(waiting)  # grows as the runs discover keys
        shown.update(len(out.configs))
        if stop is not None and stop():
            return False
        new_code = novel is not None and novel()
        stale[0] = 0 if new_code else stale[0] + 1
        dry[0] = 0 if new_code else dry[0] + 1
        if probe and not new_code:
            return True
        # a seed's choices all stand; an added configuration's only where they were read
        follow(config if seed is not None else {k: v for k, v in config.items() if k in read}, read, touched,
               new_code, reduce=new_code and seed is None)
        return True

    def solved() -> int:
        """Queue what `propose` solved for (first; a configuration run before is not queued again):
        how many it queued."""
        stale[0] = 0
        configs = propose() if propose is not None else []
        tier[0] = 0
        before = len(waiting)
        for config in configs:
            push(config)
        tier[0] = 1
        return len(waiting) - before

    stale = [0]  # runs since one reached new code, or since the solver was last asked
    dry = [0]  # runs since one reached new code
    pending = collections.deque(seeds)  # in order, before anything the runs add
    seeded = set.intersection(*(set(s) for s in seeds)) if seeds else set()  # the keys every seed sets (the shape)
    with progress.task("configurations", len(seeds)) as shown:
        while True:
            if saturate is not None and not pending and dry[0] >= saturate and not solved():
                out.saturated = True  # no new code for `saturate` runs, and nothing left to solve for
                break
            if not pending and propose is not None and (not waiting or stale[0] >= SOLVE_AFTER):
                solved()
            if not pending and not waiting:  # nothing left, the solver's proposals included (all run before, or none)
                break
            if len(out.configs) >= len(seeds) + budget:
                out.budget_reached = True
                break
            if pending:
                config = pending.popleft()
                if not step(config, frozenset(config.items())):
                    break
            elif not step(*pop()[3:]):
                break
    return out


def size(config: dict, options: dict[str, list]) -> tuple[int, int]:
    """How far a run is from the defaults (by the final domains' `options`): its non-default
    choices, then how many of those are not plain values (a stand-in, None, absent)."""
    changed = [option for key, option in config.items() if options.get(key, [option])[0] != option]
    return len(changed), sum(1 for option in changed if option[0] != "value" or option[1] is None)
