"""A run of the code under test past the time limit is stopped and not checked: the pair is
inconclusive, never equivalent, and the report says why."""

import json
import textwrap
from pathlib import Path

from equivalence.cli import main
from equivalence.engine.run import time_limit

BEFORE = '''\
class Pool:
    def __init__(self, max_bs):
        self.max_bs = max_bs

    def sizes(self):
        return self.batch_sizes()

    def batch_sizes(self):
        sizes = [bs for bs in range(1, self.max_bs + 1) if bs % 8 == 0 or bs < 8]
        if self.max_bs > 10**9:
            sizes.append(self.max_bs)
        return sizes
'''
AFTER = '''\
from sglang.srt.sizes import batch_sizes


class Pool:
    def __init__(self, max_bs):
        self.max_bs = max_bs

    def sizes(self):
        return batch_sizes(self.max_bs)
'''
SIZES = '''\
def batch_sizes(max_bs):
    sizes = [bs for bs in range(1, max_bs + 1) if bs % 8 == 0 or bs < 8]
    if max_bs > 10**9:
        sizes.append(max_bs)
    return sizes
'''


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_a_run_that_never_ends_in_practice_is_stopped_and_leaves_the_move_unproven(tmp_path, monkeypatch):
    monkeypatch.setattr(time_limit, "RUN_SECONDS", 0.05)
    before = _tree(tmp_path / "b", {"sglang/srt/pool.py": BEFORE})
    after = _tree(tmp_path / "a", {"sglang/srt/pool.py": AFTER, "sglang/srt/sizes.py": SIZES})
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([str(before), str(after), "--json", str(out), "--markdown", str(md), "--jobs", "1"])
    report = json.loads(out.read_text())
    (move,) = report["moves"]
    assert (code, move["verdict"]) == (2, "inconclusive"), move
    cut = [d for p in report["pairs"] for d in p["not_modelled"]]
    assert cut and all(time_limit.CUT in d["before"]["not_modelled"] + d["after"]["not_modelled"] for d in cut)
    assert "allowed to one run and was stopped" in md.read_text()
    assert "allowed to one run and was stopped" in move["why"]  # the JSON says why too


LOOPING_BEFORE = '''\
class Pool:
    def __init__(self, max_bs, mode):
        self.max_bs = max_bs
        self.mode = mode

    def sizes(self):
        return self.total()

    def total(self):
        total = {"a": 1, "b": 2, "c": 3}.get(self.mode, 0)
        for bs in range(self.max_bs * 10**8):
            total += bs
        return total
'''
LOOPING_AFTER = '''\
from sglang.srt.sizes import total


class Pool:
    def __init__(self, max_bs, mode):
        self.max_bs = max_bs
        self.mode = mode

    def sizes(self):
        return total(self.max_bs, self.mode)
'''
LOOPING = '''\
def total(max_bs, mode):
    total = {"a": 1, "b": 2, "c": 3}.get(mode, 0)
    for bs in range(max_bs * 10**8):
        total += bs
    return total
'''


def _looping_pair(tmp_path, monkeypatch, cuts: int) -> dict:
    monkeypatch.setattr(time_limit, "RUN_SECONDS", 0.02)
    monkeypatch.setattr(time_limit, "CUTS_PER_PAIR", cuts)
    before = _tree(tmp_path / f"b{cuts}", {"sglang/srt/pool.py": LOOPING_BEFORE})
    after = _tree(tmp_path / f"a{cuts}", {"sglang/srt/pool.py": LOOPING_AFTER, "sglang/srt/sizes.py": LOOPING})
    out = tmp_path / "r.json"
    main([str(before), str(after), "--json", str(out), "--jobs", "1"])
    (pair,) = json.loads(out.read_text())["pairs"]
    return pair


def test_past_so_many_runs_stopped_the_pair_explores_no_further(tmp_path, monkeypatch):
    free = _looping_pair(tmp_path, monkeypatch, 1000)
    capped = _looping_pair(tmp_path, monkeypatch, 2)
    assert free["not_modelled"] and not free["budget_reached"]
    assert capped["budget_reached"] and capped["configs"] < free["configs"], (capped["configs"], free["configs"])


def test_a_pair_explores_no_longer_than_its_time(tmp_path, monkeypatch):
    monkeypatch.setattr(time_limit, "PAIR_SECONDS", 0.0)
    pair = _looping_pair(tmp_path, monkeypatch, 1000)
    assert pair["budget_reached"] and pair["configs"] <= 2, pair["configs"]
