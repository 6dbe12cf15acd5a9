"""Shared pytest hooks: the robustness run (every variant the session's robustness tests need,
evaluated once: in one pool of workers, or under pytest-xdist by the worker whose test asks:
tests/robustness.py), and its tally in the terminal summary (seen with or without `-s`, so CI
logs always show it; under xdist each variant's outcome travels to the controller with its
test's report)."""

from __future__ import annotations

import gc
import os
import sys
from collections import Counter

import pytest

pytest.register_assert_rewrite("tests.robustness")

_RUN = None


def pytest_collection_modifyitems(session, config, items):
    """The robustness files first (each runs for minutes, whole in one xdist worker under `--dist
    loadfile`: started last, one of them alone would keep a worker busy after the other has run
    out of files), the rest after them in their order (a stable sort: each file's own order is
    kept)."""
    items.sort(key=lambda item: not getattr(getattr(item, "module", None), "__name__", "").startswith(
        "tests.test_robustness_"))


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
    if os.environ.get("PYTEST_XDIST_WORKER"):  # xdist spreads the files over its workers: no pool
        _RUN = Run(ids, processes=0)
        return
    others = any(not getattr(getattr(item, "module", None), "__name__", "").startswith("tests.test_robustness")
                 for item in session.items)
    _RUN = Run(ids, processes=pool_size(others))


def pytest_sessionfinish(session):
    if _RUN is not None:
        _RUN.close()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _quick_teardown()


def _quick_teardown() -> None:
    """An xdist worker's end: its garbage collected once, here, and what is left frozen.

    After this hook the worker tells the controller it is done, and the controller ends it:
    execnet then gives the worker's teardown 5 s, and past them sends it a SIGINT. That teardown
    is mostly pytest's own check for unraisable exceptions, five full garbage collections, each
    traversing every object the worker keeps (the versions it loaded: millions of objects after
    half the suite, one to several seconds a collection on a loaded 2-core machine). The SIGINT
    then landed in Hypothesis' gc callback, and a green run ended with its KeyboardInterrupt
    traceback as a PytestUnraisableExceptionWarning. Collected once here, before the deadline
    starts (an unraisable exception it raises is still reported), the rest frozen (`gc.freeze`:
    later collections skip it), pytest's collections take milliseconds."""
    gc.collect()
    gc.freeze()


_SHOWN: list[str] = []  # the status lines xdist printed on a non-terminal


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_setupnodes(config, specs):
    """xdist's status line, on a non-terminal (CI, a log), once per status: with -q its status
    is always "bringing up nodes...", which it printed again once the workers had collected."""
    reporter = config.pluginmanager.getplugin("terminaldistreporter")
    if reporter is None:
        return
    show = reporter.ensure_show_status

    def once_per_status() -> None:
        status = reporter.getstatus()
        if not _SHOWN or _SHOWN[-1] != status:
            _SHOWN.append(status)
            show()

    reporter.ensure_show_status = once_per_status


@pytest.fixture(scope="session")
def robustness():
    """The session's robustness run (started once the tests were collected)."""
    assert _RUN is not None, "no robustness run: pytest_collection_finish starts it for the robustness tests"
    return _RUN


_OUTCOME = "robustness outcome"  # a report's user property: (variant id, kind, seconds)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    robustness = sys.modules.get("tests.robustness")
    if report.when == "call" and robustness is not None and "variant" in getattr(item, "fixturenames", ()):
        outcome = robustness.RESULTS.get(getattr(getattr(item, "callspec", None), "params", {}).get("variant"))
        if outcome is not None:
            report.user_properties.append((_OUTCOME, (outcome.id, outcome.kind, outcome.seconds)))


_REPORTED: dict = {}  # the controller's, under xdist: variant id -> (kind, seconds)


def pytest_runtest_logreport(report):
    for name, value in report.user_properties:
        if name == _OUTCOME:
            _REPORTED[value[0]] = value[1:]


def pytest_terminal_summary(terminalreporter):
    robustness = sys.modules.get("tests.robustness")
    results = {i: (o.kind, o.seconds) for i, o in robustness.RESULTS.items()} if robustness is not None else {}
    results = results or _REPORTED
    if not results:
        return
    kinds = Counter(kind for kind, _ in results.values())
    seconds = sum(s for _, s in results.values())
    terminalreporter.section("robustness tally")
    terminalreporter.write_line(
        f"variants {len(results)}, equivalent {kinds['equivalent']}, refused {kinds['refused']}, "
        f"divergent {kinds['divergent']} ({seconds:.0f}s of evaluation across workers)"
    )
