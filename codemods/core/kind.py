"""A refactoring kind is one object: its command line, the spec it reads off it, its analysis and
its ordered steps (the shape of LibCST's `Codemod`, whose `add_args` a command line calls, and of
Rope's one class per refactoring).

A kind says what is its own; `Kind` does the rest, the same for every kind:

    class ExtractThing(Kind[ThingSpec]):
        name = "extract_thing"                  # python -m codemods.extract_thing
        description, epilog = "...", "..."      # --help
        steps = STEPS                           # core.steps.Steps: the ordered steps
        default_steps = None                    # --steps' default (None: those the tree lacks)

        def add_args(self, p): ...              # its arguments between PATH and the output options,
                                                # --steps among them (`add_steps`)
        def spec(self, args) -> ThingSpec: ...  # what the user asks, from the command line
        def context(self, path, spec, *, format=True) -> Context: ...  # the run on PATH
        def plan(self, ctx, spec, steps) -> Plan: ...  # its analysis, then `core.runner.run_steps`

`main` is the command (`python -m codemods.NAME`): the parser (`build_parser`), then, as every
command does (`core.command`), an interrupted run finished first, the plan, and the diff
(`--dry-run`), the commits (`--commit`) or the all-or-nothing write, each error one line and its
exit code (`core.output.run_command`). `codemods/__init__.py` registers the kinds.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Generic, Optional, TypeVar

from codemods.core.command import PATH_HELP, add_output_options, apply_plan, prepare
from codemods.core.context import Context
from codemods.core.output import run_command
from codemods.core.plan import Plan
from codemods.core.steps import Steps

Spec = TypeVar("Spec")


class Kind(ABC, Generic[Spec]):
    name: str  # the command: python -m codemods.NAME
    description: str
    epilog: str
    steps: Steps
    default_steps: Optional[range] = None  # --steps' default; None: the steps the tree lacks
    path_help: str = PATH_HELP

    @property
    def prog(self) -> str:
        return f"python -m codemods.{self.name}"

    @abstractmethod
    def add_args(self, p: argparse.ArgumentParser) -> None:
        """The kind's own arguments, after PATH and before the output options (--steps among them:
        `add_steps`)."""

    @abstractmethod
    def spec(self, args: argparse.Namespace) -> Spec:
        """What the user asks, read off the parsed command line."""

    @abstractmethod
    def context(self, path: Path, spec: Spec, *, format: bool = True) -> Context:
        """The run on PATH (`core.context.Context.open`); nothing read but the layout's probes."""

    @abstractmethod
    def plan(self, ctx: Context, spec: Spec, steps: Optional[range]) -> Plan:
        """The plan of `steps` (None: those the tree lacks) in the run `ctx`; nothing written."""

    def add_steps(self, p: argparse.ArgumentParser, help: str) -> None:
        """--steps A-B, read by the kind's steps (`core.steps.Steps.parse`)."""
        p.add_argument("--steps", type=self.steps.parse, default=self.default_steps, metavar="A-B", help=help)

    def build_parser(self) -> argparse.ArgumentParser:
        p = argparse.ArgumentParser(prog=self.prog, description=self.description, epilog=self.epilog,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("path", type=Path, metavar="PATH", help=self.path_help)
        self.add_args(p)
        add_output_options(p)
        return p

    def main(self, argv: Optional[list[str]] = None) -> int:
        """The command: its exit code."""
        args = self.build_parser().parse_args(argv)
        return run_command(lambda: self.run(args))

    def run(self, args: argparse.Namespace) -> int:
        spec = self.spec(args)
        ctx = self.context(args.path, spec, format=not args.no_format)
        prepare(args, ctx.root)  # an interrupted run is finished before anything is read
        with ctx:
            return apply_plan(args, self.plan(ctx, spec, args.steps))
