"""pull_up as a kind: python -m codemods.pull_up PATH BASE --members M1,M2,... [--init-tail]."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.pull_up import STEPS, PullUpSpec, plan
from codemods.pull_up.spec import context_for

EPILOG = """\
steps (one commit each with --commit; those asked for that the tree lacks):
  1  --members: each method every direct subclass of BASE in the checkout defines, as the same
     code (formatting and comments aside) reading the same module names, goes up into BASE (the
     first subclass's copy; in place of BASE's own, if any) and leaves every direct subclass;
     imports the copy needs are added to BASE's module.
  2  --init-tail: the statements every direct subclass's __init__ runs right after
     super().__init__(...) (their common prefix; a plain store `self.X = constant or clock()`
     further on when the statements before it are such stores of other attributes) end
     BASE.__init__ and leave the subclasses.

refused (exit 3, file:line: why, nothing written): a direct subclass lacking a member or defining
it otherwise; BASE instantiated, used as a value, BASE.m or BASE.__init__ read, super(X, ...).m;
a subclass that would resolve a member otherwise (a class between it and BASE defining it, an
override calling super() that reached BASE's own); super().X in a copy finding something else
from BASE, __class__, mangled names; a name the copy reads that BASE's module binds otherwise or
cannot import; bases the checkout cannot follow. With --init-tail also: BASE.__init__ returning
early, a class between a direct subclass and BASE defining __init__, a subclass calling
super().__init__ other than once at its top level, a statement reading __init__'s locals or
parameters. Every problem is listed at once.

exit codes:
  0  success (or, with --dry-run, the diff was printed)
  2  bad input (PATH, names, no subclass of BASE, a member no direct subclass defines, ...)
  3  refused: the pull-up would change behaviour (file:line: why)
  4  neither BASE nor its direct subclasses define the members
  5  already applied: nothing to pull up
  130  interrupted (Ctrl-C): one line; nothing written
  141  stdout closed early (e.g. --dry-run | head): stops quietly

example (sglang 0.5.22 -> 0.5.23, the disaggregation senders):
  python -m codemods.pull_up ~/sglang CommonKVSender --members poll,poll_pp_consensus --dry-run
"""


def _class(text: str) -> tuple[str | None, str]:
    module, _, cls = text.rpartition(".")
    if not cls or (module and any(not p for p in module.split("."))):
        raise argparse.ArgumentTypeError(f"expected BASE or MODULE.BASE, got {text!r}")
    return module or None, cls


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("expected M1,M2,...")
    return names


class PullUp(Kind[PullUpSpec]):
    name = "pull_up"
    description = ("Pull up into BASE the methods every direct subclass defines alike (--members) and the "
                   "statements every subclass's __init__ runs right after super().__init__(...) (--init-tail).")
    epilog = EPILOG
    steps = STEPS

    def add_args(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("base", type=_class, metavar="BASE",
                       help="the class the members go up into; MODULE.BASE where several modules define it")
        p.add_argument("--members", type=_names, default=(), metavar="M1,M2,...",
                       help="step 1: the methods to pull up (every direct subclass defines each alike)")
        p.add_argument("--init-tail", action="store_true",
                       help="step 2: pull up what every direct subclass's __init__ runs right after "
                            "super().__init__(...)")
        p.add_argument("--source", metavar="FILE", help="the file defining BASE, relative to the folder holding the "
                                                        "package (default: the one file that does)")
        self.add_steps(p, "contiguous range of steps to run (default: those --members and --init-tail ask for that "
                          "the tree lacks); each step needs its option")

    def spec(self, args: argparse.Namespace) -> PullUpSpec:
        module, cls = args.base
        return PullUpSpec(base=cls, members=args.members, init_tail=args.init_tail, source_file=args.source,
                          base_module=module)

    def context(self, path: Path, spec: PullUpSpec, *, format: bool = True) -> Context:
        return context_for(path, spec, format=format)

    def plan(self, ctx: Context, spec: PullUpSpec, steps: Optional[range]) -> Plan:
        return plan(ctx, spec, steps)


KIND = PullUp()
