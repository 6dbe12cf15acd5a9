"""Which parameters a call site leaves at their default, and the values the world gives them
(equivalence/engine/defaults.py)."""

from __future__ import annotations

import ast

import pytest

from equivalence.engine.load.defaults import options, unpassed
from equivalence.engine.world.world import ABSENT, NONE, OPAQUE, value


@pytest.mark.parametrize("default, expected", [
    ("False", [ABSENT, value(True), NONE]),
    ("3", [ABSENT, value(4), value(2)]),
    ("'auto'", [ABSENT, value("autox"), value("AUTO"), value("")]),
    ("None", [ABSENT, OPAQUE, value(True), value(False)]),
    ("(1, 2)", [ABSENT, OPAQUE, NONE]),
    ("make_default()", [ABSENT, OPAQUE, NONE]),
], ids=["bool", "int", "str", "none", "tuple", "call"])
def test_not_passed_first_then_other_values(default, expected):
    assert options(ast.parse(default, mode="eval").body) == expected


@pytest.mark.parametrize("signature, call, bound, left", [
    ("def m(self, force=False): ...", "self.m()", True, ["force"]),
    ("def m(self, a, force=False, *, k=1): ...", "self.m(1, k=2)", True, ["force"]),
    ("def m(self, a=0, b=1): ...", "self.m(5)", True, ["b"]),
    ("def f(*, model_runner, force=False): ...", "mod.f(model_runner=self)", False, ["force"]),
    ("def m(self, force=False): ...", "self.m(**options)", True, []),
    ("def m(self, force=False): ...", "self.m(*args)", True, []),
], ids=["instance", "keyword-only-passed", "positional-passed", "function", "double-star", "star"])
def test_the_parameters_a_call_leaves_at_their_default(signature, call, bound, left):
    called = ast.parse(signature).body[0]
    assert list(unpassed(called, ast.parse(call, mode="eval").body, bound)) == left
