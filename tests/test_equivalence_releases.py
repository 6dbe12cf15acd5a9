"""Real releases: original vs the codemod step by step, coverage, findings, mutants; and a real
divergent pair (0.5.15.post1 vs 0.5.16, which changed fp4 handling)."""

from __future__ import annotations

import json

import pytest

from equivalence.cli import main
from equivalence.versions.codemod_steps import ONE_SHOT
from tests.releases import WITH_METHOD, release_root


@pytest.fixture(scope="module", params=WITH_METHOD)
def steps_report(request, tmp_path_factory):
    pytest.importorskip("codemods.extract_kv_dtype")
    out = tmp_path_factory.mktemp("rel") / "r.json"
    code = main(["--steps", str(release_root(request.param)), "--json", str(out), "--mutants"])
    return code, json.loads(out.read_text())


def test_every_step_is_equivalent_or_classified(steps_report):
    code, report = steps_report
    assert code == 0 and report["verdict"] == "equivalent"
    labels = [(p["before"], p["after"]) for p in report["pairs"]]
    assert labels == [("original", "step 1"), ("step 1", "step 2"), ("step 2", "step 3"),
                      ("step 3", "step 4"), ("original", ONE_SHOT)]
    for pair in report["pairs"]:
        assert pair["divergences"] == []
        assert {c["kind"] for c in pair["classified"]} <= {"deferred-writes", "eager-read"}
        assert pair["configs"] > 8000


def test_branch_coverage_is_complete(steps_report):
    for pair in steps_report[1]["pairs"]:
        for cov in pair["coverage"].values():
            assert cov["branches"] >= 20 and cov["hit"] == cov["branches"], cov["missed"]


def test_findings_with_counts_examples_and_settings(steps_report):
    findings = {f["id"]: f for f in steps_report[1]["findings"]}
    fp4 = findings["fp4-fallback-not-auto"]
    assert fp4["configs"] == 90 and fp4["holds_in_every_version"]
    assert fp4["example"]["model"] == "quant_config.kv_cache_quant_algo='FP8'"
    assert fp4["observed"]["kv_cache_dtype"] == "torch.bfloat16" and fp4["observed"]["recorded"] == []
    assert fp4["expected"]["kv_cache_dtype"] == "torch.float8_e4m3fn"
    key = findings["kv-str-keyerror"]
    assert key["configs"] == 30 and key["holds_in_every_version"]
    assert key["settings"] == [{"_is_hip": True, "fp8_dtype": "torch.float8_e5m2fnuz", "set_by_sglang": False}]


def test_mutants_are_all_killed(steps_report):
    m = steps_report[1]["mutants"]
    assert m["total"] >= 12 and m["killed"] == m["total"], m["survivors"]


def test_releases_that_really_differ_are_divergent(tmp_path):
    # the kv method is not among what moved between these releases: the preset runs when named
    out = tmp_path / "r.json"
    code = main([str(release_root("0.5.15.post1")), str(release_root("0.5.16")), "--json", str(out), "--examples", "20",
                 "--preset", "kv-dtype"])
    report = json.loads(out.read_text())
    assert code == 1 and report["verdict"] == "divergent"
    kinds = {d["kind"]: d for d in report["pairs"][0]["divergences"]}
    outcome = kinds["different-outcome"]
    assert outcome["example"]["server_args.kv_cache_dtype"] == "fp4_e2m1"
    assert outcome["after"]["exception"].startswith("ValueError: --kv-cache-dtype=fp4_e2m1 is deprecated")
