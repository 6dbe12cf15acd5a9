"""Issue 17 on the kv fixtures (fixtures/trees): PR #31147's method checked with `--method` alone
on the record_dflash shape, whose wrapper evaluates `self.spec_algorithm.is_dflash()` up front (an
eager read, classified as the preset classifies it and shown where it raises), and the preset
itself reading values from both versions (a `.startswith("FP8")` only the after version has)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from codemods.extract_kv_dtype import refactor
from equivalence.cli import main

TREES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"
KV = "sglang/srt/mem_cache/kv_cache_dtype.py"


def extracted(tmp_path: Path, shape: str) -> tuple[Path, Path]:
    before = shutil.copytree(TREES / shape, tmp_path / "before")
    after = shutil.copytree(TREES / shape, tmp_path / "after")
    for path, text in refactor(after).changes.items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    return before, after


def test_record_dflash_with_method_alone_is_equivalent_with_its_eager_read(tmp_path):
    before, after = extracted(tmp_path, "record_dflash")
    out = tmp_path / "r.json"
    code = main(["--method", "ModelRunner.configure_kv_cache_dtype", str(before), str(after), "--json", str(out),
                 "--mutants"])
    report = json.loads(out.read_text())
    (pair,) = report["pairs"]
    assert pair["verdict"] == "equivalent", pair["divergences"]
    assert all(c["hit"] == c["branches"] and not c["missed"] for c in pair["coverage"].values())
    eager = next(c for c in pair["classified"] if c["kind"] == "eager-read")
    raises = eager["raises"]
    assert raises["argument"].endswith(": is_dflash") and raises["choices"] == {"self.spec_algorithm": None}
    assert raises["after"]["exception"] == "AttributeError: 'NoneType' object has no attribute 'is_dflash'"
    m = report["mutants"]
    assert m["killed"] >= 0.9 * m["total"] and m["controls"]["survived"] == m["controls"]["total"]
    assert code == (0 if m["killed"] == m["total"] else 2)  # a mutant let through: not proven


def test_a_wrong_argument_that_always_raises_is_no_eager_read(tmp_path):
    """`model_dtype=torch.bfloat16` where the runner does not import torch raises up front in every
    configuration: the old body evaluates `torch.bfloat16` too, but never raises NameError: divergent."""
    before, after = extracted(tmp_path, "record_call")
    runner = after / "sglang/srt/model_executor/model_runner.py"
    text = runner.read_text()
    assert "model_dtype=self.dtype" in text and "\nimport torch\n" not in text
    runner.write_text(text.replace("model_dtype=self.dtype", "model_dtype=torch.bfloat16"))
    out = tmp_path / "r.json"
    code = main(["--method", "ModelRunner.configure_kv_cache_dtype", str(before), str(after), "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (1, "divergent")


def test_the_preset_reads_values_from_the_after_version_too(tmp_path):
    """The preset's quant algos never extended "FP8": a `.startswith("FP8")` edit of the moved
    function was called equivalent. Its literal now gives `FP8x`, on which the two differ."""
    before, after = extracted(tmp_path, "record_call")
    moved = after / KV
    old = 'kv_cache_quant_algo.upper() == "FP8"'
    assert old in moved.read_text()
    out = tmp_path / "r.json"
    assert main([str(before), str(after), "--json", str(out)]) == 0
    configs = json.loads(out.read_text())["pairs"][0]["configs"]
    moved.write_text(moved.read_text().replace(old, 'kv_cache_quant_algo.upper().startswith("FP8")'))
    code = main([str(before), str(after), "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (1, "divergent")
    assert any("FP8x" in json.dumps(d["example"]) for d in report["pairs"][0]["divergences"])
    assert report["pairs"][0]["configs"] > configs  # the values FP8x adds
