"""Every branch must be reached before a pair can be called equivalent: the kv strings come from
every test of a string (==, in, startswith / endswith, module-level containers), and a branch
never run makes the pair "inconclusive" (exit 2), never "equivalent"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"
RUNNER = "sglang/srt/model_executor/model_runner.py"
BF16 = '        elif self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):\n'


def with_branch(tmp_path: Path, name: str, test: str, dtype: str = "torch.int8", top: str = "") -> Path:
    """record_call with `elif <test>: self.kv_cache_dtype = <dtype>` before the bf16 branch."""
    root = tmp_path / name
    shutil.copytree(FIXTURES / "record_call", root)
    path = root / RUNNER
    text = path.read_text().replace(BF16, f"        elif {test}:\n            self.kv_cache_dtype = {dtype}\n" + BF16, 1)
    text = text.replace("class ModelRunner:", top + "class ModelRunner:", 1)
    path.write_text(text)
    return root


def run(tmp_path: Path, before: Path, after: Path) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--json", str(out)])
    return code, json.loads(out.read_text())


KV = "self.server_args.kv_cache_dtype"
TESTS = {
    "startswith": (f'{KV}.startswith("int8_")', ""),
    "startswith-tuple": (f'{KV}.startswith(("int8_", "i8_"))', ""),
    "endswith": (f'{KV}.endswith("_int8")', ""),
    "module-container": (f"{KV} in INT8_NAMES", 'INT8_NAMES = ("int8", "i8")\n\n\n'),
    # a helper function next to ModelRunner is code under test, its string tests count too
    "runner-helper": (f"_is_int8({KV})", 'def _is_int8(name):\n    return name.startswith("int8_")\n\n\n'),
}


@pytest.mark.parametrize("name", TESTS)
def test_a_branch_behind_a_string_test_is_reached(tmp_path, name):
    test, top = TESTS[name]
    tree = with_branch(tmp_path, "a", test, top=top)
    code, report = run(tmp_path, tree, tree)
    assert (code, report["verdict"]) == (0, "equivalent")
    assert all(c["missed"] == [] for c in report["pairs"][0]["coverage"].values())


@pytest.mark.parametrize("name", TESTS)
def test_a_difference_behind_a_string_test_is_divergent(tmp_path, name):
    test, top = TESTS[name]
    before = with_branch(tmp_path, "a", test, top=top)
    after = with_branch(tmp_path, "b", test, "torch.uint8", top=top)
    code, report = run(tmp_path, before, after)
    assert (code, report["verdict"]) == (1, "divergent")
    (div,) = report["pairs"][0]["divergences"]
    assert div["kind"] == "different-kv-cache-dtype"
    assert (div["before"]["kv_cache_dtype"], div["after"]["kv_cache_dtype"]) == ("torch.int8", "torch.uint8")


def test_a_branch_no_configuration_reaches_is_inconclusive_exit_2(tmp_path, capsys):
    tree = with_branch(tmp_path, "a", f"len({KV}) > 40")
    code, report = run(tmp_path, tree, tree)
    assert (code, report["verdict"]) == (2, "inconclusive")
    pair = report["pairs"][0]
    assert pair["verdict"] == "inconclusive" and pair["divergences"] == []
    assert any("if true" in m for m in pair["coverage"]["before"]["missed"])
    captured = capsys.readouterr()
    assert "inconclusive" in captured.err and "branches not hit" in captured.out
