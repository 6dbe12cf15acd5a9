"""What the method and the component subjects share: a subject named `[MODULE.]CLASS.MEMBER`
(a method, a component attribute), whose class is found in each tree once."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, NoReturn

from equivalence.engine.load.source_file import find_source
from equivalence.subject import Subject


class OfAClass(Subject):
    option = ("--method", "METHOD")  # the option naming the subject, and its last part, for messages

    def __init__(self, dotted: str):
        parts = dotted.split(".")  # validate() rejects fewer than two
        self.class_name, self.member = parts[-2:] if len(parts) > 1 else (None, None)
        self.module = ".".join(parts[:-2]) or None
        self._found: dict[Path, tuple[Path, str]] = {}

    def validate_name(self, dotted: str, error: Callable[[str], NoReturn]) -> None:
        flag, last = self.option
        if len(dotted.split(".")) < 2:
            error(f"{flag} wants CLASS.{last} (or MODULE.CLASS.{last}), got {dotted!r}")

    def find(self, path: Path) -> tuple[Path, str]:
        """(the folder holding the package, the file defining the class), found once per path."""
        if path not in self._found:
            self._found[path] = find_source(path, self.class_name, self.module,
                                            (self.option[0], self.member or self.option[1]))
        return self._found[path]

    def root(self, path: Path) -> Path:
        return self.find(path)[0]
