"""Versions for `--steps`: the original tree, the kv codemod's output after each step, and its
one-shot output (versions/codemod_steps.py makes the copies)."""

from __future__ import annotations

from pathlib import Path

from equivalence.versions import codemod_steps as trees
from equivalence.versions.codemod_steps import ONE_SHOT, CodemodMissing

__all__ = ["ONE_SHOT", "step_trees", "one_shot_tree"]


def _refactor():
    try:
        from codemods.extract_kv_dtype import refactor
    except ImportError as e:
        raise CodemodMissing(
            f"--steps needs codemods.extract_kv_dtype.refactor, which is not importable here ({e})"
        ) from None
    return refactor


def step_trees(root: Path, workdir: Path) -> list[tuple[str, Path]]:
    return trees.step_trees(root, workdir, _refactor())


def one_shot_tree(root: Path, workdir: Path) -> tuple[str, Path]:
    return trees.one_shot_tree(root, workdir, _refactor())
