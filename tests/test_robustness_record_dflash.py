"""Robustness on the variants of the `record_dflash` shape: each one is equivalent after the codemod
or refused, naming file, line and construct (tests/test_robustness.py says why; the session's
`robustness` run, tests/conftest.py, evaluates it with the others in one pool of workers)."""

from __future__ import annotations

import pytest

from tests.robustness import check_outcome, variant_ids


@pytest.mark.parametrize("variant", variant_ids("record_dflash"))
def test_variant(variant, robustness):
    check_outcome(robustness.outcome(variant))
