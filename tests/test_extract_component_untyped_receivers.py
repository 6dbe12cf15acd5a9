"""extract_component where callers' receivers are not typed (`fixtures/checkouts/untyped_receivers`):
those provably no owner (by structure, by assignment) are left alone and each decision is listed
(the `--dry-run` output too); one that stays ambiguous is refused, file:line, as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_component import ComponentSpec, Refusal, refactor, write_plan
from tests.test_receivers_elimination import _tree

REPO = Path(__file__).resolve().parent.parent
TARGET = "sglang.srt.engine.runner_parts.weights.RunnerWeights"
METHODS = ("reload_weights", "push_weights")


def _spec() -> ComponentSpec:
    return ComponentSpec(class_name="Runner", target=TARGET, methods=METHODS, attr="runner_weights")


def test_receivers_of_other_classes_are_left_alone_and_each_decision_listed(tmp_path):
    root = _tree(tmp_path)
    before = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.py")}
    plan = refactor(root, _spec())
    decisions = [m.strip() for m in plan.messages if " is not a Runner: " in m]
    assert decisions == [
        f"{root}/sglang/srt/frontend/bridge.py:12 `self.dispatcher` is not a Runner: it is also used for "
        f"`.open_channel` (sglang/srt/frontend/bridge.py:9), which Runner and its subclasses never have",
        f"{root}/sglang/srt/managers/weights_manager.py:15 `self.helper` is not a Runner: `WeightsManager.helper` is "
        f"only ever assigned values that are not [sglang/srt/managers/scheduler.py:9 `self.helper`: it is also used "
        f"for `.warm_up` (sglang/srt/managers/scheduler.py:13), which Runner and its subclasses never have; "
        f"sglang/srt/managers/weights_manager.py:10 `None`: it is None]",
        f"{root}/sglang/srt/managers/weights_manager.py:23 `target` is not a Runner: `target` is only ever assigned "
        f"values that are not [sglang/srt/managers/weights_manager.py:20 `self.helper or self.worker`: each part is "
        f"not [sglang/srt/managers/weights_manager.py:20 `self.helper`: `WeightsManager.helper` is only ever "
        f"assigned values that are not (2 places); sglang/srt/managers/weights_manager.py:20 `self.worker`: it is a "
        f"Worker]; sglang/srt/managers/weights_manager.py:22 `self.worker`: it is a Worker]",
    ]
    write_plan(plan)
    after = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.py")}
    changed = {p for p in after if after[p] != before.get(p)}
    assert changed == {"sglang/srt/engine/runner.py", "sglang/srt/managers/worker.py",
                       "sglang/srt/engine/runner_parts/__init__.py", "sglang/srt/engine/runner_parts/weights.py"}
    assert "self.runner.runner_weights.reload_weights(path)" in after["sglang/srt/managers/worker.py"]


@pytest.mark.parametrize("files, edits, where", [
    ({"sglang/srt/managers/relay.py": "def relay(target, path):\n    return target.reload_weights(path)\n"}, {},
     "relay.py:2: uses target.reload_weights: the code does not say what target is"),
    ({"sglang/srt/frontend/patching.py": "def patch(runner):\n    runner.open_channel = print\n"}, {},
     "bridge.py:12: uses self.dispatcher.reload_weights: the code does not say what self.dispatcher is"),
])
def test_a_receiver_that_stays_ambiguous_is_refused_with_its_place(tmp_path, files, edits, where):
    root = _tree(tmp_path, edits, files)
    before = {p: p.read_text() for p in root.rglob("*.py")}
    with pytest.raises(Refusal) as caught:
        refactor(root, _spec())
    assert where in str(caught.value) and caught.value.exit_code == 3
    assert {p: p.read_text() for p in root.rglob("*.py")} == before


def test_the_dry_run_lists_the_decisions(tmp_path):
    root = _tree(tmp_path)
    dry = subprocess.run([sys.executable, "-m", "codemods.extract_component", str(root), "Runner", TARGET,
                          "--methods", ",".join(METHODS), "--attr", "runner_weights", "--dry-run"],
                         capture_output=True, text=True, cwd=REPO)
    assert dry.returncode == 0, dry.stderr
    assert "+++ b/sglang/srt/managers/worker.py" in dry.stdout and "bridge.py" not in dry.stdout
    assert "sglang/srt/frontend/bridge.py:12 `self.dispatcher` is not a Runner: it is also used for " \
           "`.open_channel` (sglang/srt/frontend/bridge.py:9)" in dry.stderr
    assert dry.stderr.count(" is not a Runner: ") == 3
