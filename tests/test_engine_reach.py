"""Issue 30 on a fixture of our own (fixtures/methods/reach): each method needs an input the world
finds only from how the code uses it, and each was inconclusive before (a branch never run) and is
proven now, every branch on both sides: the codemod extracts it, the harness proves it, and an
edit of the moved function that changes what the hard-to-reach branch does is divergent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codemods.extract_method import MethodSpec, refactor
from equivalence.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "reach"
TARGET = "sglang.srt.probe_moved"
MOVED = "sglang/srt/probe_moved.py"

# method -> an edit of the moved function that only the hard-to-reach branch shows
CASES = {
    "apply_overrides": ('return overrides["alpha"]', 'return overrides["beta"]'),  # a dict keyed "alpha"
    "counted_overrides": ("return None", "return []"),  # "gamma" in a dict whose values are small ints
    "core_path": ('return os.path.join(path, "rank")', 'return os.path.join(path, "tp")'),  # gethostname() a str
    "host_tag": ("return host[4:]", "return host[5:]"),  # socket.gethostname() an input
    "platform_tag": ('return "even"', 'return "odd"'),  # a function-level platform and os, inputs
    "limit_items": ('"at the limit"', '"at a limit"'),  # a list exactly MAX_ITEMS long
    "total_ok": ("return False", "return None"),  # a sum past MAX_ITEMS * 2
    "threshold": ('return "nan"', 'return "NaN"'),  # math.isnan(x)
    "deep_guards": ("return 0", "return 1"),  # four guards, then a test
    "mesh_shape": ('return "mesh"', 'return "grid"'),  # a * b == 96 and a > b > 2: solved by z3
    "split_budget": ("return per_rank // page_size", "return per_rank // 2"),  # three keys at once
    "check_sections": ('raise TypeError(f"{key} must be a dict")', 'raise TypeError(f"{key} is no dict")'),  # looped keys
    "backend_kind": ('return "sparse"', 'return "native"'),  # membership in a module's frozenset({...})
    "parse_pairs": ('raise ValueError(f"nested {key}")', 'raise KeyError(f"nested {key}")'),  # "a=b=c"
    "page_ok": ("return True", "return page_size > 16"),  # a power of two from 16: 16 itself tells them apart
    "bucket_base": ("return base", "return base + 1"),  # float() of an item of a List[str]: "2", not "x"
    "config_file": ("return None", "return path"),  # a field the dataclass declares a str, joined first
    "dump_dir": ('return "templated"', 'return "template"'),  # "%" in dirname(f"{folder}/..."): a str with "%"
    "buffer_tokens": ("else 0", "else -1"),  # its call site calls it for a positive size only: called directly too
}


def extracted(dest: Path, method: str, edit: tuple[str, str] = ("", "")) -> Path:
    shutil.copytree(FIXTURE, dest)
    plan = refactor(dest, MethodSpec("Probe", method, TARGET))
    for path, text in plan.changes.items():
        Path(path).write_text(text.replace(*edit) if Path(path).name == Path(MOVED).name else text)
    return dest


def check(tmp_path: Path, method: str, after: Path) -> tuple[int, dict]:
    out = tmp_path / f"{after.name}.json"
    code = main(["--method", f"Probe.{method}", str(FIXTURE), str(after), "--json", str(out)])
    return code, json.loads(out.read_text())


@pytest.mark.parametrize("method", sorted(CASES))
def test_the_branch_behind_the_input_runs_and_is_proven(tmp_path, method):
    code, report = check(tmp_path, method, extracted(tmp_path / "after", method))
    (pair,) = report["pairs"]
    assert (code, report["verdict"]) == (0, "equivalent"), pair["coverage"]
    for side in pair["coverage"].values():
        assert side["hit"] == side["branches"] > 0 and not side["missed"]


@pytest.mark.parametrize("method", sorted(CASES))
def test_an_edit_of_that_branch_is_divergent(tmp_path, method):
    edit = CASES[method]
    after = extracted(tmp_path / "edited", method, edit)
    assert edit[1] in (after / MOVED).read_text()
    code, report = check(tmp_path, method, after)
    assert (code, report["verdict"]) == (1, "divergent")
