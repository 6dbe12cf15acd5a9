"""End to end on fixtures: verdicts, minimal examples, exit codes, the JSON contract, Markdown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"
RUNNER = "sglang/srt/model_executor/model_runner.py"


@pytest.fixture(scope="module")
def divergent(tmp_path_factory):
    out = tmp_path_factory.mktemp("div")
    code = main([str(FIXTURES / "record_call"), str(FIXTURES / "record_call_after_case_bug"),
                 "--json", str(out / "r.json"), "--markdown", str(out / "r.md")])
    return code, json.loads((out / "r.json").read_text()), (out / "r.md").read_text()


@pytest.fixture(scope="module")
def equivalent(tmp_path_factory):
    out = tmp_path_factory.mktemp("eq")
    code = main([str(FIXTURES / "record_call"), str(FIXTURES / "record_call_after"),
                 "--json", str(out / "r.json"), "--markdown", str(out / "r.md")])
    return code, json.loads((out / "r.json").read_text()), (out / "r.md").read_text()


def test_json_contract(equivalent):
    code, report, _ = equivalent
    assert code == 0 and report["verdict"] == "equivalent"
    (pair,) = report["pairs"]
    assert {"before", "after", "configs", "divergences", "coverage"} <= set(pair)
    assert isinstance(pair["configs"], int) and pair["configs"] > 5000
    for side in ("before", "after"):
        cov = pair["coverage"][side]
        assert set(cov) >= {"branches", "hit", "missed"} and cov["hit"] == cov["branches"] and cov["missed"] == []
    assert pair["divergences"] == []
    assert {c["kind"] for c in pair["classified"]} == {"deferred-writes", "eager-read"}
    for c in pair["classified"]:
        assert {"kind", "count", "example", "before", "after"} <= set(c) and c["count"] > 0
    ids = {f["id"]: f for f in report["findings"]}
    assert set(ids) == {"fp4-fallback-not-auto", "kv-str-keyerror"}
    for f in ids.values():
        assert {"id", "configs", "example", "observed", "expected"} <= set(f)
        assert f["configs"] == len(f["config_set"]) > 0
    assert "mutants" not in report


def test_fp4_finding_compares_with_auto(equivalent):
    f = next(f for f in equivalent[1]["findings"] if f["id"] == "fp4-fallback-not-auto")
    assert f["example"]["server_args.kv_cache_dtype"] == "fp4_e2m1"
    assert f["example"]["torch_has_float4_e2m1fn_x2"] is False
    assert f["example"]["model"] == "quant_config.kv_cache_quant_algo='FP8'"
    assert f["observed"]["kv_cache_dtype"] == "torch.bfloat16"
    assert f["expected"]["kv_cache_dtype"] == "torch.float8_e4m3fn" and f["expected"]["recorded"] == ["fp8_e4m3"]
    assert f["holds_in_every_version"]


def test_keyerror_finding_names_its_settings(equivalent):
    f = next(f for f in equivalent[1]["findings"] if f["id"] == "kv-str-keyerror")
    assert f["settings"] == [{"_is_hip": True, "fp8_dtype": "torch.float8_e5m2fnuz", "set_by_sglang": False}]
    assert f["reachable_with_sglang_values"] is False


def test_markdown_is_ready_to_paste(equivalent, divergent):
    md = equivalent[2]
    assert md.startswith("## Equivalence check: **equivalent**")
    assert "| before | after | configs |" in md and "fp4-fallback-not-auto" in md and "deferred-writes" in md
    assert "### Divergences" in divergent[2] and "different-kv-cache-dtype" in divergent[2]


def test_real_difference_is_divergent_with_the_right_minimal_example(divergent):
    code, report, _ = divergent
    assert code == 1 and report["verdict"] == "divergent"
    kinds = {d["kind"]: d for d in report["pairs"][0]["divergences"]}
    d = kinds["different-kv-cache-dtype"]
    assert d["example"]["server_args.kv_cache_dtype"] == "auto"
    assert d["example"]["model"] == "quant_config.kv_cache_quant_algo='fp8'"
    assert d["example"]["_is_hip"] is False and d["example"]["model_dtype"] == "torch.bfloat16"
    assert d["before"]["kv_cache_dtype"] == "torch.float8_e4m3fn" and d["after"]["kv_cache_dtype"] == "torch.bfloat16"


def test_an_input_the_preset_does_not_name_is_varied_not_reported(tmp_path, capsys):
    """`self.server_args.tp_size`, read by the before version only, is a key of the world like
    any other: the harness varies it and finds the difference (exit 1), with its example."""
    for name in ("record_call", "record_call_after"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    p = tmp_path / "record_call" / RUNNER
    p.write_text(p.read_text().replace('elif self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):',
                                       'elif self.server_args.tp_size > 1 or self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):'))
    out = tmp_path / "r.json"
    assert main([str(tmp_path / "record_call"), str(tmp_path / "record_call_after"), "--json", str(out),
                 "--examples", "10"]) == 1
    pair = json.loads(out.read_text())["pairs"][0]
    assert "self.server_args.tp_size" in pair["inputs"] and 2 in pair["inputs"]["self.server_args.tp_size"]
    d = pair["divergences"][0]
    assert d["example"]["self.server_args.tp_size"] == 2 and d["before"] != d["after"]


def test_real_divergences_win_over_an_input_not_modelled_exit_1(tmp_path, capsys):
    """A stub reached where no key stands for it makes a check incomplete (exit 2), but must not
    turn a run with real divergences into 'could not check': exit 1, both reported."""
    shutil.copytree(FIXTURES / "record_call", tmp_path / "before")
    shutil.copytree(FIXTURES / "record_call_after_case_bug", tmp_path / "after")
    p = tmp_path / "before" / RUNNER
    p.write_text(p.read_text().replace('elif self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):',
                                       'elif globals()["get_available_gpu_memory"]() and self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):'))
    out = tmp_path / "r.json"
    assert main([str(tmp_path / "before"), str(tmp_path / "after"), "--json", str(out), "--examples", "10"]) == 1
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["not_modelled"] and pair["divergences"] and pair["verdict"] == "divergent"
    err = capsys.readouterr().err
    assert "not modelled" in err and "divergent" in err


def test_bad_usage_and_unloadable_tree_exit_2(capsys):
    assert main([str(FIXTURES / "record_call")]) == 2
    assert main([str(FIXTURES / "no_method"), str(FIXTURES / "record_call")]) == 2
    assert "model_runner.py:" in capsys.readouterr().err


def test_dflash_fixture_step_by_step(tmp_path):
    pytest.importorskip("codemods.extract_kv_dtype")
    out = tmp_path / "r.json"
    code = main(["--steps", str(FIXTURES / "record_dflash"), "--json", str(out), "--examples", "30"])
    report = json.loads(out.read_text())
    assert code == 0, report["pairs"]
    for pair in report["pairs"]:
        for cov in pair["coverage"].values():
            assert cov["missed"] == []


def test_a_surviving_mutant_fails_the_run_and_the_verdict_says_so(monkeypatch, capsys, tmp_path):
    """--mutants is a self-check: if the harness misses a mutant, its 'equivalent' is not trusted.
    The verdict says so in words, in the terminal, the Markdown and the JSON, and the exit status
    says the same: not proven (2), never "equivalent" with a failing exit."""
    import equivalence.presets.kv_dtype.check as run

    monkeypatch.setattr(run, "run_mutants", lambda *a: {
        "total": 16, "killed": 13, "not_applicable": [],
        "survivors": [{"id": f"flip{i}", "description": "a flipped comparison", "reason": "no divergence found"}
                      for i in range(3)]})
    code = main([str(FIXTURES / "record_call"), str(FIXTURES / "record_call_after"), "--mutants",
                 "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")])
    out, err = capsys.readouterr()
    words = "equivalent, but the self-check let 3 of 16 mutants through: not proven"
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 2 and (report["verdict"], report["verdict_line"]) == ("inconclusive", words)
    assert report["pairs"][0]["verdict"] == "equivalent"  # the pair's own runs found nothing
    assert report["self_check"] == {"passed": False, "failures": ["let 3 of 16 mutants through"]}
    assert out.rstrip().splitlines()[-1] == f"verdict: {words}"
    md = (tmp_path / "r.md").read_text()
    assert md.startswith(f"## Equivalence check: **{words}**")
    assert "### Self-check: 13/16 mutants killed — failed: it let 3 of 16 mutants through" in md
    assert "3 mutant(s) survived" in err


def test_steps_checks_the_codemods_one_shot_output_last(tmp_path, monkeypatch):
    """The last pair is original -> what the codemod writes in one run (not the step-4 copy of
    the step-by-step chain): a difference only the one-shot output has must be seen."""
    pytest.importorskip("codemods.extract_kv_dtype")
    import equivalence.presets.kv_dtype.preset as preset
    from equivalence.versions.codemod_steps import ONE_SHOT, Codemod

    real = preset.kv_codemod().run

    def refactor(tree, steps_=range(1, 5), **kw):
        plan = real(tree, steps_, **kw)
        if steps_ == range(1, 5):  # the one-shot run only
            for path, text in plan.changes.items():
                plan.changes[path] = text.replace("kv_cache_dtype = torch.float8_e5m2\n",
                                                  "kv_cache_dtype = torch.float8_e4m3fn\n")
        return plan

    monkeypatch.setattr(preset, "kv_codemod", lambda: Codemod(refactor, range(1, 5)))
    out = tmp_path / "r.json"
    code = main(["--steps", str(FIXTURES / "record_call"), "--json", str(out), "--examples", "30"])
    pairs = json.loads(out.read_text())["pairs"]
    assert [p["after"] for p in pairs] == ["step 1", "step 2", "step 3", "step 4", ONE_SHOT]
    assert [p["verdict"] for p in pairs] == ["equivalent"] * 4 + ["divergent"] and code == 1
    assert pairs[-1]["divergences"][0]["example"]["server_args.kv_cache_dtype"] == "fp8_e5m2"


def test_the_line_of_a_pair_says_when_the_budget_stopped_it():
    from equivalence.engine.report.report import pair_line

    pair = {"before": "a", "after": "b", "verdict": "equivalent", "configs": 4001, "classified": [],
            "coverage": {"before": {"hit": 3, "branches": 3}}, "budget_reached": True}
    assert pair_line(pair, {"pairs": [pair]}) == \
        "a -> b: equivalent over 4001 configs (the budget: more were left to try); branches before 3/3"
    assert "budget" not in pair_line({**pair, "budget_reached": False}, {"pairs": [pair]})


def test_the_static_line_names_a_logger_that_now_gives_another_name():
    from equivalence.engine.report.report import static_lines

    detail = "reads __name__: pkg.runner before, pkg.binding after"
    pair = {"static": {"map": [], "residuals": [], "divergent": False, "constants": [
        {"name": "logger", "equal": True, "detail": detail},
        {"name": "LIMITS", "equal": True, "detail": "the same statement"}]}}
    lines = static_lines(pair)
    assert lines[1] == f"    `logger` {detail} (the same statement; the name it gives differs)" and len(lines) == 2
