"""One verdict: the report's verdict weighs the self-check in (`report.verdict_of`), its words say
what the exit status says, in every check (method, component, the #31147 preset) and every
format. A run whose pairs are equivalent but whose self-check let mutants through, or called a
control divergent, is "equivalent, but the self-check ...: not proven" and exits 2, never
"equivalent" with exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.engine.report.verdict import Report, verdict_of

REPO = Path(__file__).resolve().parent.parent
PASSED = {"total": 10, "killed": 10, "survivors": [], "controls": {"total": 4, "survived": 4, "killed": []}}
LET_THROUGH = {"total": 16, "killed": 13, "survivors": [{"id": "m"}] * 3}
CONTROL_KILLED = {"total": 10, "killed": 10, "survivors": [],
                  "controls": {"total": 4, "survived": 3, "killed": [{"id": "control-noop@L3"}]}}


@pytest.mark.parametrize("pairs, mutants, verdict, line, code", [
    (["equivalent"], None, "equivalent", "equivalent", 0),
    (["equivalent"], PASSED, "equivalent", "equivalent", 0),
    (["equivalent"], LET_THROUGH, "inconclusive",
     "equivalent, but the self-check let 3 of 16 mutants through: not proven", 2),
    (["equivalent", "equivalent"], CONTROL_KILLED, "inconclusive",
     "equivalent, but the self-check called 1 of 4 controls (edits that change nothing) divergent: not proven", 2),
    (["equivalent", "divergent"], LET_THROUGH, "divergent",
     "divergent, and the self-check let 3 of 16 mutants through", 1),
    (["inconclusive"], LET_THROUGH, "inconclusive", "inconclusive, and the self-check let 3 of 16 mutants through", 2),
    (["could not run"], PASSED, "could not run", "could not run", 2),
    (["divergent"], None, "divergent", "divergent", 1),
])
def test_the_verdict_and_the_exit_status_say_the_same(pairs, mutants, verdict, line, code, capsys):
    report = {**verdict_of(pairs, mutants), "pairs": [
        {"verdict": v, "divergences": [{"kind": "different-return"}] if v == "divergent" else [], "coverage": {}}
        for v in pairs]}
    if mutants is not None:
        report["mutants"] = mutants
    assert (report["verdict"], report["verdict_line"]) == (verdict, line)
    assert Report.from_json(report).exit_code() == code
    assert ("self_check" in report) == (mutants is not None)


def _mask_pair(tmp_path: Path) -> Path:
    from codemods.extract_component import ComponentSpec, refactor, write_plan

    after = tmp_path / "after"
    shutil.copytree(REPO / "fixtures" / "components" / "tensor_mask", after)
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.mask_manager.MaskManager"), methods=("init_mask", "masked"), attr="mask_manager")))
    return after


def test_a_component_self_check_that_lets_a_mutant_through_is_not_proven(tmp_path, monkeypatch, capsys):
    """The component check (--component): its pairs equivalent, its self-check made to let a mutant
    through; the verdict line, the Markdown head, the JSON and the exit status all say not proven."""
    import equivalence.component.check as check

    monkeypatch.setattr(check, "run_mutants", lambda *a: {
        "total": 10, "killed": 9, "survivors": [{"id": "drop@L3", "description": "a dropped line", "reason": "no"}],
        "ids": []})
    after = _mask_pair(tmp_path)
    code = main(["--component", "ModelRunner.mask_manager", str(REPO / "fixtures" / "components" / "tensor_mask"),
                 str(after), "--mutants", "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")])
    words = "equivalent, but the self-check let 1 of 10 mutants through: not proven"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["pairs"][0]["verdict"] == "equivalent"
    assert (code, report["verdict"], report["verdict_line"]) == (2, "inconclusive", words)
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == f"verdict: {words}"
    assert (tmp_path / "r.md").read_text().startswith(f"## Equivalence check: **{words}**")
