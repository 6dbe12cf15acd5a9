"""What checking one pair gave: `Checked` (both versions ran: the run's result and the static
check, or why that could not be done) or `NotRun` (a version could not be imported here: why).
A report is built from one of them per pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, Union

if TYPE_CHECKING:
    from equivalence.engine.judge.static_check import StaticReport

Result = TypeVar("Result")  # engine.run.pairs.PairResult, component.check.Result


@dataclass(frozen=True)
class Checked(Generic[Result]):
    result: Result
    static: StaticReport | str


@dataclass(frozen=True)
class NotRun:
    before: str
    after: str
    reason: str


PairOutcome = Union[Checked, NotRun]
