"""Where PR #31147's method lives in a tree: its two files, and the folder holding the `sglang`
package. Imports nothing heavy (no torch): the command line checks its paths with it first."""

from __future__ import annotations

from pathlib import Path

from pysource import layout

from equivalence.engine.load.errors import LoadError

RUNNER_PATH = "sglang/srt/model_executor/model_runner.py"
KV_PATH = "sglang/srt/mem_cache/kv_cache_dtype.py"  # where the steps move it


def find_root(path: Path) -> Path:
    """The folder holding the `sglang` package: the codemod's rule (`pysource.layout`), and
    its messages for a PATH that is missing or no folder."""
    path = Path(path)
    wrong = layout.not_a_folder(path)
    if wrong:
        raise LoadError(f"{path}: {wrong}")
    try:
        return layout.find_root(path, RUNNER_PATH).root
    except layout.NotASourceTree as e:
        raise LoadError(f"{path}: {e}") from None
