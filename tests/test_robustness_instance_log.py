"""Robustness on the variants of the `instance_log` shape: each one is equivalent after the codemod
or refused, naming file, line and construct (tests/test_robustness.py says why; the session's
`robustness` run, tests/conftest.py, evaluates it with the others in one pool of workers)."""

from __future__ import annotations

import pytest

from tests.robustness import check_outcome, variant_ids


@pytest.mark.parametrize("variant", variant_ids("instance_log"))
def test_variant(variant, robustness):
    check_outcome(robustness.outcome(variant))
