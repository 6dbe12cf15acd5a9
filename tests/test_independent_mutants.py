"""Mutants made by an independent tool (cosmic-ray's operators: scripts/independent_mutants.py), run
through the harness on a small extraction (fixtures/methods/reach, `Probe.limit_items`): every one
that changes behaviour is divergent, and the one that changes none is not called divergent."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from codemods.extract_method import MethodSpec, refactor  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "methods" / "reach"
SCRIPT = REPO / "scripts" / "independent_mutants.py"
MOVED = "sglang/srt/probe_moved.py"

# Three of cosmic-ray's 27 mutants of the moved `limit_items` (11 of which do not compile: the `*`
# of its keyword-only signature), one harness run each (5-10 s) after the unmutated pair's:
#   `len(items) >= MAX_ITEMS`: differs only on a list exactly MAX_ITEMS (8) long;
#   `len(items) != MAX_ITEMS`: warns on every other length;
#   `len(items) is MAX_ITEMS`: changes nothing (below).
OPERATORS = r"^ReplaceComparisonOperator_(Gt_GtE|Eq_NotEq|Eq_Is)$"

# Mutants known to change no behaviour, by their mutated line: `len()` returns an int, and CPython
# keeps one object per small int (-5..256), so `len(items) is 8` is true exactly when
# `len(items) == 8` is. The harness may leave it not proven (the changed line ran, no configuration
# told the versions apart), never divergent.
EQUIVALENT = {"if len(items) is MAX_ITEMS:"}


def test_every_behaviour_changing_mutant_is_killed(tmp_path):
    after = tmp_path / "after"
    shutil.copytree(FIXTURE, after)
    for path, text in refactor(after, MethodSpec("Probe", "limit_items", "sglang.srt.probe_moved")).changes.items():
        Path(path).write_text(text)
    out = tmp_path / "mutants.json"
    cmd = [sys.executable, str(SCRIPT), str(FIXTURE), str(after), "--method", "Probe.limit_items",
           "--file", MOVED, "--function", "limit_items", "--operators", OPERATORS, "--json", str(out)]
    for text in EQUIVALENT:
        cmd += ["--equivalent", text]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.is_file(), proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    mutants = report["mutants"]
    assert report["baseline"]["exit"] == 0, report["baseline"]
    assert 1 <= len(mutants) <= 8 and all(m["operator"] for m in mutants)
    assert {m["mutated"] for m in mutants} >= EQUIVALENT  # the operators still make it
    changing = [m for m in mutants if m["mutated"] not in EQUIVALENT]
    assert changing and all(m["result"] == "killed" and m["exit"] == 1 for m in changing), proc.stdout
    for m in mutants:
        if m["mutated"] in EQUIVALENT:
            assert m["equivalent"] and m["result"] in ("survived", "not proven"), m
    assert report["totals"]["killed"] == len(changing) >= 1
    assert report["totals"]["survived"] == report["totals"]["not proven"] == 0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "killed" in proc.stdout and "totals:" in proc.stdout
