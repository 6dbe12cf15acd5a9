"""What a run can end with besides success, and the exit code each one maps to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_REFUSED = 3
EXIT_NO_METHOD = 4
EXIT_ALREADY_APPLIED = 5
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT (pysource.commands)


class CodemodError(Exception):
    """Base class: a message for the user, optionally pointing at a file and line."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, why: str, path: Optional[Path] = None, line: Optional[int] = None):
        self.why = why
        self.path = path
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return where + self.why


class BadInput(CodemodError):
    """The input is not something the codemod can work on (missing path, syntax error, ...)."""

    exit_code = EXIT_BAD_INPUT


class StepsTogether(BadInput):
    """A run asked for part of the steps `together`, which only run as one: the tree between them
    would hold nothing a later run can go on from (a harness running steps one by one runs these
    as one)."""

    def __init__(self, why: str, together: range, path: Optional[Path] = None, line: Optional[int] = None):
        self.together = together
        super().__init__(why, path, line)


class Refusal(CodemodError):
    """The code holds a construct the rewrite cannot carry without changing behaviour."""

    exit_code = EXIT_REFUSED


class NoSuchMethod(CodemodError):
    """The tree predates the method (release too old): nothing to refactor."""

    exit_code = EXIT_NO_METHOD


class AlreadyApplied(CodemodError):
    """The tree already has the refactoring: nothing to do."""

    exit_code = EXIT_ALREADY_APPLIED


class Interrupted(CodemodError):
    """Ctrl-C once something was written (a `--commit` run's first commits): what is where."""

    exit_code = EXIT_INTERRUPTED


@dataclass(frozen=True, order=True)
class Location:
    """One place in one file, and what is wrong there (or what is there)."""

    path: Path
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}" if self.line else f"{self.path}: {self.what}"


class Conflicts(Refusal):
    """Every place the rewrite cannot carry, listed together (all conflicts first, as PyCharm's
    Move does, rather than one per run). `path`/`line` are the first location's; `note`, if
    given, follows the list (what the places have in common, what to do)."""

    def __init__(self, locations: Iterable[Location], note: str = ""):
        self.locations = sorted(set(locations))
        self.note = note
        first = self.locations[0]
        super().__init__(first.what, first.path, first.line)

    def __str__(self) -> str:
        listed = str(self.locations[0]) if len(self.locations) == 1 else (
            f"{len(self.locations)} places the refactoring cannot update:\n"
            + "\n".join(f"  {loc}" for loc in self.locations))
        return f"{listed}\n{self.note}" if self.note else listed
