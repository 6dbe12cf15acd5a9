"""codemods.extract_component on its fixture (`fixtures/components/exporter`): what it infers,
the three steps, split runs, idempotency, --commit, the command line, and every refusal."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_component import AlreadyApplied, BadInput, NoSuchMethod, Refusal, refactor, write_plan
from tests.component_trees import METHODS, RUNNER, TARGET, TARGET_FILE, copy_tree, spec

REPO = Path(__file__).resolve().parent.parent


def _component(root: Path) -> ast.ClassDef:
    tree = ast.parse((root / TARGET_FILE).read_text())
    return next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "WeightExporter")


def _owner(root: Path) -> ast.ClassDef:
    tree = ast.parse((root / RUNNER).read_text())
    return next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "ModelRunner")


def _fields(cls: ast.ClassDef) -> dict[str, str]:
    return {s.target.id: ast.unparse(s.value) if s.value else "" for s in cls.body if isinstance(s, ast.AnnAssign)}


def _builder_args(owner: ast.ClassDef) -> dict[str, str]:
    fn = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "init_weight_exporter")
    call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call))
    return {k.arg: ast.unparse(k.value) for k in call.keywords}


def test_the_design_fields_getters_callbacks_state(tmp_path):
    root = copy_tree(tmp_path / "t")
    write_plan(refactor(root, spec()))
    component, owner = _component(root), _owner(root)
    assert _fields(component) == {"tp_size": "", "tp_rank": "", "gpu_id": "", "get_model": "", "get_model_path": "",
                                  "flush_cache": "", "_weights_send_group": "field(default_factory=dict)"}
    assert _builder_args(owner) == {"tp_size": "self.tp_size", "tp_rank": "self.tp_rank", "gpu_id": "self.gpu_id",
                                    "get_model": "lambda: self.model",
                                    "get_model_path": "lambda: self.model_config.model_path",
                                    "flush_cache": "self.flush_cache"}
    methods = [s.name for s in component.body if isinstance(s, ast.FunctionDef)]
    assert methods == ["init_weights_send_group", "send_weights", "_group_key", "save_remote_model",
                       "get_weights_by_name"]  # the private helper moved along
    left = {s.name for s in owner.body if isinstance(s, ast.FunctionDef)}
    assert not left & set(METHODS) and "_group_key" not in left
    init = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    assert "self._weights_send_group" not in ast.unparse(init)
    assert [ast.unparse(s) for s in init.body][-2:] == ["self.init_weight_exporter()", "self.cache_flushes = 0"]
    decorator = ast.unparse(component.decorator_list[0])
    assert decorator == "dataclass(frozen=True, slots=True, kw_only=True)"


def test_callers_and_patch_targets_go_through_the_component(tmp_path):
    root = copy_tree(tmp_path / "t")
    write_plan(refactor(root, spec()))
    worker = (root / "sglang/srt/managers/tp_worker.py").read_text()
    assert worker.count("self.model_runner.weight_exporter.") == 3
    scheduler = (root / "sglang/srt/managers/scheduler.py").read_text()
    assert "self.tp_worker.model_runner.weight_exporter.save_remote_model(url)" in scheduler
    assert "self.tp_worker.send_weights(req)" in scheduler  # TpModelWorker's own method: not a caller
    test = (root / "test/test_exporter.py").read_text()
    assert f'"{TARGET}.save_remote_model"' in test and "runner.weight_exporter.save_remote_model(" in test


def test_split_runs_make_the_one_shot_tree_and_a_second_run_is_already_applied(tmp_path):
    one, split = copy_tree(tmp_path / "one"), copy_tree(tmp_path / "split")
    write_plan(refactor(one, spec()))
    for step in (1, 2, 3):
        plan = refactor(split, spec(), steps=range(step, step + 1))
        assert [s.number for s in plan.steps] == [step]
        write_plan(plan)
    for path in sorted(one.rglob("*.py")):
        assert path.read_text() == (split / path.relative_to(one)).read_text(), path
    with pytest.raises(AlreadyApplied):
        refactor(one, spec())


def test_each_step_leaves_a_tree_that_imports(tmp_path):
    root = copy_tree(tmp_path / "t")
    for step in (1, 2, 3):
        write_plan(refactor(root, spec(), steps=range(step, step + 1)))
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import sglang.srt.managers.scheduler, "
                "sglang.srt.model_executor.model_runner as m; print(hasattr(m.ModelRunner, 'init_weight_exporter'))")
        out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


def test_steps_must_start_where_the_tree_is(tmp_path):
    root = copy_tree(tmp_path / "t")
    with pytest.raises(BadInput, match="no step is already applied here; run --steps 1-2"):
        refactor(root, spec(), steps=range(2, 3))
    write_plan(refactor(root, spec(), steps=range(1, 2)))
    with pytest.raises(BadInput, match="step 1 is already applied here"):
        refactor(root, spec(), steps=range(1, 4))


def test_keep_wrappers_keeps_every_delegation(tmp_path):
    root = copy_tree(tmp_path / "t")
    write_plan(refactor(root, spec(keep_wrappers=True)))
    owner = _owner(root)
    kept = {s.name: ast.unparse(s.body[0]) for s in owner.body if isinstance(s, ast.FunctionDef) and s.name in METHODS}
    assert kept["send_weights"] == "return self.weight_exporter.send_weights(ports, group_name)"
    assert set(kept) == set(METHODS)


def test_a_method_handed_around_as_a_value_keeps_its_delegation(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [("        self.cache_flushes = 0\n",
                                                "        self.cache_flushes = 0\n        self.on_send = self.send_weights\n")]})
    plan = refactor(root, spec())
    write_plan(plan)
    owner = _owner(root)
    assert [s.name for s in owner.body if isinstance(s, ast.FunctionDef) and s.name in METHODS] == ["send_weights"]
    assert any("send_weights kept (handed around as a value)" in m for m in plan.messages)


def test_field_renames_a_field(tmp_path):
    root = copy_tree(tmp_path / "t")
    write_plan(refactor(root, spec(fields={"tp_rank": "rank", "model_config.model_path": "get_path"})))
    assert {"rank", "get_path"} <= set(_fields(_component(root)))
    text = (root / TARGET_FILE).read_text()
    assert "ports_list[self.rank]" in text and "self.get_path()" in text and "self.tp_rank" not in text


def test_pass_owner_hands_the_component_the_owner_whole(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [("        del self._weights_send_group[group_name]\n",
                                                "        del self._weights_send_group[group_name]\n"
                                                "        self.cache_flushes = 0\n")]})
    write_plan(refactor(root, spec(pass_owner="runner")))
    assert _builder_args(_owner(root)) == {"runner": "self"}
    text = (root / TARGET_FILE).read_text()
    assert "self.runner.cache_flushes = 0" in text and "self.runner.get_model" not in text
    assert "self._weights_send_group[group_name]" in text  # the moved state is the component's own


def test_the_command_line_dry_run_and_commit(tmp_path):
    root = copy_tree(tmp_path / "t")
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "-c", "user.name=t", "-c", "user.email=t@t",
                                                              "commit", "-qm", "fixture"]):
        subprocess.run(cmd, cwd=root, check=True)
    base = [sys.executable, "-m", "codemods.extract_component", str(root), "ModelRunner", TARGET, "--methods",
            ",".join(METHODS), "--attr", "weight_exporter"]
    dry = subprocess.run(base + ["--dry-run"], capture_output=True, text=True, cwd=REPO)
    assert dry.returncode == 0 and dry.stdout.startswith("diff --git") and "step 3:" in dry.stderr
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(base + ["--commit"], capture_output=True, text=True, cwd=REPO, env={**env, **_py_env()})
    assert done.returncode == 0, done.stderr
    log = subprocess.run(["git", "log", "--format=%s", "-4"], cwd=root, capture_output=True, text=True).stdout
    assert log.splitlines()[:3] == ["Call ModelRunner's 4 methods through weight_exporter",
                                    "Move ModelRunner's 4 methods into WeightExporter",
                                    "Introduce WeightExporter for ModelRunner's 4 methods"]
    again = subprocess.run(base, capture_output=True, text=True, cwd=REPO)
    assert again.returncode == 5 and "already applied" in again.stderr


def _py_env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k.startswith(("PYTHON", "VIRTUAL_ENV")) or k == "PATH"}


def test_bad_input(tmp_path):
    root = copy_tree(tmp_path / "t")
    with pytest.raises(BadInput, match="not a Python identifier"):
        refactor(root, spec(attr="weight-exporter"))
    with pytest.raises(BadInput, match="is not a dotted module name followed by a class"):
        refactor(root, spec(target="WeightExporter"))
    with pytest.raises(BadInput, match="has no method send_weigths \\(send_weigths: did you mean send_weights"):
        refactor(root, spec(methods=("save_remote_model", "send_weigths")))
    with pytest.raises(BadInput, match="has no method no_such"):
        refactor(root, spec(methods=("send_weights", "no_such")))
    with pytest.raises(NoSuchMethod):
        refactor(root, spec(methods=("no_such",)))


RUNNER_STUB = ("from sglang.srt.model_executor.model_runner import ModelRunner\n\n\n"
               "class StubRunner(ModelRunner):\n")
COMPONENTS = "sglang/srt/model_executor/model_runner_components"

REFUSALS = {
    "a moved method writes an owner attribute": (
        {RUNNER: [("        del self._weights_send_group[group_name]\n",
                   "        del self._weights_send_group[group_name]\n        self.cache_flushes = 0\n")]}, {}, {},
        "ModelRunner.send_weights writes self.cache_flushes, an attribute of ModelRunner the component does not own"),
    "moved state written by code that stays": (
        {RUNNER: [("        self.cache_flushes += 1\n",
                   "        self.cache_flushes += 1\n        self._weights_send_group = {}\n")]}, {},
        {"state": ("_weights_send_group",)},
        "ModelRunner.flush_cache writes self._weights_send_group, and it stays: moved state written by code that "
        "stays"),
    "an override": (
        {}, {"sglang/srt/hardware/runner_stub.py": RUNNER_STUB + "    def send_weights(self, ports, group_name):\n"
                                                                "        return True, ''\n"}, {},
        "StubRunner overrides ModelRunner.send_weights"),
    "super() of a moved method": (
        {}, {"sglang/srt/hardware/runner_stub.py": RUNNER_STUB + "    def send_all(self, ports, group_name):\n"
                                                                "        return super().send_weights(ports, group_name)\n"},
        {}, "calls super().send_weights"),
    "access by string": (
        {RUNNER: [("    def flush_cache(self) -> bool:\n",
                   "    def call(self, name):\n        return getattr(self, name)()\n\n    def flush_cache(self) -> bool:\n")]},
        {}, {}, "reaches self by a name known only at run time (getattr(self, name)), which may be a moved method"),
    "an ambiguous receiver": (
        {}, {"sglang/srt/utils_send.py": "def resend(worker, req):\n    return worker.send_weights(req.ports, req.group_name)\n"},
        {}, "uses worker.send_weights: the code does not say what worker is, so it may be ModelRunner.send_weights or "
            "another class's"),
    "moved state read outside the owner": (
        {}, {"sglang/srt/managers/groups.py": "from sglang.srt.managers.tp_worker import TpModelWorker\n\n\n"
                                              "def group_names(worker: TpModelWorker):\n"
                                              "    return sorted(worker.model_runner._weights_send_group)\n"},
        {"state": ("_weights_send_group",)},
        "groups.py:5: --state _weights_send_group: reads worker.model_runner._weights_send_group, which as moved "
        "state would be worker.model_runner.weight_exporter._weights_send_group: the tool makes only ModelRunner's "
        "own methods reach it there"),
    "no valid construction point": (
        {RUNNER: [("        self.gpu_id = gpu_id\n        self.tp_rank = tp_rank\n",
                   "        self.gpu_id = gpu_id\n        self.send_weights('p', 'g')\n        self.tp_rank = tp_rank\n")]},
        {}, {}, "no valid construction point"),
    "a clash with an owner attribute": (
        {RUNNER: [("        self.cache_flushes = 0\n", "        self.cache_flushes = 0\n        self.weight_exporter = None\n")]},
        {}, {}, "ModelRunner already uses self.weight_exporter: choose another --attr"),
    "a clash in the target": (
        {}, {f"{COMPONENTS}/__init__.py": "", f"{COMPONENTS}/weight_exporter.py": "class WeightExporter:\n    pass\n"}, {},
        "already binds WeightExporter"),
    "an import cycle": (
        {}, {f"{COMPONENTS}/__init__.py": "",
             f"{COMPONENTS}/weight_exporter.py": "from sglang.srt.model_executor.model_runner import ModelConfig\n"}, {},
        "which closes the import cycle sglang.srt.model_executor.model_runner -> "
        "sglang.srt.model_executor.model_runner_components.weight_exporter -> sglang.srt.model_executor.model_runner"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals(tmp_path, case):
    edits, files, changes, why = REFUSALS[case]
    root = copy_tree(tmp_path / "t", edits, files)
    before = {p: p.read_text() for p in root.rglob("*.py")}
    with pytest.raises(Refusal) as caught:
        refactor(root, spec(**changes))
    assert why in str(caught.value)
    assert caught.value.exit_code == 3 and caught.value.line
    assert {p: p.read_text() for p in root.rglob("*.py")} == before  # nothing written


def test_keep_wrappers_leaves_an_ambiguous_receiver_going_through_the_delegation(tmp_path):
    root = copy_tree(tmp_path / "t", files={"sglang/srt/utils_send.py": "def resend(worker, req):\n"
                                                                         "    return worker.send_weights(req.ports)\n"})
    plan = refactor(root, spec(keep_wrappers=True))
    assert any("left as it is, through the kept delegation" in m and "worker.send_weights" in m for m in plan.messages)
    write_plan(plan)
    assert "worker.send_weights(req.ports)" in (root / "sglang/srt/utils_send.py").read_text()


def test_state_named_with_state_is_read_through_the_component_by_code_that_stays(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [("    def flush_cache(self) -> bool:\n",
                                                "    def groups(self):\n        return sorted(self._weights_send_group)\n\n"
                                                "    def flush_cache(self) -> bool:\n")]})
    write_plan(refactor(root, spec(state=("_weights_send_group",))))
    owner = _owner(root)
    groups = next(s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "groups")
    assert ast.unparse(groups.body[0]) == "return sorted(self.weight_exporter._weights_send_group)"
    assert _fields(_component(root))["_weights_send_group"] == "field(default_factory=dict)"


def test_moved_state_written_by_staying_code_lists_every_writer(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [
        ("        self.cache_flushes += 1\n", "        self.cache_flushes += 1\n        self._weights_send_group = {}\n"),
        ("    def load_model(self):\n", "    def load_model(self):\n        self._weights_send_group = {}\n")]})
    with pytest.raises(Refusal) as caught:
        refactor(root, spec(state=("_weights_send_group",)))
    text = str(caught.value)
    assert "ModelRunner.flush_cache writes self._weights_send_group" in text
    assert "ModelRunner.load_model writes self._weights_send_group" in text


def test_with_keep_wrappers_the_refusal_says_the_delegations_stay(tmp_path):
    root = copy_tree(tmp_path / "t", files={"sglang/srt/hardware/runner_stub.py": RUNNER_STUB + (
        "    def send_weights(self, ports, group_name):\n        return True, ''\n")})
    with pytest.raises(Refusal) as caught:
        refactor(root, spec(keep_wrappers=True))
    assert "StubRunner overrides ModelRunner.send_weights" in str(caught.value)
    assert "keeps the delegations (--keep-wrappers)" in str(caught.value)
    assert "drops the delegations" not in str(caught.value)


def test_a_clash_in_the_target_is_listed_with_the_other_refusals(tmp_path):
    """Every refusal at once: the target's clash (step 1's) does not wait for the others to be fixed."""
    files = {f"{COMPONENTS}/__init__.py": "", f"{COMPONENTS}/weight_exporter.py": "class WeightExporter:\n    pass\n",
             "sglang/srt/utils_send.py": "def resend(worker, req):\n    return worker.send_weights(req.ports, req.group_name)\n"}
    root = copy_tree(tmp_path / "t", {}, files)
    with pytest.raises(Refusal) as caught:
        refactor(root, spec())
    assert "already binds WeightExporter" in str(caught.value)
    assert "uses worker.send_weights: the code does not say what worker is" in str(caught.value)
