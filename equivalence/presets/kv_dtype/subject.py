"""What PR #31147's preset checks: `ModelRunner.configure_kv_cache_dtype`, loaded by the engine
like any method, with torch an input (hints.py: with or without float4)."""

from __future__ import annotations

from pathlib import Path

from pysource import layout

from equivalence.engine.check import Method
from equivalence.engine.load.version import LoadError, Version
from equivalence.presets.kv_dtype.hints import TORCH

RUNNER_CLASS = "ModelRunner"
METHOD = "configure_kv_cache_dtype"
RUNNER_PATH = "sglang/srt/model_executor/model_runner.py"
KV_PATH = "sglang/srt/mem_cache/kv_cache_dtype.py"  # where the steps move it
SUBJECT = Method(RUNNER_CLASS, METHOD, RUNNER_PATH, real_inputs={"torch": TORCH})


def find_root(path: Path) -> Path:
    """The folder holding the `sglang` package: the codemod's rule (`pysource.layout`)."""
    try:
        return layout.find_root(Path(path), RUNNER_PATH).root
    except layout.NotASourceTree as e:
        raise LoadError(f"{path}: {e}") from None


def load_version(path: Path, label: str | None = None, overrides: dict[str, str] | None = None) -> Version:
    """The version in `path`; `overrides` maps a relative path to replacement source."""
    return SUBJECT.load(find_root(path), label or str(path), overrides)
