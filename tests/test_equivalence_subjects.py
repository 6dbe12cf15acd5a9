"""Each subject registers itself and its options (`equivalence.subjects.registry`): every subject
is registered, the command line declares none of a subject's options, and `choose` picks the
subject the command line names."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import equivalence.subjects
from equivalence.cli import parse_args
from equivalence.subject import Subject
from equivalence.subjects import registry

REPO = Path(__file__).resolve().parent.parent


def _subclasses(cls: type) -> set[type]:
    return {s for c in cls.__subclasses__() for s in {c, *_subclasses(c)}}


def test_every_subject_is_registered():
    for module in pkgutil.iter_modules(equivalence.subjects.__path__):
        importlib.import_module(f"equivalence.subjects.{module.name}")
    importlib.import_module("equivalence.presets.kv_dtype.preset")
    concrete = {c for c in _subclasses(Subject) if not inspect.isabstract(c)}
    assert concrete == {r.subject for r in registry()}


def test_the_command_line_declares_only_what_every_subject_shares():
    tree = ast.parse((REPO / "equivalence" / "cli.py").read_text())
    declared = {a.value for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") ==
                "add_argument" for a in n.args[:1] if isinstance(a, ast.Constant)}
    assert declared == {"trees", "--steps", "--git", "--commits", "--json", "--markdown", "--mutants"}
    registered = {o.flag for r in registry() for options in r.options.values() for o in options.options}
    assert not declared & registered


@pytest.mark.parametrize("argv, subject", [
    (["--component", "A.b", "--method", "A.m", "x", "y"], "ComponentSubject"),
    (["--method", "A.m", "x", "y"], "MethodSubject"),
    (["--steps", "x"], "KvPreset"),
    (["--preset", "kv-dtype", "x", "y"], "KvPreset"),
    (["x", "y"], "MovesSubject"),
])
def test_the_subject_named_is_chosen(argv, subject, monkeypatch):
    for cls in _subclasses(Subject):
        monkeypatch.setattr(cls, "validate", lambda *a: None)
    assert type(parse_args(argv)[1]).__name__ == subject
