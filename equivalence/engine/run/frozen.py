"""The loaded versions live through a check: the collector need not scan them again and again."""

from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def frozen():
    """The objects alive now (parsed trees, loaded modules) are left out of every collection of
    the many short-lived objects the runs make (gc.freeze); collectable again afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
