"""What PR #31147's preset checks: `ModelRunner.configure_kv_cache_dtype`, loaded by the engine
like any method, with torch an input (hints.py: with or without float4)."""

from __future__ import annotations

from pathlib import Path

from equivalence.engine.check import Method
from equivalence.engine.load.version import Version
from equivalence.presets.kv_dtype.files import KV_PATH, RUNNER_PATH, find_root
from equivalence.presets.kv_dtype.hints import TORCH

__all__ = ["RUNNER_CLASS", "METHOD", "RUNNER_PATH", "KV_PATH", "SUBJECT", "find_root", "load_version"]

RUNNER_CLASS = "ModelRunner"
METHOD = "configure_kv_cache_dtype"
SUBJECT = Method(RUNNER_CLASS, METHOD, RUNNER_PATH, real_inputs={"torch": TORCH})


def load_version(path: Path, label: str | None = None, overrides: dict[str, str] | None = None) -> Version:
    """The version in `path`; `overrides` maps a relative path to replacement source."""
    return SUBJECT.load(find_root(path), label or str(path), overrides)
