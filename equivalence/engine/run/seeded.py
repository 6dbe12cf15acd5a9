"""Every run starts from the same random state: code that draws random numbers (a layer's weights
initialised by `torch.nn.Linear`, `random.shuffle`) draws the same ones in both versions, and a
difference in what it wrote is the code's, never the generator's."""

from __future__ import annotations

import random
import sys

SEED = 0


def reseed() -> None:
    """Python's, numpy's and torch's generators set to SEED (those already imported: the run
    imports none of them for this)."""
    random.seed(SEED)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(SEED)
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "manual_seed"):
        torch.manual_seed(SEED)
