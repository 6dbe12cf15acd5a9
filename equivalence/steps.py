"""Versions for `--steps`: the original tree and the codemod's output after each step, each in
a temporary copy (hard links, so that copying a release is cheap; changed files are
replaced, never written through a link)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

STEPS = (1, 2, 3, 4)


class CodemodMissing(Exception):
    pass


def _refactor():
    try:
        from codemods.extract_kv_dtype import refactor
    except ImportError as e:
        raise CodemodMissing(
            f"--steps needs codemods.extract_kv_dtype.refactor, which is not importable here ({e})"
        ) from None
    return refactor


def _link_copy(src: Path, dest: Path) -> None:
    def link(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, dest, copy_function=link)


def step_trees(root: Path, workdir: Path) -> list[tuple[str, Path]]:
    """[("original", root), ("step 1", copy), ...]: step k applied to the tree of step k-1."""
    refactor = _refactor()
    trees = [("original", root)]
    previous = root
    for step in STEPS:
        dest = workdir / f"step{step}"
        _link_copy(previous, dest)
        plan = refactor(dest, range(step, step + 1))
        for path, text in plan.changes.items():
            path = Path(path)
            if path.exists():
                path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        trees.append((f"step {step}", dest))
        previous = dest
    return trees


def temporary_workdir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="equivalence-steps-")
