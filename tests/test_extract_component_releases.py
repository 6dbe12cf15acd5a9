"""codemods.extract_component and equivalence --component on real releases: the WeightExporter
of 0.5.16, made from 0.5.13, 0.5.14 and 0.5.15.post1 (git checkouts of them, one commit per step).

Structure and behaviour are asserted (the names upstream chose, where things are, which callers
go through the component and which same-named methods of other classes do not, idempotence,
split runs, commits, the proof's verdict and coverage), never golden text.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_component import AlreadyApplied, ComponentSpec, refactor, write_plan
from tests.releases import release_root

REPO = Path(__file__).resolve().parent.parent
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter"
TARGET_FILE = "sglang/srt/model_executor/model_runner_components/weight_exporter.py"
METHODS = ("init_weights_send_group_for_remote_instance", "send_weights_to_remote_instance", "save_remote_model",
           "save_sharded_model", "get_weights_by_name")
SPEC = ComponentSpec("ModelRunner", TARGET, METHODS, "weight_exporter")
VERSIONS = ("0.5.13", "0.5.14", "0.5.15.post1")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def checkout(version: str, dest: Path) -> Path:
    (dest / "python").mkdir(parents=True)
    subprocess.run(["cp", "-r", str(release_root(version) / "sglang"), str(dest / "python")], check=True)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "base")
    return dest


@pytest.fixture(scope="module", params=VERSIONS)
def committed(request, tmp_path_factory):
    """A checkout of the release, the extraction made with --commit."""
    root = checkout(request.param, tmp_path_factory.mktemp(request.param))
    run = subprocess.run([sys.executable, "-m", "codemods.extract_component", str(root), "ModelRunner", TARGET,
                          "--methods", ",".join(METHODS), "--attr", "weight_exporter", "--commit"],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    return request.param, root, run.stderr


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    return {s.name: s for s in ast.parse(path.read_text()).body if isinstance(s, ast.ClassDef)}


def test_upstreams_fields_getters_and_state(committed):
    _, root, _ = committed
    component = _classes(root / "python" / TARGET_FILE)["WeightExporter"]
    fields = {s.target.id: (ast.unparse(s.value) if s.value else None) for s in component.body
              if isinstance(s, ast.AnnAssign)}
    # 0.5.16's WeightExporter: tp_rank, tp_size, gpu_id, get_model_path, get_model, _weights_send_group
    assert fields == {"tp_size": None, "tp_rank": None, "gpu_id": None, "get_model": None, "get_model_path": None,
                      "_weights_send_group": "field(default_factory=dict)"}
    owner = _classes(root / "python" / RUNNER)["ModelRunner"]
    builder = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "init_weight_exporter")
    call = next(n for n in ast.walk(builder) if isinstance(n, ast.Call))
    assert {k.arg: ast.unparse(k.value) for k in call.keywords} == {
        "tp_size": "self.tp_size", "tp_rank": "self.tp_rank", "gpu_id": "self.gpu_id",
        "get_model": "lambda: self.model", "get_model_path": "lambda: self.model_config.model_path"}
    assert sorted(s.name for s in component.body if isinstance(s, ast.FunctionDef)) == sorted(METHODS)


def test_no_moved_method_left_and_the_state_moved(committed):
    _, root, _ = committed
    owner = _classes(root / "python" / RUNNER)["ModelRunner"]
    assert not {s.name for s in owner.body if isinstance(s, ast.FunctionDef)} & set(METHODS)
    text = ast.unparse(owner)
    assert "self._weights_send_group" not in text and "self.init_weight_exporter()" in text


def test_only_model_runner_receivers_are_rewritten(committed):
    _, root, _ = committed
    pkg = root / "python" / "sglang" / "srt"
    worker = (pkg / "managers/tp_worker.py").read_text()
    for m in ("init_weights_send_group_for_remote_instance", "send_weights_to_remote_instance", "get_weights_by_name"):
        assert f"self.model_runner.weight_exporter.{m}(" in worker.replace("(\n", "(").replace(" ", "") or \
            f"self.model_runner.weight_exporter.{m}" in worker
    updater = (pkg / "managers/scheduler_components/weight_updater.py").read_text()
    assert "self.tp_worker.model_runner.weight_exporter.save_remote_model(url)" in updater
    assert "self.draft_worker.model_runner.weight_exporter.save_remote_model(draft_url)" in updater
    assert "self.tp_worker.get_weights_by_name(recv_req)" in updater  # the worker's own method: untouched
    changed = git(root, "diff", "--name-only", "HEAD~3", "HEAD").split()
    assert sorted(changed) == sorted(f"python/{p}" for p in (
        RUNNER, TARGET_FILE, "sglang/srt/model_executor/model_runner_components/__init__.py",
        "sglang/srt/managers/tp_worker.py", "sglang/srt/managers/scheduler_components/weight_updater.py"))


def test_three_commits_and_a_second_run_is_already_applied(committed):
    _, root, stderr = committed
    subjects = git(root, "log", "--format=%s", "-3").splitlines()
    assert subjects == ["Call ModelRunner's 5 methods through weight_exporter",
                        "Move ModelRunner's 5 methods into WeightExporter",
                        "Introduce WeightExporter for ModelRunner's 5 methods"]
    assert "taken as a ModelRunner" in stderr  # the draft worker's runner: the evidence is shown
    with pytest.raises(AlreadyApplied):
        refactor(root, SPEC)


def test_steps_one_at_a_time(tmp_path):
    root = checkout("0.5.15.post1", tmp_path / "c")
    for step in (1, 2, 3):
        plan = refactor(root, SPEC, steps=range(step, step + 1))
        assert [s.number for s in plan.steps] == [step]
        write_plan(plan)
        for path in plan.changes:
            compile(Path(path).read_text(), str(path), "exec")
    with pytest.raises(AlreadyApplied):
        refactor(root, SPEC)


@pytest.mark.parametrize("version", ["0.5.15.post1"])
def test_the_proof_is_equivalent_with_every_branch(committed, version, tmp_path):
    got, root, _ = committed
    if got != version:
        pytest.skip("one release is enough for the proof here (the others: see the docs' figures)")
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.weight_exporter",
                          str(release_root(version)), str(root), "--json", str(out)],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["verdict"] == "equivalent"
    assert all(c["hit"] == c["branches"] == 22 for c in pair["coverage"].values())
    assert pair["component"]["state"] == ["_weights_send_group"]
    assert "self.model" in pair["component"]["rebound"] and "self.model_config.model_path" in pair["component"]["rebound"]
