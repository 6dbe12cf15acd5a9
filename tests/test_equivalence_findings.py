"""Findings are counted over every configuration of every version: a configuration a version
was not observed on is run, never counted as 'the finding does not hold'."""

from __future__ import annotations

from pathlib import Path

from equivalence.engine.run.observe import Session, capture_logs
from equivalence.engine.world.world import Domains
from equivalence.presets.kv_dtype import hints as presets
from equivalence.presets.kv_dtype.check import dflash_inputs, literals
from equivalence.presets.kv_dtype.findings import FP4, KEYERROR, FindingSets, Observed, collect
from equivalence.presets.kv_dtype.subject import load_version

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"


def test_a_version_without_observations_is_run_not_counted_as_fixed():
    before = load_version(FIXTURES / "record_call", "before")
    after = load_version(FIXTURES / "record_call_after", "after")
    restore = capture_logs([before, after])
    try:
        words = literals([before, after])
        hints = presets.hints(words, dflash_inputs([before, after]), None, 10)
        domains = Domains.from_hints(hints)
        sb, sa = Session(before, domains, hints=hints), Session(after, domains, hints=hints)
        configs = [frozenset(s.items()) for s in hints.seeds]
        observed = {c: sb.observe(dict(c)) for c in configs}
        findings = collect([Observed("before", sb.observe, observed), Observed("after", sa.observe, {})],
                           FindingSets(configs), words)
    finally:
        restore()
    by_id = {f.id: f for f in findings}
    for finding in (FP4, KEYERROR):
        assert by_id[finding].per_version["after"] == by_id[finding].per_version["before"] > 0
        assert by_id[finding].fixed_in is None
