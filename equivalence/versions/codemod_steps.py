"""Versions made by a codemod (`--steps`): the original, each step, each fix, the one-shot
output; each in a temporary copy of the user's tree (hard links, so that
copying a release is cheap; changed files are replaced, never written through a link); the
run's temporary folder, removed whatever happens (also on SIGINT/SIGTERM/SIGHUP)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


class CodemodMissing(Exception):
    """The codemod a flow needs is not importable here."""


class CodemodFailed(Exception):
    """The codemod refused or found nothing to do on the tree (its message, about the user's tree);
    `together`: the steps it runs only as one, when that is why (`codemods.core.errors.StepsTogether`)."""

    def __init__(self, message: str, together: range | None = None):
        super().__init__(message)
        self.together = together


def link_copy(src: Path, dest: Path) -> None:
    """A copy of the tree `src` at `dest`, by hard links where the file system allows."""
    def link(a, b):
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, dest, copy_function=link)


def apply_in_copy(previous: Path, dest: Path, original: Path, run) -> Path:
    """Link-copy `previous` to `dest` and write there the changes of `run(dest)` (a codemod plan)."""
    from codemods.core.errors import CodemodError

    link_copy(previous, dest)
    try:
        plan = run(dest)
    except CodemodError as e:  # name the user's tree, not our temporary copy
        raise CodemodFailed(str(e).replace(str(dest), str(original)), getattr(e, "together", None)) from None
    for path, text in plan.changes.items():
        path = Path(path)
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return dest


@dataclass(frozen=True)
class Codemod:
    """What `--steps` runs: the codemod's API and its steps (as the codemod defines them)."""

    run: Callable[[Path, range], object]  # (tree, steps) -> its plan, nothing written
    steps: range  # all its steps, 1..N

    @property
    def one_shot(self) -> str:
        return one_shot_label(self.steps)


def one_shot_label(steps: range) -> str:
    return f"codemod output (steps {steps[0]}-{steps[-1]} in one run)"


ONE_SHOT = one_shot_label(range(1, 5))  # codemods.extract_method's, and its kv preset's


@dataclass(frozen=True)
class Fix:
    """A change a codemod makes after its last step, meant to fix one finding."""

    name: str
    finding: str
    apply: Callable[[Path], object]  # tree -> the codemod's plan


@dataclass
class StepVersions:
    trees: list[tuple[str, Path]]
    pairs: list[tuple[int, int]]  # indices into trees
    intended: dict[int, list[str]]  # pair index -> the finding its fix is meant to fix


def step_versions(root: Path, workdir: Path, codemod: Codemod, fixes: list[Fix] = ()) -> StepVersions:
    """original -> step 1 -> ... -> the last step (-> each fix), then original -> the one-shot
    output; trees in refactoring order (findings name the version a fix removed them in)."""
    steps = step_trees(root, workdir, codemod)
    fixed, previous = [], steps[-1][1]
    for fix in fixes:
        previous = apply_in_copy(previous, workdir / f"fix-{fix.name}", root, fix.apply)
        fixed.append((f"+ fix {fix.name}", previous))
    trees = steps + [one_shot_tree(root, workdir, codemod)] + fixed
    chain = list(range(len(steps))) + list(range(len(steps) + 1, len(trees)))
    pairs = list(zip(chain, chain[1:])) + [(0, len(steps))]
    intended = {len(steps) - 1 + i: [fix.finding] for i, fix in enumerate(fixes)}
    return StepVersions(trees, pairs, intended)


def step_trees(root: Path, workdir: Path, codemod: Codemod) -> list[tuple[str, Path]]:
    """[("original", root), ("step 1", copy), ...]: step k applied to the tree of step k-1; steps
    the codemod runs only together (`CodemodFailed.together`, starting at k) as one ("steps 1-3")."""
    trees = [("original", root)]
    step = codemod.steps[0]
    while step <= codemod.steps[-1]:
        run = range(step, step + 1)
        try:
            dest = apply_in_copy(trees[-1][1], workdir / f"step{step}", root, lambda tree: codemod.run(tree, run))
        except CodemodFailed as e:
            if e.together is None or e.together.start != step or len(e.together) < 2:
                raise
            run = e.together
            shutil.rmtree(workdir / f"step{step}", ignore_errors=True)
            dest = apply_in_copy(trees[-1][1], workdir / f"step{step}", root, lambda tree: codemod.run(tree, run))
        trees.append((f"step {step}" if len(run) == 1 else f"steps {run[0]}-{run[-1]}", dest))
        step = run[-1] + 1
    return trees


def one_shot_tree(root: Path, workdir: Path, codemod: Codemod) -> tuple[str, Path]:
    """The codemod's output as a user gets it: all its steps in one run, in its own copy.
    (Step by step, a codemod may place things by its split-run rule; in one run, where the
    method was: the two outputs can differ, and the one-shot output is what gets committed.)"""
    return codemod.one_shot, apply_in_copy(root, workdir / "one-shot", root,
                                           lambda tree: codemod.run(tree, codemod.steps))


class Interrupted(BaseException):
    """SIGTERM or SIGHUP, raised like KeyboardInterrupt so that every `finally` runs."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


@contextmanager
def temporary_workdir():
    """A temporary folder removed whatever happens: while it exists SIGTERM/SIGHUP raise
    `Interrupted` (as SIGINT raises KeyboardInterrupt), and no signal lands between its creation
    and the `try` nor during its removal (they wait, blocked, and are raised right after)."""
    signals = {signal.SIGINT, *STOP_SIGNALS}
    previous = {s: signal.signal(s, _raise_interrupted) for s in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        path = Path(tempfile.mkdtemp(prefix="equivalence-")).resolve()
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            yield path
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, signals)
            shutil.rmtree(path, ignore_errors=True)
    finally:
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a signal that waited is raised here
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
