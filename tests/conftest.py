"""Shared pytest hooks: the robustness run (every variant the session's robustness tests need,
evaluated once in one pool of workers: tests/robustness.py), and its tally in the terminal
summary (seen with or without `-s`, so CI logs always show it)."""

from __future__ import annotations

import sys

import pytest

pytest.register_assert_rewrite("tests.robustness")

_RUN = None


def pytest_collection_finish(session):
    """Start the robustness run as soon as the session's tests are known, so that its workers
    evaluate the variants while the other tests run (leaving this process one CPU): by the time
    the robustness tests come, most of their outcomes are there. Each test still waits for its
    own variant only."""
    global _RUN
    if session.config.option.collectonly:
        return
    from tests.robustness import Run, pool_size, wanted

    ids = wanted(session.items)
    if not ids:
        return
    others = any(not getattr(getattr(item, "module", None), "__name__", "").startswith("tests.test_robustness")
                 for item in session.items)
    _RUN = Run(ids, processes=pool_size(others))


def pytest_sessionfinish(session):
    if _RUN is not None:
        _RUN.close()


@pytest.fixture(scope="session")
def robustness():
    """The session's robustness run (started once the tests were collected)."""
    assert _RUN is not None, "no robustness run: pytest_collection_finish starts it for the robustness tests"
    return _RUN


def pytest_terminal_summary(terminalreporter):
    robustness = sys.modules.get("tests.robustness")
    if robustness is None or not robustness.RESULTS:
        return
    counts = robustness.tally(robustness.RESULTS)
    seconds = sum(o.seconds for o in robustness.RESULTS.values())
    terminalreporter.section("robustness tally")
    terminalreporter.write_line(
        f"variants {counts['variants']}, equivalent {counts['equivalent']}, refused {counts['refused']}, "
        f"divergent {counts['divergent']} ({seconds:.0f}s of evaluation across workers)"
    )
