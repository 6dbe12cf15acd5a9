"""Where the package is, given the PATH a user typed: one rule for the codemods and the harness.

Accepted, exactly (no walking up from an unrelated folder), in this order (`layouts`):
- PATH holds the package: PATH/sglang/srt/... (an unpacked wheel, site-packages);
- PATH is a checkout: PATH/python/sglang/srt/... (sglang's git layout);
- PATH is the package folder itself: PATH is .../sglang and PATH/srt/... exists.
`find_root` returns the folder holding the package, given a file it must hold; the harness,
which only knows a class, searches the same layouts (`pysource.classes.find_class_file`).
Imports nothing heavy (no torch, no libcst).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional


class NotASourceTree(Exception):
    """PATH is none of the accepted layouts; the message lists what was looked for."""


@dataclass(frozen=True)
class Found:
    root: Path  # the folder holding the package
    how: str  # which layout PATH has, for the "found" line


@dataclass(frozen=True)
class Layout:
    root: Path  # the folder that would hold the package
    only: Optional[str]  # the one package it may be (PATH is that package's folder), else any
    how: str  # for the "found" line: "a folder holding the {package} package", ...


def layouts(path: Path) -> Iterator[Layout]:
    """The layouts PATH may have, in the order they are tried."""
    path = Path(path)
    yield Layout(path, None, "a folder holding the {package} package")
    yield Layout(path / "python", None, "a checkout (python/{package})")
    yield Layout(path.parent, path.name, "the {package} package folder")


def packages_held(path: Path) -> list[str]:
    """The packages of the first layout of PATH that holds any (folders with an `__init__.py`)."""
    for layout in layouts(Path(path)):
        if layout.root.is_dir():
            held = [p.name for p in sorted(layout.root.iterdir()) if layout.only in (None, p.name)
                    and (p / "__init__.py").is_file()]
            if held:
                return held
    return []


def not_a_folder(path: Path) -> Optional[str]:
    """What is wrong with PATH before any layout is tried, else None: missing, or no folder
    (then what to pass instead: the folder holding the package or a checkout; for a file inside
    a package, the folder holding its outermost package folder, namespace folders included)."""
    path = Path(path)
    if not path.exists():
        return "no such file or directory"
    if path.is_dir():
        return None
    packages = [p for p in path.resolve().parents if (p / "__init__.py").is_file()]
    here = f" ({packages[-1].parent} for this file)" if packages else ""
    return (f"not a directory: PATH is the folder holding the package{here} or a git checkout holding "
            "python/<package>, not a file in it")


def find_root(path: Path, source_file: str) -> Found:
    """`source_file` is relative to the folder holding the package, e.g.
    `sglang/srt/model_executor/model_runner.py`."""
    path = Path(path)
    package, _, inside = source_file.partition("/")
    for layout in layouts(path):
        if layout.only in (None, package) and (layout.root / source_file).is_file():
            return Found(layout.root.resolve(), layout.how.format(package=package))
    raise NotASourceTree(f"not an {package} tree: looked for {path / source_file} (a folder holding the package), "
                         f"{path / 'python' / source_file} (a checkout) and, if PATH is named {package}, "
                         f"{path / inside} (the package folder itself)")
