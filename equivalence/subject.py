"""What `python -m equivalence` checks, as the command line sees it. Any method
(`subjects/method.py`, `--method CLASS.METHOD`), a component (`subjects/component.py`, `--component
CLASS.ATTR`), PR #31147's preset (`presets/kv_dtype/preset.py`) and the moves found
(`subjects/moves.py`) implement it, each registered with its options (`subjects/registration.py`);
`subjects.choose` picks one. Imports nothing heavy (no torch): the command line validates its
options and checks its paths through it first."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Callable, NoReturn

from equivalence.engine.report.verdict import Report
from equivalence.versions.codemod_steps import Codemod, Fix

Trees = list[tuple[str, Path]]  # (label, the folder holding the package)
Pairs = list[tuple[int, int]]  # (before, after): indices into the trees
Intended = dict[int, list[str]]  # pair index -> the findings that pair (a fix) may change


class Subject(ABC):
    # what a git revision needs: paths inside the folder holding the package, the first one
    # required (versions/git_review.Checker.files); None: every .py file
    git_files: tuple[str, ...] | None = None
    codemod_name: str  # the codemod `--steps` runs, as its command is named

    @abstractmethod
    def validate(self, args, error: Callable[[str], NoReturn]) -> None:
        """Reject (through `error`, a usage error) the options that do not go with this subject."""

    @abstractmethod
    def root(self, path: Path) -> Path:
        """The folder holding the package in the PATH a user typed; a LoadError says why there is none."""

    def check_tree(self, path: Path) -> None:
        """Whatever the tree at PATH must hold that can be checked before torch is imported (a
        method named by --method, spelled right); a LoadError says what is missing."""

    @abstractmethod
    def refactor(self) -> Codemod:
        """The codemod `--steps` runs, its API and its steps (CodemodMissing when it is not
        importable)."""

    def fixes(self) -> list[Fix]:
        """What `--steps` applies after the last step, each paired with the finding it fixes."""
        return []

    def intended(self) -> Intended:
        """The findings a single pair (BEFORE AFTER, --git) is meant to fix."""
        return {}

    @abstractmethod
    def check(self, trees: Trees, pairs: Pairs, mutants: bool, intended: Intended) -> Report:
        """Load each tree as a version and check each pair: the report; a LoadError names file and
        line when a version cannot be loaded."""

    @abstractmethod
    def markdown(self, report: dict) -> str:
        """The report's JSON (`Report.to_json`) in Markdown, for a PR comment."""

    @abstractmethod
    def terminal(self, report: dict) -> str:
        """The report's JSON in a short terminal summary."""
