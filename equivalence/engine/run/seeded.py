"""Every run starts afresh: from the same random state (code that draws random numbers, a layer's
weights initialised by `torch.nn.Linear`, `random.shuffle`, draws the same ones in both versions,
and a difference in what it wrote is the code's, never the generator's), and with the memos of
the code under test empty (a value one configuration gave never answers the next)."""

from __future__ import annotations

import functools
import random
import sys

SEED = 0
_torch_state = None  # torch's CPU generator right after manual_seed(SEED)


def reseed() -> None:
    """Python's, numpy's and torch's generators set to SEED (those already imported: the run
    imports none of them for this)."""
    global _torch_state
    random.seed(SEED)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(SEED)
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "manual_seed"):
        return
    # manual_seed costs ~100 us (it seeds every device); restoring the CPU generator's state, 0.3 us
    if _torch_state is None or not hasattr(torch, "set_rng_state"):
        torch.manual_seed(SEED)
        _torch_state = torch.get_rng_state() if hasattr(torch, "get_rng_state") else None
    else:
        torch.set_rng_state(_torch_state)


def start_afresh(memo_clears: list) -> None:
    """Before a run: the generators reseeded, each memo emptied (`memo_clearers`)."""
    reseed()
    for clear in memo_clears:
        clear()


def memo_clearers(modules) -> list:
    """`cache_clear` of each memoised function the modules define (`@functools.lru_cache`,
    `@cache`), at module level or in a class of theirs: each run starts with them empty. Only
    the memo's own type is looked at (a stand-in or stub answers any attribute)."""
    out = []
    for module in modules:
        for value in list(vars(module).values()):
            own_class = issubclass(type(value), type) and value.__module__ == module.__name__
            for v in [value, *vars(value).values()] if own_class else [value]:
                v = v.__func__ if type(v) in (staticmethod, classmethod) else v
                if type(v) is _MEMO and v.__module__ == module.__name__:
                    out.append(v.cache_clear)
    return out


_MEMO = type(functools.lru_cache()(lambda: None))
