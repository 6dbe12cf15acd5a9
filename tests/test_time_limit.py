"""A run of the code under test past the time limit is stopped and not checked: the pair is
inconclusive, never equivalent, and the report says why."""

import gc
import json
import sys
import textwrap
import time
from pathlib import Path

import pytest

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


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_the_limit_landing_where_python_ignores_exceptions_still_stops_the_run_quietly(monkeypatch):
    """A gc callback (hypothesis registers one) runs past the limit: the exception raised there is
    ignored by Python, so it is raised again until the run is out; nothing is printed."""
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    burnt = []

    def slow_callback(phase, info):
        if phase == "start" and not burnt:
            burnt.append(phase)
            _burn(0.2)

    gc.callbacks.append(slow_callback)
    collected = []  # when the collection (C code, which no signal interrupts) was over
    try:
        with pytest.raises(time_limit.RanTooLong):
            with time_limit.limited(0.05):
                gc.collect()
                collected.append(time.process_time())
                _burn(3.0)
    finally:
        gc.callbacks.remove(slow_callback)
    assert burnt and collected and time.process_time() - collected[0] < 1.0
    assert reported == []  # the ignored one was not printed, and nothing else was swallowed
    assert sys.unraisablehook == reported.append


def test_the_limit_counts_cpu_time_not_a_loaded_machine_s_wall_time():
    with time_limit.limited(0.2):
        time.sleep(0.3)  # past the CPU limit in wall time, under WALL_FACTOR times it
    with pytest.raises(time_limit.RanTooLong):
        with time_limit.limited(0.05):
            time.sleep(10)  # blocked: stopped at the wall limit


def test_the_signal_is_never_raised_into_the_limit_s_own_frames_only_armed_again():
    """Landing in the quiet hook or in the block's exit, it would print "Exception ignored in
    sys.unraisablehook" or leave the timers armed after the block."""
    import signal
    from types import SimpleNamespace

    own = SimpleNamespace(f_code=SimpleNamespace(co_filename=time_limit.__file__))
    other = SimpleNamespace(f_code=SimpleNamespace(co_filename=__file__))
    handler = signal.signal(signal.SIGPROF, signal.SIG_IGN)
    try:
        time_limit._stop(signal.SIGPROF, own)
        assert signal.getitimer(signal.ITIMER_PROF)[0] > 0  # raised again shortly, elsewhere
        with pytest.raises(time_limit.RanTooLong):
            time_limit._stop(signal.SIGPROF, other)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, handler)
