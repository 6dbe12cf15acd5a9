"""A function spelled `MOD.f` by one version and `f` (within its own module) by the other is one
module global, unchanged (equivalence.engine.judge.static_check), on our fixture
`method_spelled_global`: `Warden.sweep` calls `courier.pick_donor(...)`, then moves into `courier`
and calls `pick_donor(...)` bare. A real change of the function stays divergent."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from equivalence.engine.judge.static_check import check_trees

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "method_spelled_global"
WARDEN = "sglang/srt/pool/warden.py"
COURIER = "sglang/srt/pool/courier.py"
REPO = Path(__file__).resolve().parent.parent


def _trees(tmp_path, before_edits=(), after_edits=()):
    for side, edits in (("before", before_edits), ("after", after_edits)):
        shutil.copytree(FIXTURE / side, tmp_path / side)
        for rel, old, new in edits:
            path = tmp_path / side / rel
            text = path.read_text()
            assert text.count(old) == 1, (rel, old)
            path.write_text(text.replace(old, new))
    return tmp_path / "before", tmp_path / "after"


SPELLINGS = {
    "alias": [],
    "alias-renamed": [(WARDEN, "import courier\n", "import courier as cr\n"),
                      (WARDEN, "courier.pick_donor", "cr.pick_donor")],
    "dotted": [(WARDEN, "from sglang.srt.pool import courier\n", "import sglang.srt.pool.courier\n"),
               (WARDEN, "courier.pick_donor", "sglang.srt.pool.courier.pick_donor")],
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_module_qualified_call_becoming_bare_is_the_same_global(tmp_path, spelling):
    before, after = _trees(tmp_path, SPELLINGS[spelling])
    report = check_trees(before, after, WARDEN, "Warden", "sweep")
    assert not report.divergent
    assert [(c.name, c.equal, c.detail) for c in report.constants] == [
        ("pick_donor", True, "the same object: sglang.srt.pool.courier.pick_donor")]
    assert report.residuals == []


def test_bare_call_becoming_module_qualified_is_the_same_global(tmp_path):
    """The other way round: the old body calls the imported function bare, the moved function
    through an import of its module (here its own)."""
    before, after = _trees(tmp_path, before_edits=[
        (WARDEN, "from sglang.srt.pool import courier\n", "from sglang.srt.pool.courier import pick_donor\n"),
        (WARDEN, "courier.pick_donor(", "pick_donor(")], after_edits=[
        (COURIER, '"""\n\n\ndef pick_donor', '"""\n\nimport sglang.srt.pool.courier as _self\n\n\ndef pick_donor'),
        (COURIER, "donor = pick_donor(", "donor = _self.pick_donor(")])
    report = check_trees(before, after, WARDEN, "Warden", "sweep")
    assert not report.divergent
    assert [(c.name, c.equal) for c in report.constants] == [("pick_donor", True)]
    assert report.residuals == []


def test_a_changed_function_stays_divergent(tmp_path):
    before, after = _trees(tmp_path, after_edits=[(COURIER, "        if flag:\n", "        if not flag:\n")])
    report = check_trees(before, after, WARDEN, "Warden", "sweep")
    assert report.divergent
    (check,) = report.constants
    assert (check.name, check.equal) == ("pick_donor", False)
    assert "its definition differs" in check.detail


def test_another_function_of_the_name_stays_divergent(tmp_path):
    """A bare `pick_donor` that is not the object the old body called (a local def of the target
    module shadowing the import's name) is a changed global."""
    before, after = _trees(tmp_path, after_edits=[
        (COURIER, "def pick_donor(", "def pick_donor_old("),
        (COURIER, "def sweep(", "def pick_donor(*, flags):\n    return 0\n\n\ndef sweep(")])
    report = check_trees(before, after, WARDEN, "Warden", "sweep")
    assert report.divergent


@pytest.mark.parametrize("edit, code", [((), 0), ([(COURIER, "        if flag:\n", "        if not flag:\n")], 1)],
                         ids=["faithful", "changed"])
def test_the_cli_verdict(tmp_path, edit, code):
    before, after = _trees(tmp_path, after_edits=list(edit))
    run = subprocess.run([sys.executable, "-m", "equivalence", str(before), str(after), "--method", "Warden.sweep"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == code, run.stdout + run.stderr
    assert ("verdict: equivalent" if code == 0 else "verdict: divergent") in run.stdout
