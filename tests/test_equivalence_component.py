"""equivalence --component on the component fixture: the codemod's output is equivalent with every
branch run, each step pair too; a component that holds a value the owner rebinds (where a getter
was needed) is divergent, with the sequence of calls that shows it; mutants are caught."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_component import refactor, write_plan
from tests.component_trees import METHODS, RUNNER, TARGET, TARGET_FILE, copy_tree, spec

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "components" / "exporter"


def _check(before: Path, after: Path, tmp: Path, *extra: str) -> tuple[int, dict]:
    out = tmp / "report.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.weight_exporter",
                          str(before), str(after), "--json", str(out), *extra], capture_output=True, text=True,
                         cwd=REPO)
    return run.returncode, json.loads(out.read_text()) if out.exists() else {"stderr": run.stderr}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    root = copy_tree(tmp_path_factory.mktemp("c") / "t")
    write_plan(refactor(root, spec()))
    return root


def test_the_codemod_output_is_equivalent_with_every_branch_and_every_mutant(extracted, tmp_path):
    code, report = _check(FIXTURE, extracted, tmp_path, "--mutants")
    assert code == 0, report
    pair = report["pairs"][0]
    assert pair["verdict"] == "equivalent" and pair["divergences"] == []
    assert all(c["hit"] == c["branches"] and c["branches"] == 12 for c in pair["coverage"].values())
    assert pair["component"] == {"methods": list(METHODS), "state": ["_weights_send_group"],
                                 "rebound": ["self.model", "self.model_config.model_path"]}
    assert [c["kind"] for c in pair["classified"]] == ["eager-read"]  # the builder reads up front
    m = report["mutants"]
    assert m["total"] >= 20 and m["killed"] == m["total"]
    assert set(m["killed_by"]) <= {"static", "run"} and sum(map(len, m["killed_by"].values())) == m["killed"]
    assert m["controls"]["survived"] == m["controls"]["total"] > 0, m["controls"]


def test_a_field_where_a_getter_was_needed_is_divergent_with_its_sequence(tmp_path, monkeypatch):
    """The tool made to miss that the owner rebinds self.model: `model=self.model` is a field."""
    import codemods.extract_component.analysis as analysis

    monkeypatch.setattr(analysis, "_written_after", lambda *a, **k: (set(), set()))
    root = copy_tree(tmp_path / "t")
    write_plan(refactor(root, spec()))
    assert "model: Any" in (root / TARGET_FILE).read_text() and "get_model" not in (root / TARGET_FILE).read_text()
    code, report = _check(FIXTURE, root, tmp_path)
    assert code == 1
    divergences = {d["kind"]: d for d in report["pairs"][0]["divergences"]}
    assert divergences, report
    shown = [d["sequence"] for d in divergences.values()]
    assert ["rebind", "save_remote_model"] in shown or ["rebind", "get_weights_by_name"] in shown
    d = next(d for d in divergences.values() if d["sequence"][0] == "rebind")
    events = json.dumps(d["before"]["events"]) + json.dumps(d["after"]["events"])
    assert "self.model@0" in json.dumps(d["before"]) and "self.model@0" not in json.dumps(d["after"]), events


def test_a_wrong_source_or_a_lost_write_is_divergent(extracted, tmp_path):
    after = tmp_path / "after"
    import shutil

    shutil.copytree(extracted, after)
    runner = after / "sglang/srt/model_executor/model_runner.py"
    runner.write_text(runner.read_text().replace("tp_rank=self.tp_rank", "tp_rank=self.tp_size"))
    code, report = _check(FIXTURE, after, tmp_path)
    assert code == 1 and report["pairs"][0]["divergences"]
    component = after / TARGET_FILE
    runner.write_text(runner.read_text().replace("tp_rank=self.tp_size", "tp_rank=self.tp_rank"))
    component.write_text(component.read_text().replace("        del self._weights_send_group[group_name]\n", ""))
    code, report = _check(FIXTURE, after, tmp_path)
    assert code == 1 and any(d["kind"] == "different-state" or d["kind"].startswith("different")
                             for d in report["pairs"][0]["divergences"])


def test_steps_pair_by_pair(tmp_path):
    run = subprocess.run([sys.executable, "-m", "equivalence", "--steps", str(FIXTURE), "--component",
                          "ModelRunner.weight_exporter", "--to", TARGET, "--methods", ",".join(METHODS), "--json",
                          str(tmp_path / "r.json")], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(p["before"], p["after"], p["verdict"]) for p in report["pairs"]] == [
        ("original", "step 1", "equivalent"), ("step 1", "step 2", "equivalent"), ("step 2", "step 3", "equivalent"),
        ("original", "codemod output (steps 1-3 in one run)", "equivalent")]


def test_usage_errors():
    for args, message in (([], "give either BEFORE AFTER or --steps PATH"),
                          (["--steps", str(FIXTURE)], "needs --to TARGET.MODULE.COMPONENT and --methods"),
                          (["--keep-wrappers", str(FIXTURE), str(FIXTURE)], "is a codemod option"),
                          (["--method", "ModelRunner.x", str(FIXTURE), str(FIXTURE)], "exclude each other")):
        run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.weight_exporter", *args],
                             capture_output=True, text=True, cwd=REPO)
        assert run.returncode == 2 and message in run.stderr, (args, run.stderr)


def test_a_second_call_starts_from_each_kind_of_state_the_first_left(tmp_path):
    """The first call stores a call's result in moved state and returns alike whatever it stored;
    the second tests it for None. Within a budget of 3,000 configurations both of the second's
    branches run only if the pairs of calls start from a first call that stored None as well as
    from one that stored an object: starting points told apart by the state left, not only by the
    value returned (which, told apart by that alone, covers 15/16 here)."""
    from equivalence.component.check import Component, check
    from equivalence.engine.load.source_file import find_source

    before = copy_tree(tmp_path / "before", {RUNNER: [
        ("        send_group = self._weights_send_group[group_name]\n",
         "        send_group = self._weights_send_group[group_name]\n"
         "        if send_group is None:\n"
         "            return False, \"the group was never made\"\n"),
        ("            self._weights_send_group[group_name].barrier()\n",
         "            if self._weights_send_group[group_name] is not None:\n"
         "                self._weights_send_group[group_name].barrier()\n")]})
    after = tmp_path / "after"
    import shutil

    shutil.copytree(before, after)
    write_plan(refactor(after, spec()))
    versions = []
    for label, tree in (("before", before), ("after", after)):
        root, source = find_source(tree, "ModelRunner", None)
        subject = Component("ModelRunner", "weight_exporter", source, None)
        versions.append(subject.load(root, label))
    pair = check(versions, [(versions[0], versions[1])], subject, budget=3000).to_json()["pairs"][0]
    assert pair["verdict"] == "equivalent", pair["coverage"]
    assert all(c["hit"] == c["branches"] == 16 for c in pair["coverage"].values()), pair["coverage"]


TABLE = REPO / "fixtures" / "components" / "table"


def _table_extracted(tmp_path: Path) -> Path:
    import shutil

    from codemods.extract_component import ComponentSpec

    after = tmp_path / "table"
    shutil.copytree(TABLE, after)
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.table_manager.TableManager"), methods=("init_table", "table_row"),
        attr="table_manager")))
    assert "table: Any = field(init=False)" in (after / "sglang/srt/model_executor/table_manager.py").read_text()
    return after


def test_moved_state_the_methods_assign_is_compared_where_each_version_keeps_it(tmp_path):
    """`fixtures/components/table`: the moved methods assign the moved state (never initialised in
    `__init__`: `field(init=False)`). The component's writes of it are the owner's writes (events
    named `self.X`), and a read before anything set it fails in both versions, each naming the
    class that keeps it (classified `unset-state`, not a divergence); the before owner does not
    make the unset state up from the world. Both were reported divergent (`different-writes`,
    `different-outcome`)."""
    after = _table_extracted(tmp_path)
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.table_manager",
                          str(TABLE), str(after), "--mutants", "--json", str(out)], capture_output=True, text=True,
                         cwd=REPO)
    report = json.loads(out.read_text())
    assert run.returncode == 0, run.stdout + run.stderr
    pair = report["pairs"][0]
    assert pair["verdict"] == "equivalent" and pair["divergences"] == []
    assert [c["kind"] for c in pair["classified"]] == ["unset-state"]
    assert report["mutants"]["killed"] == report["mutants"]["total"] > 0


def test_a_lost_write_of_assigned_moved_state_is_divergent(tmp_path):
    after = _table_extracted(tmp_path)
    component = after / "sglang/srt/model_executor/table_manager.py"
    component.write_text(component.read_text().replace("self.table_enabled = rows > 0",
                                                       "self.table_enabled = rows > 1"))
    code, report = _check_table(after, tmp_path)
    assert code == 1 and {d["kind"] for d in report["pairs"][0]["divergences"]} & {"different-writes",
                                                                                    "different-return"}


def _check_table(after: Path, tmp: Path) -> tuple[int, dict]:
    out = tmp / "report.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.table_manager",
                          str(TABLE), str(after), "--json", str(out)], capture_output=True, text=True, cwd=REPO)
    return run.returncode, json.loads(out.read_text())


def test_a_private_method_the_owner_still_calls_is_a_sequence_method(tmp_path):
    """A moved private method that code staying on the owner calls (`self.table_manager._describe()`
    once extracted) is reached from outside the component: the sequences call it, as they call the
    public ones. It was taken for a helper, never called on its own, its branches unrun
    (inconclusive) and its mutants surviving."""
    import shutil

    from codemods.extract_component import ComponentSpec

    before = tmp_path / "before"
    shutil.copytree(TABLE, before)
    runner = before / "sglang/srt/model_executor/model_runner.py"
    runner.write_text(runner.read_text() + (
        "\n    def _describe(self, prefix):\n"
        "        if prefix:\n"
        "            return f\"{prefix}: {self.context_len}\"\n"
        "        return str(self.max_rows)\n"
        "\n    def report(self):\n"
        "        return self._describe(\"table\")\n"))
    after = tmp_path / "after"
    shutil.copytree(before, after)
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.table_manager.TableManager"), methods=("init_table", "table_row", "_describe"),
        attr="table_manager")))
    assert "return self.table_manager._describe(\"table\")" in (after / "sglang/srt/model_executor/model_runner.py").read_text()
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.table_manager",
                          str(before), str(after), "--json", str(out)], capture_output=True, text=True, cwd=REPO)
    report = json.loads(out.read_text())
    pair = report["pairs"][0]
    assert pair["component"]["methods"] == ["init_table", "table_row", "_describe"]
    assert run.returncode == 0 and pair["verdict"] == "equivalent", run.stdout + run.stderr


TENSOR_MASK = REPO / "fixtures" / "components" / "tensor_mask"


def _mask_versions(tmp_path: Path, edit: tuple[str, str] | None = None):
    """`fixtures/components/tensor_mask` and the codemod's output of it (`edit` applied to the
    component's file), loaded as the component check loads them."""
    import shutil

    from codemods.extract_component import ComponentSpec
    from equivalence.component.check import Component
    from equivalence.engine.load.source_file import find_source

    after = tmp_path / "after"
    shutil.copytree(TENSOR_MASK, after)
    write_plan(refactor(after, ComponentSpec(class_name="ModelRunner", target=(
        "sglang.srt.model_executor.mask_manager.MaskManager"), methods=("init_mask", "masked"), attr="mask_manager")))
    if edit is not None:
        component = after / "sglang/srt/model_executor/mask_manager.py"
        assert component.read_text().count(edit[0]) == 1
        component.write_text(component.read_text().replace(*edit))
    versions = []
    for label, tree in (("before", TENSOR_MASK), ("after", after)):
        root, source = find_source(tree, "ModelRunner", None)
        subject = Component("ModelRunner", "mask_manager", source, None)
        versions.append(subject.load(root, label))
    return versions, subject


def test_a_moved_method_returning_a_tensor_compares_it_as_a_value(tmp_path):
    """`fixtures/components/tensor_mask`: the moved methods return real torch tensors, an empty one
    among them. The comparison crashed (`Boolean value of Tensor with no values is ambiguous`);
    tensors compare by dtype, device, shape and elements (values.same): the codemod's output is
    equivalent, every branch run, and its mutants are killed."""
    from equivalence.component.check import check

    versions, subject = _mask_versions(tmp_path)
    report = check(versions, [(versions[0], versions[1])], subject, mutants=True, budget=2000).to_json()
    pair = report["pairs"][0]
    assert pair["verdict"] == "equivalent" and pair["divergences"] == [], pair
    assert all(c["hit"] == c["branches"] == 4 for c in pair["coverage"].values()), pair["coverage"]
    assert report["mutants"]["killed"] == report["mutants"]["total"] > 0


@pytest.mark.parametrize("edit", [
    ("torch.ones(rows, dtype=torch.int32)", "torch.ones(rows, dtype=torch.int64)"),  # equal elements, other dtype
    ("torch.empty(0, dtype=torch.int32)", "torch.empty(0, dtype=torch.float32)"),  # empty, other dtype
    ("return self.mask * fill", "return self.mask * fill + 1"),  # other elements
], ids=["dtype", "empty-dtype", "elements"])
def test_a_moved_method_returning_another_tensor_is_divergent(tmp_path, edit):
    from equivalence.component.check import check

    versions, subject = _mask_versions(tmp_path, edit)
    pair = check(versions, [(versions[0], versions[1])], subject, budget=2000).to_json()["pairs"][0]
    assert pair["verdict"] == "divergent"
    returns = [d for d in pair["divergences"] if d["kind"] == "different-return"]
    assert returns, pair["divergences"]
    shown = [c["returned"] for d in returns for side in ("before", "after") for c in d[side]["calls"]]
    assert any(str(r).startswith("tensor(") for r in shown), shown
