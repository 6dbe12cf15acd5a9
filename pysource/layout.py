"""Where the package is, given the PATH a user typed: one rule for the codemod and the harness.

Accepted, exactly (no walking up from an unrelated folder):
- PATH holds the package: PATH/sglang/srt/... (an unpacked wheel, site-packages);
- PATH is a checkout: PATH/python/sglang/srt/... (sglang's git layout);
- PATH is the package folder itself: PATH is .../sglang and PATH/srt/... exists.
Returns the folder holding the package. Imports nothing heavy (no torch, no libcst).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class NotASourceTree(Exception):
    """PATH is none of the accepted layouts; the message lists what was looked for."""


@dataclass(frozen=True)
class Found:
    root: Path  # the folder holding the package
    how: str  # which layout PATH has, for the "found" line


def find_root(path: Path, source_file: str) -> Found:
    """`source_file` is relative to the folder holding the package, e.g.
    `sglang/srt/model_executor/model_runner.py`."""
    path = Path(path)
    package, _, inside = source_file.partition("/")
    candidates = (
        (path, source_file, f"a folder holding the {package} package"),
        (path / "python", source_file, f"a checkout (python/{package})"),
        (path.parent, f"{path.name}/{inside}" if path.name == package else None, f"the {package} package folder"),
    )
    for root, rel, how in candidates:
        if rel is not None and (root / rel).is_file():
            return Found(root.resolve(), how)
    raise NotASourceTree(f"not an {package} tree: looked for {path / source_file} (a folder holding the package), "
                         f"{path / 'python' / source_file} (a checkout) and, if PATH is named {package}, "
                         f"{path / inside} (the package folder itself)")
