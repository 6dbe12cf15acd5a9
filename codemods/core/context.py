"""One run of a codemod: built once, from the PATH the user typed, and handed to every step.

It holds where the package is (`pysource.layout`: the one PATH rule), the checkout whose files
the run reads (each read once), the formatting style of the tree, and the run's parse caches
(`pysource.parsing.Parses`: each text parsed at most once by `ast` and once by LibCST while the
context is entered). Nothing is read from the tree when it is built but the layout's probes,
so that a command can first finish an interrupted run (`command.prepare`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from codemods.core.errors import BadInput
from codemods.core.formatting import Style, find_style
from pysource.checkout import Checkout
from pysource.layout import Found, NotASourceTree, find_root, not_a_folder
from pysource.parsing import Parses


@dataclass
class Context:
    path: Path  # as the user typed it
    found: Found  # the folder holding the package, and which layout PATH has
    checkout: Checkout
    format: bool = True  # --no-format: False
    parses: Parses = field(default_factory=Parses)
    _style: Optional[Style] = field(default=None, repr=False)

    @classmethod
    def open(cls, path: Path, probe: str, *, format: bool = True) -> "Context":
        """The context of a run on `path`, which must hold `probe` (a file relative to the folder
        holding the package: `sglang/__init__.py`, or the file the refactoring starts from)."""
        path = Path(path)
        found = located(path, probe)
        package = probe.split("/")[0]
        return cls(path, found, Checkout.find(path, found.root, package), format)

    @property
    def root(self) -> Path:
        """The folder holding the package."""
        return self.found.root

    @property
    def style(self) -> Style:
        """How touched code is formatted (the tree's black/isort settings), read on first use."""
        if self._style is None:
            self._style = find_style(self.root, enabled=self.format)
        return self._style

    def read(self, path: Path) -> str:
        """A file's text, every way it cannot be read a `BadInput`."""
        return read(path)

    def __enter__(self) -> "Context":
        self.parses.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.parses.__exit__(*exc)


def located(path: Path, rel: str) -> Found:
    """`pysource.layout.find_root(path, rel)`, every way PATH can be wrong a `BadInput`."""
    wrong = not_a_folder(path)
    if wrong:
        raise BadInput(wrong, path)
    try:
        return find_root(path, rel)
    except NotASourceTree as exc:
        raise BadInput(str(exc), path) from None


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except PermissionError:
        raise BadInput("cannot read the file (permission denied)", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read the file: {exc}", path) from None
