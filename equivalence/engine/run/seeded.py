"""Every run starts from the same random state: code that draws random numbers (a layer's weights
initialised by `torch.nn.Linear`, `random.shuffle`) draws the same ones in both versions, and a
difference in what it wrote is the code's, never the generator's."""

from __future__ import annotations

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
