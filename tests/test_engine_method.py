"""`python -m equivalence --method` end to end on the fixtures of fixtures/methods: correct
extractions are equivalent with full coverage, wrong ones divergent with their example,
what the harness cannot see is inconclusive, the mutants are caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from equivalence.cli import main
from tests.method_trees import MOE, NUMA, RUNNER, tree

THREADS = "ModelRunner.init_threads_binding"
MOE_CHECK = "ModelRunner.check_moe_block_size"


def run(tmp_path: Path, method: str, after: Path, *extra: str, before: Path | None = None) -> tuple[int, dict, str]:
    before = before or tree(tmp_path / "original")
    out = tmp_path / "r.json"
    md = tmp_path / "r.md"
    code = main(["--method", method, str(before), str(after), "--json", str(out), "--markdown", str(md), *extra])
    return code, json.loads(out.read_text()), md.read_text()


@pytest.fixture(scope="module")
def threads(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("threads")
    return run(tmp, THREADS, tree(tmp / "after", "threads"), "--mutants")


@pytest.fixture(scope="module")
def moe(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("moe")
    return run(tmp, MOE_CHECK, tree(tmp / "after", "moe"), "--mutants")


def test_threads_binding_is_equivalent_with_full_coverage(threads):
    code, report, md = threads
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["shapes"] == {"before": "method", "after": "wrapper"}
    assert pair["divergences"] == [] and not pair["budget_reached"]
    assert [(c["kind"], c["count"] > 0) for c in pair["classified"]] == [("deferred-writes", True)]
    deferred = pair["classified"][0]
    assert deferred["before"]["events"][-2][:2] == ["set", "self.local_omp_cpuid"]  # before its warning ...
    assert deferred["after"]["events"][-1][:2] == ["set", "self.local_omp_cpuid"]  # ... after it
    for side, unit in (("before", "method"), ("after", "function")):
        cov = pair["coverage"][side]
        assert cov["hit"] == cov["branches"] >= 10 and cov["missed"] == []
        assert {u["unit"] for u in cov["units"]} >= {unit}
    # what was varied comes from the code: its env variable with the strings it tests, its calls
    assert pair["inputs"]["env:SGLANG_CPU_OMP_THREADS_BIND"][:1] == ["<absent>"]
    assert {"all", "a|b"} <= set(pair["inputs"]["env:SGLANG_CPU_OMP_THREADS_BIND"])
    assert "<list of 2>" in pair["inputs"]["sglang.srt.utils.get_cpu_ids_by_node()"]
    assert {e["name"]: e["expression"] for e in pair["static"]["map"]} == {
        "tp_size": "self.tp_size", "tp_rank": "self.tp_rank", "local_omp_cpuid": "self.local_omp_cpuid"}
    assert pair["static"]["residuals"] == [] and not pair["static"]["divergent"]
    assert md.startswith("## Equivalence check: **equivalent**") and "### Static check" in md


def test_moe_check_with_moved_module_globals_is_equivalent(moe):
    code, report, _ = moe
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["classified"] == [] and pair["divergences"] == []
    assert all(c["hit"] == c["branches"] >= 12 for c in pair["coverage"].values())
    # `_use_aiter` is keyed by its origin in both modules: the same input
    assert "sglang.srt.utils.get_bool_env_var('SGLANG_USE_AITER') and sglang.srt.utils.is_hip()" in pair["inputs"]
    assert {c["name"] for c in pair["static"]["constants"]} >= {"_use_aiter", "_is_hip", "envs"}


@pytest.mark.parametrize("report", ["threads", "moe"])
def test_mutants_are_caught(report, request):
    m = request.getfixturevalue(report)[1]["mutants"]
    assert m["total"] >= 10 and m["killed"] >= 0.9 * m["total"], m["survivors"]
    assert all(s["reason"] for s in m["survivors"])


WRONG = {
    "parameter from the wrong attribute": (THREADS, "threads", {RUNNER: ("tp_rank=self.tp_rank", "tp_rank=self.tp_size")}),
    "write dropped": (THREADS, "threads", {RUNNER: ("self.local_omp_cpuid = numa_utils", "numa_utils")}),
    "moved constant edited": (MOE_CHECK, "moe", {MOE: ('get_bool_env_var("SGLANG_USE_AITER") and _is_hip',
                                                       'get_bool_env_var("SGLANG_USE_AITER") or _is_hip')}),
    "moved body edited": (THREADS, "threads", {NUMA: ("if tp_size < n_numa_node:", "if tp_size <= n_numa_node:")}),
}


@pytest.mark.parametrize("case", WRONG, ids=list(WRONG))
def test_a_wrong_extraction_is_divergent_with_its_example(tmp_path, case):
    method, fixture, edits = WRONG[case]
    code, report, md = run(tmp_path, method, tree(tmp_path / "after", fixture, edits))
    assert (code, report["verdict"]) == (1, "divergent")
    divergences = report["pairs"][0]["divergences"]
    assert divergences and "### Divergences" in md
    shown = [d for d in divergences if "example" in d]
    for d in shown:
        assert d["example"] and d["before"] != d["after"]
    if case == "moved constant edited":
        assert "changed-module-global" in {d["kind"] for d in divergences}
        assert shown  # and running shows it too
    if case == "write dropped":
        (d,) = divergences
        assert d["kind"] == "different-writes" and "self.local_omp_cpuid" in json.dumps(d["before"])


def test_a_stub_the_code_reaches_unseen_is_inconclusive(tmp_path, capsys):
    edit = {RUNNER: ('omp_cpuids = os.environ.get("SGLANG_CPU_OMP_THREADS_BIND", "all")',
                     'omp_cpuids = globals()["get_bool_env_var"]("X") or os.environ.get("SGLANG_CPU_OMP_THREADS_BIND", "all")')}
    before = tree(tmp_path / "before", "original", edit)
    code, report, _ = run(tmp_path, THREADS, before, before=before)
    assert (code, report["verdict"]) == (2, "inconclusive")
    (entry,) = report["pairs"][0]["not_modelled"]
    assert "get_bool_env_var" in json.dumps(entry["before"])


def test_a_branch_no_configuration_reaches_is_inconclusive(tmp_path, capsys):
    edit = {RUNNER: ("        if omp_cpuids == \"all\":", "        if len(omp_cpuids) > 40:\n            return\n"
                                                           "        if omp_cpuids == \"all\":")}
    before = tree(tmp_path / "before", "original", edit)
    code, report, _ = run(tmp_path, THREADS, before, before=before)
    assert (code, report["verdict"]) == (2, "inconclusive")
    assert any("if true" in m for m in report["pairs"][0]["coverage"]["before"]["missed"])
    assert "inconclusive" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--method", "ModelRunner", "a", "b"], "CLASS.METHOD"),
    (["--method", THREADS, "a", "b", "--to", "x.y"], "--to is a codemod option"),
    (["--method", THREADS, "a", "b", "--intended", "kv-str-keyerror"], "kv preset"),
    (["--steps", "a", "--method", THREADS], "--to TARGET.MODULE"),
], ids=["no-method-name", "codemod-option-without-steps", "kv-option", "steps-without-to"])
def test_bad_usage_exits_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_tree_without_the_class_names_where_it_looked(tmp_path, capsys):
    (tmp_path / "empty" / "pkg").mkdir(parents=True)
    (tmp_path / "empty" / "pkg" / "__init__.py").write_text("")
    assert main(["--method", "Nope.method", str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    assert f"{tmp_path / 'empty'}: no module defining class Nope here" in capsys.readouterr().err
