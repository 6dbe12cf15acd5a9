"""How a subject joins the command line: the options it adds, each set placed by the command line
in one of its `SECTIONS`, and when it is the subject checked (`chosen`, tried by `priority`).
Imports nothing heavy: the command line builds its parser from the registrations."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Callable, Mapping

from equivalence.subject import Subject

# where the command line places a subject's options, in the order --help shows them: the options
# naming the subject, its codemod's (for --steps), its check's, and how its check runs
SECTIONS = ("naming", "codemod", "check", "tuning")


@dataclass(frozen=True)
class Option:
    flag: str
    settings: Mapping = field(default_factory=dict)  # argparse's add_argument keywords
    codemod: bool = True  # in a codemod's options: given without --steps, a usage error

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def option(flag: str, codemod: bool = True, **settings) -> Option:
    return Option(flag, settings, codemod)


@dataclass(frozen=True)
class Options:
    """A set of options, shown in --help as a group titled `title`, or among the parser's own."""

    options: tuple[Option, ...]
    title: str | None = None

    def add(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group(self.title) if self.title else parser
        for o in self.options:
            group.add_argument(o.flag, **o.settings)

    def codemod_given(self, args: argparse.Namespace) -> list[str]:
        """The codemod options given on the command line, as typed, in this set's order."""
        return [o.flag for o in self.options if o.codemod and getattr(args, o.dest)]


@dataclass(frozen=True)
class Registration:
    name: str
    subject: Callable[[argparse.Namespace], Subject]
    chosen: Callable[[argparse.Namespace], bool]  # whether the command line names this subject
    priority: int  # of the subjects chosen, the one of the lowest priority is checked
    options: Mapping[str, Options] = field(default_factory=dict)  # section (SECTIONS) -> its options there
    help: str = ""  # its paragraph of --help's epilog (the paragraphs in priority order)
