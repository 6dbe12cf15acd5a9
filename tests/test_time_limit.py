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
