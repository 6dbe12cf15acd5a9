"""extract_kv_dtype became a preset of the generic engine: its output on real releases is what
it was at the baseline commit (`tests.kv_baseline`: one release per shape here; the script
sweeps all of 0.5.7 - 0.5.15.post1)."""

from __future__ import annotations

import pytest

from tests.kv_baseline import RUNS, compare
from tests.releases import release_root

ONE_PER_SHAPE = ("0.5.8.post1", "0.5.12.post1", "0.5.14", "0.5.15.post1")


@pytest.fixture(scope="module")
def comparison():
    return compare([release_root(v) for v in ONE_PER_SHAPE])


@pytest.mark.parametrize("version", ONE_PER_SHAPE)
def test_output_is_the_baselines(comparison, version):
    same, before, after = comparison
    root = str(release_root(version))
    assert set(same[root]) == set(RUNS)
    differs = [run for run, ok in same[root].items() if not ok]
    assert not differs, {run: (before[root][run], after[root][run]) for run in differs}


def test_the_comparison_sees_a_difference(tmp_path):
    """Not a rubber stamp: outputs computed from different trees do differ."""
    from tests.kv_baseline import REPO, outputs

    (a,) = outputs(REPO, [release_root("0.5.14")], {"steps 1-2": {"steps": [1, 2]}}).values()
    (b,) = outputs(REPO, [release_root("0.5.15.post1")], {"steps 1-2": {"steps": [1, 2]}}).values()
    assert a != b
