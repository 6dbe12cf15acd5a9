"""Robustness on the variants of the `server_args_write` shape: each one is equivalent after the codemod
or refused, naming file, line and construct; and the shape as a whole keeps every comment
(tests/test_robustness.py says why; the session's `robustness` run, tests/conftest.py,
evaluates them)."""

from __future__ import annotations

import pytest

from tests.robustness import check_outcome, check_shape, variant_ids

SHAPE = "server_args_write"


@pytest.mark.parametrize("variant", variant_ids(SHAPE))
def test_variant(variant, robustness):
    check_outcome(robustness.outcome(variant))


def test_the_shape_as_a_whole(robustness):
    check_shape([robustness.outcome(i) for i in variant_ids(SHAPE)])
