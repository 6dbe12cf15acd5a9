"""Issue 17 on real releases, code the engine was not developed on: 0.5.18's ServerArgs methods
that upstream moved to `sglang/srt/arg_groups/` in 0.5.19, extracted by `codemods.extract_method`,
and PR #31147's own method checked with `--method` alone (no preset). Each is equivalent with
every branch of both versions run, at least 90% of the mutants killed, and every control (an edit
that changes nothing) surviving; the self-check's controls also survive on a real release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemods.extract_kv_dtype import refactor as kv_refactor
from codemods.extract_method import MethodSpec, refactor
from equivalence.cli import main
from equivalence.versions.codemod_steps import link_copy
from tests.releases import release_root

SOURCE = "sglang/srt/server_args.py"
SERVER_ARGS = {  # method -> (target module, --pass-self)
    "reserve_for_graph_mb": ("sglang.srt.arg_groups.memory_hook", "server_args"),
    "validate_buckets_rule": ("sglang.srt.arg_groups.validation_hook", None),
}


def _write(plan) -> None:
    """The plan's files written into the link-copied tree (a hard link is replaced, never written
    through: the cached release stays as it is)."""
    for path, text in plan.changes.items():
        path = Path(path)
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def copy_of(root: Path, dest: Path) -> Path:
    link_copy(root, dest)
    return dest


def check(tmp: Path, method: str, before: Path, after: Path) -> tuple[int, dict]:
    out = tmp / "r.json"
    code = main(["--method", method, str(before), str(after), "--json", str(out), "--mutants"])
    return code, json.loads(out.read_text())


def assert_proven(code: int, report: dict) -> None:
    (pair,) = report["pairs"]
    assert pair["verdict"] == "equivalent", pair.get("could_not_run") or pair["divergences"]
    for cov in pair["coverage"].values():
        assert cov["hit"] == cov["branches"] and not cov["missed"], cov["missed"]
    m = report["mutants"]
    assert m["total"] >= 10 and m["killed"] >= 0.9 * m["total"], m["survivors"]
    controls = m["controls"]
    assert controls["total"] >= 2 and controls["survived"] == controls["total"], controls["killed"]
    assert code == (0 if m["killed"] == m["total"] else 2)  # a mutant let through: not proven


@pytest.mark.parametrize("method", SERVER_ARGS)
def test_server_args_extractions_of_0_5_18(tmp_path, method):
    root = release_root("0.5.18")
    after = copy_of(root, tmp_path / "after")
    target, pass_self = SERVER_ARGS[method]
    _write(refactor(after, MethodSpec("ServerArgs", method, target, pass_self=pass_self, source_file=SOURCE)))
    code, report = check(tmp_path, f"sglang.srt.server_args.ServerArgs.{method}", root, after)
    assert_proven(code, report)


def test_configure_kv_cache_dtype_without_the_preset(tmp_path):
    root = release_root("0.5.15.post1")
    after = copy_of(root, tmp_path / "after")
    _write(kv_refactor(after))
    code, report = check(tmp_path, "ModelRunner.configure_kv_cache_dtype", root, after)
    assert_proven(code, report)
    inputs = report["pairs"][0]["inputs"]
    assert {"FP8", "fp8", "FP8x"} <= set(inputs["self.model.quant_config.kv_cache_quant_algo"])
    assert "<absent>" in inputs["torch.float4_e2m1fn_x2"]  # the platform axis the preset spells out
