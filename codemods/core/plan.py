"""A refactoring's change set, computed before any file is touched: the new full text of every
file it changes, the texts they had, and the steps (one commit each) that lead there."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional


@dataclass
class StepResult:
    number: int
    subject: str
    changes: dict[Path, str]  # files this step changed -> their text after it


@dataclass
class Plan:
    root: Path
    shape: str
    changes: dict[Path, str] = field(default_factory=dict)  # absolute path -> new full text
    originals: dict[Path, Optional[str]] = field(default_factory=dict)  # None: file is new
    messages: list[str] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)
    # places the trees between the steps break and the last step mends (callers of a method that
    # a wrapper gives back): the steps are written together, never committed one by one
    broken_between_steps: list = field(default_factory=list)
