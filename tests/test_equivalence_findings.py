"""Findings are counted over every configuration of every version: a configuration a version
was not observed on is run, never counted as 'the finding does not hold'."""

from __future__ import annotations

from pathlib import Path

from equivalence.presets.kv_dtype.findings import FP4, KEYERROR, collect
from equivalence.presets.kv_dtype.loader import load_version
from equivalence.presets.kv_dtype.observe import Session, install_log_capture
from equivalence.presets.kv_dtype.pairs import ConfigSpace

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"


def test_a_version_without_observations_is_run_not_counted_as_fixed():
    before = load_version(FIXTURES / "record_call", "before")
    after = load_version(FIXTURES / "record_call_after", "after")
    restore = install_log_capture([before, after])
    try:
        literals = list(dict.fromkeys(before.shape.literals + after.shape.literals))
        configs = ConfigSpace(None, 10).configs(literals, set())
        sb = Session(before)
        observed = {c: sb.run(c) for c in configs}
        findings = collect([("before", sb, observed), ("after", Session(after), {})], configs, literals, set())
    finally:
        restore()
    by_id = {f.id: f for f in findings}
    for finding in (FP4, KEYERROR):
        assert by_id[finding].per_version["after"] == by_id[finding].per_version["before"] > 0
        assert by_id[finding].fixed_in is None
