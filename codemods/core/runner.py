"""Run a range of a kind's steps over a tree, in memory: the one step loop every kind uses.

A step never writes into a shared state: it reads the run (what the kind's analysis found before
any step: `Kind.plan`), the tree as the steps before it left it (`Tree`) and what the steps
before it handed on (the kind's `Carry`, a frozen dataclass of its models), and returns an
`Outcome`. The runner renders the module the step returns (reusing the original text of every
node it kept: `core.render`), records the step in the plan (`StepResult`, its status lines) and
hands the new tree and carry to the next step. After the last, the plan's `changes` are the
files whose text differs from what they held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Generic, Mapping, Optional, Sequence, TypeVar

import libcst as cst

from codemods.core.errors import BadInput
from codemods.core.plan import Plan, StepResult

Carry = TypeVar("Carry")


@dataclass(frozen=True)
class Tree:
    """The files as the steps so far left them: the module the kind rewrites (parsed, and its
    text), and every file's text (`current`; None: the file does not exist)."""

    source: Path  # the module the steps rewrite (the class's, the owner's)
    module: cst.Module
    text: str
    current: Mapping[Path, Optional[str]]


@dataclass(frozen=True)
class Outcome(Generic[Carry]):
    """What one step did: the new source module, the other files it changed, what it says."""

    subject: str  # the commit subject, and the status line `step N: SUBJECT`
    module: cst.Module  # the source module after the step
    files: Mapping[Path, str] = field(default_factory=dict)  # other files it changed -> their text after it
    originals: Mapping[Path, Optional[str]] = field(default_factory=dict)  # their text before the run (None: new)
    noted: Sequence[str] = ()  # status lines said before the subject's
    messages: Sequence[str] = ()  # status lines said after it (what it did)
    notes: Sequence[str] = ()  # and then, after what the analysis noted (`run_steps`), what it noticed
    carry: Optional[Carry] = None  # what later steps need; None: what the step was handed
    text: Optional[str] = None  # `module` rendered, when the step rendered it itself


def run_steps(steps, numbers: range, run, tree: Tree, carry, plan: Plan,
              render: Callable[[cst.Module], str], noted: Sequence[str] = ()) -> tuple[Tree, Carry]:
    """Run the steps `numbers` of `steps` (`core.steps.Steps`) on `tree`, recording each in `plan`
    (and `plan.changes`); the tree after the last, and what the steps handed on. `noted`: what the
    analysis noted before any step, said after the first step's messages."""
    pending = list(noted)
    for number in numbers:
        step = steps[number]
        out = step.run(run, tree, carry)
        text = out.text if out.text is not None else render(out.module)
        changed = {**out.files, tree.source: text}
        for path, old in out.originals.items():
            plan.originals.setdefault(path, old)
        tree = Tree(tree.source, out.module, text, {**tree.current, **changed})
        carry = carry if out.carry is None else out.carry
        plan.steps.append(StepResult(number, out.subject, changed))
        plan.messages += list(out.noted)
        plan.messages.append(f"step {number}: {out.subject}")
        plan.messages += [*out.messages, *pending, *out.notes]
        pending = []
    plan.changes = {p: t for p, t in tree.current.items() if t is not None and t != plan.originals.get(p)}
    return tree, carry


def steps_to_run(steps, done: int, asked: Optional[range], applied: Callable[[], Exception], path: Path,
                 line: Optional[int]) -> range:
    """The steps a run on a tree that has the first `done` of `steps` (`core.steps.Steps`) does:
    `asked` (None: those the tree lacks). `applied()` (an `AlreadyApplied`) is raised when the
    tree has them all, a `BadInput` when `asked` is no range of `steps` or does not start right
    after the steps done (`check_start`)."""
    if done == len(steps):
        raise applied()
    asked = steps.after(done) if asked is None else asked
    steps.check(asked)
    check_start(done, asked, path, line)
    return asked


def check_start(done: int, steps: range, path: Path, line: Optional[int]) -> None:
    """`BadInput` unless `steps` starts right after the `done` steps the tree has."""
    if steps.start != done + 1:
        what = f"steps 1-{done} are" if done > 1 else "step 1 is" if done else "no step is"
        raise BadInput(f"{what} already applied here; run --steps {done + 1}-{max(steps.stop - 1, done + 1)} "
                       f"instead of --steps {steps.start}-{steps.stop - 1}", path, line)
