"""Shared pytest hooks: the robustness tally goes into the terminal summary (seen with or
without `-s`, so CI logs always show it)."""

from __future__ import annotations

import sys


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
