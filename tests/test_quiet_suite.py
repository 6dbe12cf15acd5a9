"""A green run under pytest-xdist ends with the summary and the slowest tests, nothing that reads
as an error (tests/conftest.py): xdist's status line once per status, and a worker's teardown
short enough that execnet never SIGINTs it (which Hypothesis' gc callback then reported as a
KeyboardInterrupt, a PytestUnraisableExceptionWarning after the summary)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KEPT = 3_000_000  # objects a worker keeps to its end, as the versions it loaded are kept

SESSION = textwrap.dedent(f"""
    from hypothesis import given, settings, strategies as st

    KEPT = [{{"at": [i]}} for i in range({KEPT})]  # each dict and list tracked by the collector


    @settings(max_examples=5, database=None)
    @given(st.integers())
    def test_with_hypothesis(x):  # installs Hypothesis' gc callback
        assert KEPT


    def test_plain():
        assert len(KEPT) == {KEPT}
""")

# after the conftest's teardown: how long the five full collections pytest then makes take
TIMING = textwrap.dedent("""
    import gc, os, time

    def pytest_unconfigure(config):
        if os.environ.get("PYTEST_XDIST_WORKER"):
            start = time.perf_counter()
            for _ in range(5):
                gc.collect()
            with open(os.environ["GC_SECONDS"], "w") as f:
                f.write(f"{time.perf_counter() - start:.3f}")
""")


def test_a_green_xdist_run_ends_quietly_and_its_worker_tears_down_at_once(tmp_path):
    (tmp_path / "test_kept.py").write_text(SESSION)
    (tmp_path / "gc_timing.py").write_text(TIMING)
    seconds = tmp_path / "gc-seconds"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}  # run from a worker: its own
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(tmp_path)]), GC_SECONDS=str(seconds))
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1", "--durations=3", "-p", "no:cacheprovider",
                          "-p", "tests.conftest", "-p", "gc_timing", "--rootdir", str(tmp_path), "test_kept.py"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert out.count("bringing up nodes...") <= 1, out
    for word in ("Traceback", "KeyboardInterrupt", "Unraisable", "Error"):
        assert word not in out, out
    lines = [ln for ln in res.stdout.splitlines() if ln.strip()]
    assert lines[-1].startswith("2 passed") and any("slowest 3 durations" in ln for ln in lines), out
    # unfrozen, five collections of these objects take about a second here (the suite's workers
    # keep many times more): frozen they take a few milliseconds
    assert float(seconds.read_text()) < 0.25, seconds.read_text()
