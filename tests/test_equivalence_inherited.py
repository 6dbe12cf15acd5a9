"""`--method SUB.M` where SUB defines M in one version and inherits it in the other (a pull-up, an
extracted superclass), and `--method SUB.__init__` following `super().__init__(...)` into the
base's construction: on fixtures/pull_up/senders after `codemods.pull_up`, and on edits of the
after tree that must be reported divergent."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from equivalence.cli import main

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "pull_up" / "senders"
COMMON = "sglang/srt/transfer/common.py"


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    top = tmp_path_factory.mktemp("inherited")
    before, after = top / "before", top / "after"
    shutil.copytree(FIXTURE, before)
    shutil.copytree(FIXTURE, after)
    run = subprocess.run([sys.executable, "-m", "codemods.pull_up", str(after), "CommonSender", "--members",
                          "poll,poll_consensus", "--init-tail"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return before, after


def _check(tmp_path, method: str, before: Path, after: Path, *extra: str) -> dict:
    out = tmp_path / "r.json"
    main(["--method", method, str(before), str(after), "--json", str(out), *extra])
    return json.loads(out.read_text())


def _edited(tmp_path, after: Path, old: str, new: str) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(after, copy)
    path = copy / COMMON
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return copy


def _line(tree: Path, rel: str, needle: str) -> int:
    return next(i for i, line in enumerate((tree / rel).read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize("method", ["AlphaSender.poll", "GammaSender.poll_consensus"])
def test_a_pulled_up_method_is_found_in_the_base_and_proven_on_the_subclass(tmp_path, trees, method):
    before, after = trees
    report = _check(tmp_path, method, before, after)
    pair = report["pairs"][0]
    name = method.split(".")[1]
    line = _line(after, COMMON, f"def {name}(")
    assert pair["found"]["after"] == f"inherited from CommonSender (sglang.srt.transfer.common:{line})"
    assert pair["found"]["before"].startswith(f"defined by {method.split('.')[0]} (sglang.srt.transfer.")
    assert report["verdict"] == "equivalent" and pair["configs"] > 0
    assert pair["static"]["residuals"] == []


def test_the_terminal_report_says_where_each_side_finds_the_method(trees, capsys):
    before, after = trees
    main(["--method", "AlphaSender.poll", str(before), str(after)])
    out = capsys.readouterr().out
    assert "before: defined by AlphaSender (sglang.srt.transfer.alpha:14); after: inherited from CommonSender " \
           "(sglang.srt.transfer.common:" in out


def test_a_changed_pulled_up_method_is_divergent(tmp_path, trees):
    before, after = trees
    edited = _edited(tmp_path, after, "return self._poll_with(self.mgr.check)",
                     "return self._poll_with(self.mgr.check_consensus)")
    report = _check(tmp_path, "AlphaSender.poll", before, edited)
    assert report["verdict"] == "divergent"


@pytest.mark.parametrize("method", ["AlphaSender.__init__", "GammaSender.__init__"])
def test_construction_follows_super_init_into_the_base(tmp_path, trees, method):
    """The tail moved into CommonSender.__init__: the same statements in the same order, by the
    runs (the base's construction runs for real, its reads inputs) and statically (read through)."""
    before, after = trees
    report = _check(tmp_path, method, before, after)
    pair = report["pairs"][0]
    assert report["verdict"] == "equivalent", pair
    assert pair["static"]["residuals"] == []
    assert any(c["name"] == "time" and c["equal"] for c in pair["static"]["constants"])


@pytest.mark.parametrize("old, new", [
    # the pulled-up statement moved before the registration it followed
    ("        mgr.register(room, self)\n        self.started = time.time()\n",
     "        self.started = time.time()\n        mgr.register(room, self)\n"),
    # a constant of the base's construction changed
    ("self.concluded = None", "self.concluded = 0"),
    # the pulled-up statement reads another clock
    ("self.started = time.time()", "self.started = time.monotonic()"),
], ids=["swapped", "constant", "other-call"])
def test_a_changed_construction_is_divergent(tmp_path, trees, old, new):
    before, after = trees
    report = _check(tmp_path, "AlphaSender.__init__", before, _edited(tmp_path, after, old, new))
    assert report["verdict"] == "divergent"


def test_construction_with_mutants_kills_them(tmp_path, trees):
    before, after = trees
    report = _check(tmp_path, "AlphaSender.__init__", before, after, "--mutants")
    m = report["mutants"]
    assert report["verdict"] == "equivalent" and m["total"] >= 4 and m["killed"] == m["total"], m
    assert m["controls"]["survived"] == m["controls"]["total"]
