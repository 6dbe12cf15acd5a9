"""Robustness over the whole set of variants (tests/test_robustness.py): the tally, and the
comments of every file the codemod touched. A session that selects one of these tests evaluates
every variant; after the shapes' files (tests/test_robustness_<shape>.py), nothing is left to wait
for."""

from __future__ import annotations

from collections import Counter

from tests.robustness import DIVERGENT, EQUIVALENT, REFUSED, tally
from tests.variants import variants

VARIANTS = variants()


def test_comments_survive_over_the_whole_set(robustness):
    """Over every variant the codemod rewrote, the touched files' comments before == after."""
    outcomes = robustness.outcomes()
    produced = [o for o in outcomes.values() if o.touched]
    before = sum((Counter(o.comments_before) for o in produced), Counter())
    after = sum((Counter(o.comments_after) for o in produced), Counter())
    assert len(produced) >= 150
    # the odd-place comments of the variants are among them, and none is lost or invented
    assert before["# picks the KV cache dtype"] > 0 and before["# may be a bare nn.Module"] > 0
    assert before == after, f"lost {dict(before - after)}, gained {dict(after - before)}"


def test_tally(robustness):
    outcomes = robustness.outcomes()
    counts = tally(outcomes)
    assert counts["variants"] == len(VARIANTS) >= 200
    assert counts[EQUIVALENT] + counts[REFUSED] + counts[DIVERGENT] == counts["variants"]
    assert counts[DIVERGENT] == 0, [f"{o.id}: {o.detail}" for o in outcomes.values() if o.kind == DIVERGENT]
