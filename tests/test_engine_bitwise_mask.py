"""A stand-in combined bitwise (`live &= other`) is offered arrays besides ints
(equivalence.engine.world): masks read from an object (a tensor's `.numpy()`, a process group's
flags) are then measured and indexed, which no int and no list allows after `&=`. On our fixture
`method_bitwise_mask` (`Sentinel.mend`): 0/4 branches before the arrays, 4/4 with them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from equivalence.engine.world.world import Domains, World, array, demanded_options, describe, value

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "trees" / "method_bitwise_mask"


def test_a_bitwise_demand_offers_an_int_first_then_arrays():
    options = demanded_options("bitwise", None, (), (4,))
    assert options[0] == value(1)  # the default a stand-in takes: an int, as for arithmetic
    assert [o for o in options if o[0] == "array"] == [array(1), array(2), array(3), array(4)]
    assert value(0) in options
    assert describe(array(2)) == "<array of 2>"


def test_an_array_option_is_a_numpy_array_of_its_item_keys():
    numpy = pytest.importorskip("numpy")
    domains = Domains({"mask": [array(2)], "mask[1]": [value(0), value(1)]})
    made = World(domains, {}, frozenset()).value("mask")
    assert isinstance(made, numpy.ndarray) and made.tolist() == [1, 0]  # an item's default: set


def _run(tmp_path, after_edit=None):
    shutil.copytree(FIXTURE, tmp_path / "t")
    if after_edit:
        path = tmp_path / "t" / "after" / "sglang" / "srt" / "watch" / "mending.py"
        text = path.read_text()
        assert text.count(after_edit[0]) == 1
        path.write_text(text.replace(*after_edit))
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", str(tmp_path / "t" / "before"),
                          str(tmp_path / "t" / "after"), "--method", "Sentinel.mend", "--json", str(out)],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    return run, json.loads(out.read_text())


def test_the_masks_take_every_branch(tmp_path):
    run, report = _run(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    (pair,) = report["pairs"]
    assert pair["verdict"] == "equivalent"
    for side in ("before", "after"):
        assert (pair["coverage"][side]["hit"], pair["coverage"][side]["branches"]) == (4, 4)


def test_a_flipped_item_test_is_divergent(tmp_path):
    run, report = _run(tmp_path, ("if not live[i]", "if live[i]"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert report["pairs"][0]["verdict"] == "divergent"
