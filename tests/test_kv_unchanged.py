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
    """Not a rubber stamp: compare() itself, given code whose output differs from the baseline's
    by one commit subject (the files it writes identical), says that run differs."""
    import shutil

    from tests.kv_baseline import REPO

    for package in ("codemods", "pysource"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    recipe = tmp_path / "codemods/extract_method/presets/kv_dtype/recipe.py"
    subject = '"Make ModelRunner.configure_kv_cache_dtype a keyword-only static method"'
    assert subject in recipe.read_text()
    recipe.write_text(recipe.read_text().replace(subject, subject[:-1] + ' (edited)"'))
    root = str(release_root("0.5.15.post1"))
    runs = {"steps 1-2": {"steps": [1, 2]}}
    same, before, after = compare([release_root("0.5.15.post1")], runs, current=tmp_path)
    assert same[root] == {"steps 1-2": False}
    assert before[root]["steps 1-2"]["<steps>"] != after[root]["steps 1-2"]["<steps>"]
    files = lambda out: {k: v for k, v in out.items() if not k.startswith("<")}  # noqa: E731
    assert files(before[root]["steps 1-2"]) == files(after[root]["steps 1-2"])  # the code it writes is the same
