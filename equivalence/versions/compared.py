"""What a report compared (its `compared` key): two trees as the user named them, a tree and
the codemod's versions of it, or revisions of a git checkout; each version with the sglang
release it holds, when its sglang/version.py says (a wheel's version.py reads it from
sglang/_version.py; a git checkout has neither literal, and the version is left out)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable

from equivalence.versions import revisions
from pysource import parsing
from equivalence.versions.codemod_steps import StepVersions
from equivalence.versions.revisions import Series

VERSION_FILES = ("sglang/version.py", "sglang/_version.py")


def sglang_version(read: Callable[[str], str | None]) -> str | None:
    """The `__version__` string bound at module level in the first of VERSION_FILES that binds
    one; `read(rel)` is a file's text (None if absent)."""
    for rel in VERSION_FILES:
        text = read(rel)
        try:
            tree = parsing.parse(text or "")
        except SyntaxError:
            continue
        for node in tree.body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                    and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)):
                return node.value.value
    return None


def _in_folder(root: Path) -> Callable[[str], str | None]:
    def read(rel: str) -> str | None:
        try:
            return (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    return read


def _version(read: Callable[[str], str | None]) -> dict:
    found = sglang_version(read)
    return {"sglang_version": found} if found else {}


def of_trees(paths: list[Path], roots: list[Path]) -> dict:
    """BEFORE AFTER: each as typed, `roots` the folders holding their package."""
    return {"mode": "trees", "versions": [{"label": str(path), "path": str(path), **_version(_in_folder(root))}
                                          for path, root in zip(paths, roots)]}


def of_steps(path: Path, versions: StepVersions, codemod: str, fixes: list[str]) -> dict:
    """--steps PATH: the original and what `codemod` (then its `fixes`) made of it, in tree order."""
    listed = [{"label": label, **({"path": str(path)} if i == 0 else {}), **_version(_in_folder(root))}
              for i, (label, root) in enumerate(versions.trees)]
    return {"mode": "steps", "path": str(path), "codemod": codemod, "fixes": fixes, "versions": listed}


def of_revisions(series: Series) -> dict:
    """--git / --commits: the checkout and each revision read."""
    return {"mode": series.mode, "repository": str(series.repo), "range": series.spec,
            "versions": [{"label": rev.short, "revision": rev.sha,
                          **_version(lambda rel, rev=rev: revisions.read_file(series.repo, rev, rel))}
                         for rev in series.revisions]}
