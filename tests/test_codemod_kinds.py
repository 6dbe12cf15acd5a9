"""A refactoring kind is one object (`codemods.core.kind.Kind`), registered in `codemods.KINDS`:
every command `python -m codemods.NAME` is a registered kind's `main`, and each kind's steps are
numbered from 1 (docs/adding_a_kind.md)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import codemods
from codemods.core.kind import Kind

REPO = Path(__file__).resolve().parent.parent


def test_every_command_is_a_registered_kind():
    commands = sorted(p.parent.name for p in (REPO / "codemods").glob("*/__main__.py"))
    assert commands == sorted(codemods.KINDS)


@pytest.mark.parametrize("name", sorted(codemods.KINDS))
def test_a_kind_is_its_command(name):
    kind = codemods.kind(name)
    assert isinstance(kind, Kind) and kind.name == name
    assert importlib.import_module(f"codemods.{name}.__main__").main == kind.main
    assert [s.number for s in kind.steps.steps] == list(kind.steps.all)
    parser = kind.build_parser()
    assert parser.prog == f"python -m codemods.{name}"
    options = {a.dest for a in parser._actions}
    assert {"path", "steps", "dry_run", "commit", "no_format"} <= options
