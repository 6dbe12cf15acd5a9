"""Versions for `--steps`: the original tree and the kv codemod's output after each step, and
its one-shot output (engine/trees.py makes the copies)."""

from __future__ import annotations

from pathlib import Path

from ...engine.trees import CodemodMissing, apply_in_copy

STEPS = (1, 2, 3, 4)


def _refactor():
    try:
        from codemods.extract_kv_dtype import refactor
    except ImportError as e:
        raise CodemodMissing(
            f"--steps needs codemods.extract_kv_dtype.refactor, which is not importable here ({e})"
        ) from None
    return refactor


def step_trees(root: Path, workdir: Path) -> list[tuple[str, Path]]:
    """[("original", root), ("step 1", copy), ...]: step k applied to the tree of step k-1."""
    refactor = _refactor()
    trees = [("original", root)]
    for step in STEPS:
        dest = apply_in_copy(trees[-1][1], workdir / f"step{step}", root,
                             lambda tree: refactor(tree, range(step, step + 1)))
        trees.append((f"step {step}", dest))
    return trees


ONE_SHOT = "codemod output (steps 1-4 in one run)"


def one_shot_tree(root: Path, workdir: Path) -> tuple[str, Path]:
    """The codemod's output as a user gets it: all four steps in one run, in its own copy.
    (Step by step, the wrapper is placed by the split-run rule; in one run, where the method
    was: the two outputs can differ, and the one-shot output is what gets committed.)"""
    refactor = _refactor()
    return ONE_SHOT, apply_in_copy(root, workdir / "one-shot", root, lambda tree: refactor(tree, range(1, 5)))
