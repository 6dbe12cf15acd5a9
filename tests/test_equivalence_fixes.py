"""A fix's pair on real releases: its delta is exactly its finding's configurations, the finding
goes away, and a fix that changes more (or less) is reported as divergent (exit 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.versions.codemod_steps import ONE_SHOT
from tests.releases import WITH_METHOD, release_root

pytest.importorskip("codemods.extract_kv_dtype")
from codemods.extract_kv_dtype import refactor, write_plan  # noqa: E402

TARGET = "sglang/srt/mem_cache/kv_cache_dtype.py"
FP4, KEY = "fp4-fallback-not-auto", "kv-str-keyerror"


@pytest.fixture(scope="module", params=WITH_METHOD)
def fixed_report(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("fix") / "r.json"
    code = main(["--steps", str(release_root(request.param)), "--fix", "fp4-fallback",
                 "--fix", "kv-str-lookup", "--json", str(out)])
    return code, json.loads(out.read_text())


def test_fix_pairs_follow_step_4(fixed_report):
    code, report = fixed_report
    assert code == 0 and report["verdict"] == "equivalent"
    assert [(p["before"], p["after"]) for p in report["pairs"]][3:] == [
        ("step 3", "step 4"), ("step 4", "+ fix kv-str-lookup"),
        ("+ fix kv-str-lookup", "+ fix fp4-fallback"), ("original", ONE_SHOT)]


@pytest.mark.parametrize("index,finding,count", [(4, KEY, 30), (5, FP4, 90)], ids=["kv-str-lookup", "fp4-fallback"])
def test_delta_is_exactly_the_finding(fixed_report, index, finding, count):
    pair = fixed_report[1]["pairs"][index]
    assert pair["intended"] == [{"finding": finding, "finding_configs": count, "delta_configs": count,
                                "equal": True, "not_as_specified": 0, "outside_finding": 0,
                                "finding_unchanged": 0, "finding_configs_after": 0}]
    assert pair["divergences"] == []
    assert [(c["kind"], c["count"]) for c in pair["classified"]] == [("intended-difference", count)]


def test_the_same_count_as_the_finding_on_the_original(fixed_report):
    report = fixed_report[1]
    fixed = {f["id"]: f for f in report["fixed_findings"]}
    assert fixed[FP4]["configs"] == report["pairs"][5]["intended"][0]["finding_configs"] == 90
    assert fixed[KEY]["configs"] == report["pairs"][4]["intended"][0]["finding_configs"] == 30


def test_findings_disappear_and_keyerror_becomes_a_clear_valueerror(fixed_report):
    report = fixed_report[1]
    assert report["findings"] == []
    fixed = {f["id"]: f for f in report["fixed_findings"]}
    assert fixed[FP4]["fixed_in"] == "+ fix fp4-fallback" and fixed[FP4]["per_version"]["+ fix fp4-fallback"] == 0
    assert fixed[FP4]["now"]["kv_cache_dtype"] == "torch.float8_e4m3fn"  # what 'auto' gives
    assert fixed[FP4]["now"]["recorded"] == ["fp8_e4m3"]
    assert fixed[KEY]["fixed_in"] == "+ fix kv-str-lookup"
    now = fixed[KEY]["now"]["exception"]
    assert now.startswith("ValueError: KV cache dtype torch.float8_e5m2fnuz has no --kv-cache-dtype string")
    assert "torch.float8_e4m3fn" in now and "torch.bfloat16" in now


@pytest.fixture(scope="module")
def step4(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("s4") / "t"
    shutil.copytree(release_root("0.5.15.post1"), root)
    write_plan(refactor(root))
    return root


def variant(step4: Path, tmp_path: Path, fixes: list[str], old: str = "", new: str = "") -> Path:
    root = tmp_path / "after"
    shutil.copytree(step4, root)
    if fixes:
        write_plan(refactor(root, None, fixes=fixes))
    target = root / TARGET
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new))
    return root


def check(before: Path, after: Path, finding: str, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--intended", finding, "--json", str(out)])
    return code, json.loads(out.read_text())["pairs"][0]


def test_over_broad_fix_is_an_unintended_divergence(step4, tmp_path):
    broad = variant(step4, tmp_path, ["fp4-fallback"],
                    "kv_cache_dtype = torch.bfloat16", "kv_cache_dtype = torch.float16")
    code, pair = check(step4, broad, FP4, tmp_path)
    assert code == 1 and pair["verdict"] == "divergent"
    assert pair["intended"][0]["finding_configs"] == 90 and not pair["intended"][0]["equal"]
    assert pair["intended"][0]["outside_finding"] > 0 and pair["intended"][0]["finding_unchanged"] == 0
    (div,) = pair["divergences"]
    assert div["kind"] == "unintended-divergence" and div["example"]["server_args.kv_cache_dtype"] == "bf16"
    assert (div["before"]["kv_cache_dtype"], div["after"]["kv_cache_dtype"]) == ("torch.bfloat16", "torch.float16")


def test_a_fix_that_changes_nothing_is_incomplete(step4, tmp_path):
    same = variant(step4, tmp_path, [])
    code, pair = check(step4, same, FP4, tmp_path)
    assert code == 1
    assert {d["kind"]: d["count"] for d in pair["divergences"]} == {"fix-incomplete": 90, "finding-still-holds": 90}
    assert pair["intended"][0]["delta_configs"] == 0 and not pair["intended"][0]["equal"]


def test_the_right_fix_for_the_wrong_finding_diverges(step4, tmp_path):
    fixed = variant(step4, tmp_path, ["fp4-fallback"])
    code, pair = check(step4, fixed, KEY, tmp_path)
    assert code == 1 and pair["intended"][0]["delta_configs"] == 90 and pair["intended"][0]["finding_configs"] == 30


@pytest.mark.parametrize("old,new", [
    ("TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype]", "TORCH_DTYPE_TO_KV_CACHE_STR.get(kv_cache_dtype)"),
    ("TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype]", "TORCH_DTYPE_TO_KV_CACHE_STR.get(kv_cache_dtype, 'fp8_e4m3')"),
    ("TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype]",
     "(TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype] if kv_cache_dtype in TORCH_DTYPE_TO_KV_CACHE_STR "
     "else (_ for _ in ()).throw(ValueError(f'no string for {kv_cache_dtype}')))"),
    ("TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype]",
     "(TORCH_DTYPE_TO_KV_CACHE_STR[kv_cache_dtype] if kv_cache_dtype in TORCH_DTYPE_TO_KV_CACHE_STR "
     "else (_ for _ in ()).throw(RuntimeError(f'{kv_cache_dtype} not in {list(TORCH_DTYPE_TO_KV_CACHE_STR)}')))"),
], ids=["get-records-nothing", "get-default", "valueerror-without-accepted", "runtimeerror"])
def test_a_lookup_fix_that_is_not_a_clear_valueerror_diverges(step4, tmp_path, old, new):
    wrong = variant(step4, tmp_path, [], old, new)
    code, pair = check(step4, wrong, KEY, tmp_path)
    assert code == 1 and pair["verdict"] == "divergent"
    assert pair["intended"][0]["not_as_specified"] == 30
    assert {d["kind"]: d["count"] for d in pair["divergences"]} == {"fix-not-as-specified": 30}


def test_the_lookup_fix_names_the_dtype_and_the_accepted_ones(step4, tmp_path):
    fixed = variant(step4, tmp_path, ["kv-str-lookup"])
    code, pair = check(step4, fixed, KEY, tmp_path)
    assert code == 0 and pair["intended"][0]["equal"] and pair["intended"][0]["not_as_specified"] == 0


@pytest.mark.parametrize("argv", [
    ["--steps", "X", "--fix", "everything"], ["A", "B", "--fix", "fp4-fallback"],
    ["A", "B", "--intended", "no-such-finding"], ["--steps", "X", "--intended", FP4],
], ids=["unknown-fix", "fix-without-steps", "unknown-finding", "intended-with-steps"])
def test_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "usage:" in capsys.readouterr().err


def test_an_extraction_and_both_fixes_in_one_jump(step4, tmp_path):
    """A PR that extracts and fixes at once: the extraction's own differences stay classified,
    each fix's delta is its finding, nothing else differs."""
    fixed = variant(step4, tmp_path, ["kv-str-lookup", "fp4-fallback"])
    out = tmp_path / "r.json"
    code = main([str(release_root("0.5.15.post1")), str(fixed), "--intended", KEY, "--intended", FP4,
                 "--json", str(out)])
    report = json.loads(out.read_text())
    (pair,) = report["pairs"]
    assert code == 0 and pair["divergences"] == [], pair["divergences"]
    kinds = {c["kind"]: c["count"] for c in pair["classified"]}
    assert kinds["intended-difference"] == 120 and set(kinds) <= {"intended-difference", "deferred-writes", "eager-read"}
    assert [(i["finding"], i["equal"], i["delta_configs"]) for i in pair["intended"]] == [(KEY, True, 30), (FP4, True, 90)]
    assert all(c["missed"] == [] for c in pair["coverage"].values())
    assert {f["id"] for f in report["fixed_findings"]} == {KEY, FP4}
