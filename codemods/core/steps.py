"""A refactoring kind is a sequence of reviewable steps: each a transform of the tree the steps
before it left, one commit, and a tree that imports and behaves like the original.

`Steps` is a kind's sequence; the range a user may ask for (`--steps A-B`) is defined by it
alone: contiguous, within 1..len(steps).
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from typing import Generic, Sequence, TypeVar

from codemods.core.errors import BadInput
from codemods.core.runner import Outcome, Tree

Run = TypeVar("Run")
Carry = TypeVar("Carry")


class Step(ABC, Generic[Run, Carry]):
    """One step: `run` reads the kind's run (what its analysis found), the tree as the steps before
    it left it and what they handed on, and returns what it did (`core.runner.Outcome`)."""

    number: int

    @abstractmethod
    def run(self, run: Run, tree: Tree, carry: Carry) -> Outcome[Carry]:
        """Do the step on `tree`: the new module, the files changed, the subject and status lines."""

    def done(self, reading) -> bool:
        """Whether a tree has this step, as the kind reads trees (`reading`); a kind whose steps answer
        it gets its progress from `Steps.progress`."""
        raise NotImplementedError(f"{type(self).__name__} does not say whether a tree has it")


class Steps(Generic[Run, Carry]):
    """A kind's steps, numbered from 1."""

    def __init__(self, steps: Sequence[Step[Run, Carry]]):
        assert [s.number for s in steps] == list(range(1, len(steps) + 1))
        self.steps = tuple(steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, number: int) -> Step[Run, Carry]:
        return self.steps[number - 1]

    @property
    def all(self) -> range:
        return range(1, len(self) + 1)

    def progress(self, reading) -> int:
        """How many steps a tree has: those it has in order, up to the first it lacks (`Step.done`)."""
        done = 0
        for step in self.steps:
            if not step.done(reading):
                break
            done += 1
        return done

    def after(self, done: int) -> range:
        """The steps a tree that has the first `done` lacks."""
        return range(done + 1, len(self) + 1)

    def check(self, steps: range) -> range:
        """`steps` if it is a contiguous range within these, else `BadInput`."""
        if not (len(steps) and steps.step == 1 and 1 <= steps.start and steps.stop <= len(self) + 1):
            raise BadInput(f"steps must be a contiguous range within 1-{len(self)}, got {steps}")
        return steps

    def parse(self, text: str) -> range:
        """`--steps A-B` (or `A`), for argparse."""
        try:
            a, _, b = text.partition("-")
            start, stop = int(a), int(b or a)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected A-B such as 1-{len(self)}, got {text!r}") from None
        if not 1 <= start <= stop <= len(self):
            raise argparse.ArgumentTypeError(f"steps must lie within 1-{len(self)} with A <= B, got {text!r}")
        return range(start, stop + 1)
