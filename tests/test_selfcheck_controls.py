"""The self-checks' controls and the work behind their counts: the component check's and PR
#31147's preset's self-checks judge, in the same loop and by the same `survives` as their mutants,
the engine's controls (edits of the moved logic that change nothing: a comment line, a `pass`, two
independent statements swapped, a local renamed), which must survive. A self-check that counted
its mutants killed without loading and running them kills the controls too, and its verdict says
"not proven"; every mutant counted killed names what killed it (its static check or a run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TENSOR_MASK = REPO / "fixtures" / "components" / "tensor_mask"
TREES = REPO / "fixtures" / "trees"


def _component_check(tmp_path: Path, **kwargs) -> dict:
    """--component on `fixtures/components/tensor_mask` and the codemod's output of it, with --mutants."""
    from codemods.extract_component import ComponentSpec, refactor, write_plan
    from equivalence.component.check import Component, check
    from equivalence.engine.load.source_file import find_source

    after = tmp_path / "after"
    shutil.copytree(TENSOR_MASK, after)
    component = after / "sglang/srt/model_executor/mask_manager.py"
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.mask_manager.MaskManager"), methods=("init_mask", "masked"), attr="mask_manager")))
    assert "        step = 1\n        self.mask = " in component.read_text()  # a place for the swap and rename controls
    versions = []
    for label, tree in (("before", TENSOR_MASK), ("after", after)):
        root, source = find_source(tree, "ModelRunner", None)
        subject = Component("ModelRunner", "mask_manager", source, None)
        versions.append(subject.load(root, label))
    return check(versions, [(versions[0], versions[1])], subject, mutants=True, budget=1500, **kwargs).to_json()


def _kills_with_evidence(m: dict) -> None:
    """Every mutant counted killed is named with what killed it; the counts add up."""
    assert set(m["killed_by"]) <= {"static", "run"}, m["killed_by"]
    killed = [i for how in m["killed_by"].values() for i in how]
    assert sorted(killed) == sorted(set(m["ids"]) - {s["id"] for s in m["survivors"]}), m
    assert m["killed"] == len(killed) and m["total"] == len(m["ids"])


def test_the_component_self_check_runs_its_mutants_and_its_controls_survive(tmp_path):
    report = _component_check(tmp_path)
    assert report["pairs"][0]["verdict"] == "equivalent"
    m = report["mutants"]
    assert m["total"] >= 8 and m["killed"] == m["total"], m["survivors"]
    _kills_with_evidence(m)
    controls = m["controls"]
    assert {i.split("@")[0] for i in controls["ids"]} == {"control-comment", "control-noop", "control-swap",
                                                           "control-rename"}
    assert controls["survived"] == controls["total"] == 4, controls["killed"]
    assert report["verdict"] == "equivalent" and report["self_check"]["passed"]


def test_a_component_self_check_answering_killed_unrun_kills_its_controls(tmp_path, monkeypatch):
    import equivalence.component.check as check

    monkeypatch.setattr(check, "survives", lambda *args, **kwargs: None)
    report = _component_check(tmp_path)
    controls = report["mutants"]["controls"]
    assert controls["total"] == 4 and controls["survived"] == 0
    assert report["verdict"] == "inconclusive" and report["verdict_line"].endswith(
        "called 4 of 4 controls (edits that change nothing) divergent: not proven")


def _preset(**kwargs) -> dict:
    from equivalence.presets.kv_dtype.check import check as kv_check
    from equivalence.presets.kv_dtype.subject import load_version

    before, after = load_version(TREES / "record_call", "b"), load_version(TREES / "record_call_after", "a")
    return kv_check([before, after], [(before, after)], examples=10, mutants=True).to_json()


def test_the_presets_self_check_runs_its_mutants_and_its_controls_survive():
    report = _preset()
    m = report["mutants"]
    assert m["killed"] == m["total"] >= 16 and not m["survivors"]
    assert m["total"] == len(m["ids"]) and not set(m["ids"]) & set(m["not_applicable"])
    controls = m["controls"]
    assert controls["total"] >= 3 and controls["survived"] == controls["total"], controls["killed"]
    assert report["verdict"] == "equivalent"


def test_a_presets_self_check_answering_killed_unrun_kills_its_controls(monkeypatch):
    import equivalence.presets.kv_dtype.check as check

    monkeypatch.setattr(check, "survives", lambda *args, **kwargs: None)
    report = _preset()
    controls = report["mutants"]["controls"]
    assert controls["total"] >= 3 and controls["survived"] == 0
    assert report["verdict"] == "inconclusive" and "controls (edits that change nothing) divergent: not proven" in \
        report["verdict_line"]


@pytest.mark.parametrize("edit", [("rows = self.max_rows", "rows = min(rows, self.max_rows)")])
def test_the_component_static_check_keeps_a_known_residual(tmp_path, edit):
    """An edit of the moved method that the runs cannot tell apart (`rows = self.max_rows` under
    `if rows > self.max_rows:` becoming `min(rows, self.max_rows)`): the static check's one residual
    names it, line and text, in the JSON and the terminal."""
    from codemods.extract_component import ComponentSpec, refactor, write_plan
    from equivalence.cli import main

    after = tmp_path / "after"
    shutil.copytree(TENSOR_MASK, after)
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.mask_manager.MaskManager"), methods=("init_mask", "masked"), attr="mask_manager")))
    component = after / "sglang/srt/model_executor/mask_manager.py"
    component.write_text(component.read_text().replace(*edit))
    import json

    out = tmp_path / "r.json"
    main(["--component", "ModelRunner.mask_manager", str(TENSOR_MASK), str(after), "--json", str(out)])
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["divergences"] == []
    (residual,) = pair["static"]["residuals"]
    assert (residual["kind"], residual["before"], residual["after"], residual["explained"]) == (
        "changed", edit[0], edit[1], False)
    assert (residual["before_line"], residual["after_line"]) == (14, 16)


def test_a_mutants_pair_takes_the_before_runs_the_before_version_gives(tmp_path, monkeypatch):
    """A mutant's pair runs only its after version on the pair's configurations: the before runs it
    takes are kept from the pair's own exploration. Each kept run is what the before version gives
    on that configuration, and the mutants' pairs run the before version on none of them."""
    import equivalence.component.check as check
    from equivalence.component.run import Session

    pairs = []
    real_init = check.ComponentPair.__init__

    def remember(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        pairs.append(self)

    monkeypatch.setattr(check.ComponentPair, "__init__", remember)
    report = _component_check(tmp_path)
    assert report["mutants"]["killed"] == report["mutants"]["total"] >= 8
    original, *mutants = pairs
    assert mutants and all(m.reuse_before and m.before_runs is original.before_runs for m in mutants)
    kept = list(original.before_runs.items())
    assert len(kept) > 20
    for key, (observation, world) in kept[:: max(1, len(kept) // 20)]:
        again, ran = original.sessions["before"].run(dict(key))
        assert again == observation and ran.read == world.read
    before_runs = []
    real_run = Session.run
    monkeypatch.setattr(Session, "run", lambda self, config: (before_runs.append(self.version.label), real_run(self, config))[1])
    mutant = mutants[0]
    for key in list(original.before_runs)[:10]:
        mutant.run(dict(key))
    assert before_runs and "before" not in before_runs
