"""The two older shapes on the real releases that carry them: 0.5.7 (instance_log: no
TORCH_DTYPE_TO_KV_CACHE_STR at all, writes only self.kv_cache_dtype, then logs) and 0.5.9
(server_args_write_log). 0.5.14 and 0.5.15.post1 are covered in depth elsewhere."""

from __future__ import annotations

import json

import pytest

from codemods.extract_kv_dtype import AlreadyApplied, refactor, write_plan
from equivalence.cli import main
from tests.releases import copy_release, release_root

SHAPES = {"0.5.7": "instance_log", "0.5.9": "server_args_write_log"}
TARGET = "sglang/srt/mem_cache/kv_cache_dtype.py"


@pytest.mark.parametrize("version", sorted(SHAPES))
def test_codemod_recognises_the_shape_and_is_idempotent(version, tmp_path):
    root = copy_release(version, tmp_path)
    plan = refactor(root)
    assert plan.shape == SHAPES[version]
    write_plan(plan)
    moved = (root / TARGET).read_text()
    assert "def configure_kv_cache_dtype(\n    *,\n    server_args_kv_cache_dtype: str," in moved or \
        "def configure_kv_cache_dtype(\n    *, server_args_kv_cache_dtype: str," in moved
    assert ("TORCH_DTYPE_TO_KV_CACHE_STR = {" in moved) == (version != "0.5.7")
    with pytest.raises(AlreadyApplied):
        refactor(root)


@pytest.mark.parametrize("version", sorted(SHAPES))
def test_steps_equivalent_covered_and_every_applicable_mutant_killed(version, tmp_path):
    out = tmp_path / "r.json"
    code = main(["--steps", str(release_root(version)), "--json", str(out), "--mutants", "--examples", "40"])
    report = json.loads(out.read_text())
    assert code == 0 and report["verdict"] == "equivalent"
    for pair in report["pairs"]:
        assert pair["divergences"] == []
        for cov in pair["coverage"].values():
            assert cov["hit"] == cov["branches"] >= 20, cov["missed"]
    findings = {f["id"]: f["configs"] for f in report["findings"]}
    assert findings["fp4-fallback-not-auto"] > 0
    # 0.5.7 has no table, so no lookup that could raise KeyError, and nothing records the string
    assert ("kv-str-keyerror" in findings) == (version != "0.5.7")
    m = report["mutants"]
    assert m["killed"] == m["total"] >= 10, m["survivors"]
    expected_na = {"lookup-get", "drop-record", "reorder-effects"} if version == "0.5.7" else set()
    assert set(m["not_applicable"]) == expected_na
