"""The subjects the command line can check, each registered once (`registration.Registration`):
a method (`--method`, subjects/method.py), a component (`--component`, subjects/component.py),
PR #31147's preset (presets/kv_dtype/preset.py), else what moved (subjects/moves.py). Each adds
its options to the parser (`add_options`) and says when it is the one checked (`choose`)."""

from __future__ import annotations

import argparse
from functools import cache

from equivalence.subject import Subject
from equivalence.subjects.registration import SECTIONS, Registration


@cache
def registry() -> tuple[Registration, ...]:
    """Every subject, in the order their options appear in --help."""
    from equivalence.presets.kv_dtype import preset
    from equivalence.subjects import component, method, moves

    return method.REGISTRATION, component.REGISTRATION, preset.REGISTRATION, moves.REGISTRATION


def add_options(parser: argparse.ArgumentParser, section: str) -> None:
    """Every subject's options of `section` (one of `registration.SECTIONS`)."""
    assert section in SECTIONS, section
    for registration in registry():
        if section in registration.options:
            registration.options[section].add(parser)


def help_text() -> str:
    """Each subject's paragraph of --help, in priority order, a blank line after each."""
    return "".join(f"{r.help}\n" for r in sorted(registry(), key=lambda r: r.priority) if r.help)


def choose(args: argparse.Namespace) -> Subject:
    """The subject the command line names: of those chosen, the one of the lowest priority."""
    chosen = [r for r in registry() if r.chosen(args)]
    return min(chosen, key=lambda r: r.priority).subject(args)
