"""extract_method on a `@property` (`codemods.extract_method.properties`): moved as a function of
what it reads, its reads rewritten; with the wrapper the property stays (overrides listed, kept),
with --no-wrapper the reads call the function (overrides refused, or left with
--leave-overrides); a setter, a writing body, another decorator refused with file:line; a second
run says already applied and changes nothing. Fixture: fixtures/trees/method_property."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemods.core.errors import BadInput, Conflicts, Refusal, StepsTogether
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / "fixtures" / "trees" / "method_property"
RUNNER = "sglang/srt/model_executor/runner.py"
CHOICE = "sglang/srt/layers/backend_choice.py"
TARGET = "sglang/srt/configs/recurrent_arch.py"
SPEC = MethodSpec(class_name="Runner", method_name="recurrent_config",
                  target_module="sglang.srt.configs.recurrent_arch")
BARE = MethodSpec(**{**SPEC.__dict__, "no_wrapper": True, "positional": True, "leave_overrides": True})
PROBE = textwrap.dedent("""
    from sglang.srt.configs.families import DenseConfig, HybridConfig, RecurrentConfig, VisionConfig
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.layers.backend_choice import Worker, choose_backend
    from sglang.srt.model_executor.runner import Runner
    from sglang.test.mock_runner import MockRunner
    for hf in (DenseConfig(), RecurrentConfig(), HybridConfig(), VisionConfig(RecurrentConfig())):
        for draft in (False, True):
            r = Runner(ModelConfig(hf), is_draft=draft)
            print(choose_backend(r), Worker(r).layers(), r.describe())
    m = MockRunner(ModelConfig(RecurrentConfig()))
    print("mock", choose_backend(m), Worker(m).layers(), m.describe())
""")

WRAPPER = '''\
    @property
    def recurrent_config(self):
        return recurrent_arch.recurrent_config(model_config=self.model_config)
'''
FUNCTION = '''\
def recurrent_config(*, model_config: ModelConfig):
    config = model_config.hf_config.get_text_config()
    if isinstance(config, (RecurrentConfig, HybridConfig)):
        return config
    return None
'''


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    shutil.copytree(TREE, root)
    return root


def _probe(root: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*.py")}


def test_with_the_wrapper_the_property_stays_and_overrides_are_listed(tmp_path):
    root = _tree(tmp_path)
    before = _probe(root)
    plan = refactor(root, SPEC)
    listed = "\n".join(plan.messages)
    assert "Runner.recurrent_config is a property" in listed
    assert f"{root / 'sglang/test/mock_runner.py'}:8: MockRunner overrides Runner.recurrent_config: reads go on " \
           f"finding it through the property wrapper of step 3" in listed
    assert f"{root / CHOICE}:22: uses self.runner.recurrent_config" in listed
    assert plan.broken_between_steps  # steps 1-2 alone break the reads elsewhere: never --commit
    write_plan(plan)
    runner = (root / RUNNER).read_text()
    assert WRAPPER in runner
    assert "config = self.recurrent_config\n" in runner and "if self.recurrent_config is not None:" in runner
    assert "RecurrentConfig" not in runner  # step 4: imports only the function used
    assert FUNCTION in (root / TARGET).read_text()
    assert (root / CHOICE).read_text() == (TREE / CHOICE).read_text()
    assert _probe(root) == before  # the mock's override too: every read still goes through the property


def test_without_a_wrapper_reads_call_the_function(tmp_path):
    root = _tree(tmp_path)
    before = _probe(root)
    plan = refactor(root, BARE)
    listed = "\n".join(plan.messages)
    assert "3 call(s) in 1 file(s) outside Runner now call recurrent_arch.recurrent_config" in listed
    assert f"{root / 'sglang/test/mock_runner.py'}:8: MockRunner overrides Runner.recurrent_config: left as " \
           f"it is, and no longer read (--leave-overrides)" in listed
    write_plan(plan)
    runner = (root / RUNNER).read_text()
    assert "def recurrent_config" not in runner
    assert "config = recurrent_arch.recurrent_config(self.model_config)\n" in runner
    assert "if recurrent_arch.recurrent_config(self.model_config) is not None:" in runner
    choice = (root / CHOICE).read_text()
    assert "from sglang.srt.configs import recurrent_arch\n" in choice
    assert "if recurrent_arch.recurrent_config(runner.model_config) is not None and runner.is_draft:" in choice
    assert "config = recurrent_arch.recurrent_config(self.runner.model_config)\n" in choice
    assert "def recurrent_config(model_config: ModelConfig):" in (root / TARGET).read_text()
    after = _probe(root)
    *same, mock = before.splitlines()
    assert after.splitlines()[:-1] == same  # every real runner as before
    assert mock == "mock dense 0 full x0 (page 16)"  # the mock's override was read ...
    assert after.splitlines()[-1] == "mock recurrent 4 recurrent x4 (page 16)"  # ... and no longer is


def test_an_override_is_refused_without_a_wrapper_and_nothing_written(tmp_path):
    root = _tree(tmp_path)
    files = _files(root)
    with pytest.raises(Conflicts) as exc:
        refactor(root, MethodSpec(**{**BARE.__dict__, "leave_overrides": False}))
    lines = {(loc.path.name, loc.line) for loc in exc.value.locations}
    assert lines == {("mock_runner.py", 8)}
    assert "no longer find the override" in exc.value.locations[0].what
    assert _files(root) == files


@pytest.mark.parametrize("spec", [SPEC, BARE], ids=["wrapper", "no-wrapper"])
def test_a_second_run_is_already_applied_and_changes_nothing(tmp_path, spec):
    root = _tree(tmp_path)
    write_plan(refactor(root, spec))
    files = _files(root)
    with pytest.raises(AlreadyApplied):
        refactor(root, spec)
    assert _files(root) == files


@pytest.mark.parametrize("edit, line, why, at", [
    ("        return None\n\n    @property\n    def state_layers",
     "        return None\n\n    @recurrent_config.setter\n    def recurrent_config(self, value):\n"
     "        self._forced = value\n\n    @property\n    def state_layers", "with a setter", "def recurrent_config(self, value):"),
    ("        if isinstance(config, (RecurrentConfig, HybridConfig)):\n            return config",
     "        if isinstance(config, (RecurrentConfig, HybridConfig)):\n            self.cached = config\n"
     "            return config", "writes self.cached", "return config"),
    ("    @property\n    def recurrent_config", "    @functools.cached_property\n    def recurrent_config",
     "has a decorator (@functools.cached_property)", "def recurrent_config(self):"),
])
def test_what_a_property_cannot_be_is_refused_with_its_line(tmp_path, edit, line, why, at):
    root = _tree(tmp_path)
    path = root / RUNNER
    text = path.read_text()
    assert edit in text
    path.write_text(text.replace(edit, line))
    files = _files(root)
    with pytest.raises(Refusal) as exc:
        refactor(root, SPEC)
    assert why in str(exc.value)
    assert exc.value.path == path
    assert path.read_text().splitlines()[exc.value.line - 1].strip() == at
    assert _files(root) == files


def test_steps_1_3_run_together(tmp_path):
    root = _tree(tmp_path)
    with pytest.raises(StepsTogether) as exc:
        refactor(root, SPEC, steps=range(1, 3))
    assert exc.value.together == range(1, 4)
    assert isinstance(exc.value, BadInput)  # exit 2
    write_plan(refactor(root, SPEC, steps=range(1, 4)))  # 1-3 together, then 4 alone
    assert "return recurrent_arch.recurrent_config(" in (root / RUNNER).read_text()
    write_plan(refactor(root, SPEC, steps=range(4, 5)))
    assert "RecurrentConfig" not in (root / RUNNER).read_text()


def test_dry_run_lists_the_overrides_with_file_and_line(tmp_path):
    root = _tree(tmp_path)
    out = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root), "Runner.recurrent_config",
                          "sglang.srt.configs.recurrent_arch", "--dry-run", "--no-wrapper"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 3 and out.stdout == ""
    assert f"{root / 'sglang/test/mock_runner.py'}:8: MockRunner overrides Runner.recurrent_config" in out.stderr
    out = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root), "Runner.recurrent_config",
                          "sglang.srt.configs.recurrent_arch", "--dry-run", "--no-wrapper", "--leave-overrides"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "+        if recurrent_arch.recurrent_config(model_config=self.model_config) is not None:" in out.stdout
    assert "sglang/test/mock_runner.py:8: MockRunner overrides" in out.stderr


def test_equivalence_checks_steps_1_3_as_one_pair(tmp_path):
    root = _tree(tmp_path)
    out = subprocess.run([sys.executable, "-m", "equivalence", "--steps", str(root), "--method",
                          "Runner.recurrent_config", "--to", "sglang.srt.configs.recurrent_arch"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "original -> steps 1-3: equivalent" in out.stdout
    assert "steps 1-3 -> step 4: equivalent" in out.stdout
    assert "branches before 4/4 after 4/4" in out.stdout


def test_a_union_of_stubbed_classes_in_isinstance_is_tested_as_the_tuple_is(tmp_path):
    """`isinstance(config, A | B)` with A and B stubbed: the `|` of two stand-ins inside the class
    test is a union of classes, not a bitwise or (0.5.15.post1's `hybrid_gdn_config` spells it so:
    3/10 branches while `|` gave ints)."""
    root = _tree(tmp_path)
    runner = root / "sglang/srt/model_executor/runner.py"
    text = runner.read_text()
    assert "isinstance(config, (RecurrentConfig, HybridConfig))" in text
    runner.write_text(text.replace("isinstance(config, (RecurrentConfig, HybridConfig))",
                                   "isinstance(config, RecurrentConfig | HybridConfig)"))
    out = subprocess.run([sys.executable, "-m", "equivalence", "--steps", str(root), "--method",
                          "Runner.recurrent_config", "--to", "sglang.srt.configs.recurrent_arch"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "branches before 4/4 after 4/4" in out.stdout
