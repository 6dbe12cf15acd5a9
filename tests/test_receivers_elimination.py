"""pysource.receivers.elimination on its fixture (`fixtures/checkouts/untyped_receivers`): a
receiver the code does not type is told to be no `Runner` by structure (also used for an
attribute no Runner has) or by assignment (only ever given values that are not), each decision
with its evidence; what stays undecided is None (the codemods refuse it)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from pysource.checkout import Checkout
from pysource.receivers import Program
from pysource.receivers.elimination import Assigned, Branches, Eliminator, Structure, Typed
from pysource.receivers.family import family

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "checkouts" / "untyped_receivers"
RUNNER = "sglang.srt.engine.runner.Runner"
BRIDGE = "sglang/srt/frontend/bridge.py"
MANAGER = "sglang/srt/managers/weights_manager.py"


def _tree(tmp_path: Path, edits: dict[str, list[tuple[str, str]]] | None = None,
          files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "t"
    shutil.copytree(FIXTURE, root)
    for rel, changes in (edits or {}).items():
        text = (root / rel).read_text()
        for old, new in changes:
            assert text.count(old) == 1, (rel, old)
            text = text.replace(old, new)
        (root / rel).write_text(text)
    for rel, text in (files or {}).items():
        (root / rel).write_text(text)
    return root


def _decide(root: Path, rel: str, line: int, spelled: str):
    program = Program(Checkout(root, root, "sglang"))
    f = program.file(root / rel)
    node = next(n for n in ast.walk(f.tree) if isinstance(n, ast.expr) and getattr(n, "lineno", 0) == line
                and ast.unparse(n) == spelled)
    return Eliminator(program, RUNNER).receiver(f, node)


def test_the_family_is_the_class_its_bases_and_subclasses(tmp_path):
    root = _tree(tmp_path)
    fam = family(Program(Checkout(root, root, "sglang")), RUNNER)
    assert fam.open is None
    assert fam.mine == {RUNNER, "sglang.srt.engine.stub_runner.StubRunner"}
    assert {"reload_weights", "weights", "device", "replayed", "replay"} <= fam.names
    assert not fam.may_have("open_channel") and fam.may_have("__class__")


def test_structure_an_attribute_no_runner_has(tmp_path):
    decided = _decide(_tree(tmp_path), BRIDGE, 12, "self.dispatcher")
    assert decided.reason == Structure(decided.reason.path, 9, "open_channel")
    assert decided.reason.path.name == "bridge.py"
    assert decided.describe().endswith("bridge.py:12 `self.dispatcher` is not a Runner: it is also used for "
                                       f"`.open_channel` ({decided.reason.path}:9), which Runner and its "
                                       "subclasses never have")


def test_assignment_every_value_given_is_no_runner(tmp_path):
    decided = _decide(_tree(tmp_path), MANAGER, 15, "self.helper")
    reason = decided.reason
    assert isinstance(reason, Assigned) and reason.place == "`WeightsManager.helper`"
    assert [(g.path.name, g.line, g.text) for g in reason.values] == [("scheduler.py", 9, "self.helper"),
                                                                      ("weights_manager.py", 10, "None")]
    assert reason.values[0].reason == Structure(reason.values[0].reason.path, 13, "warm_up")
    assert reason.values[1].reason == Typed(("None",))


def test_a_local_given_two_values_each_decided(tmp_path):
    reason = _decide(_tree(tmp_path), MANAGER, 23, "target").reason
    assert isinstance(reason, Assigned) and [g.text for g in reason.values] == ["self.helper or self.worker",
                                                                               "self.worker"]
    either, worker = reason.values
    assert isinstance(either.reason, Branches) and worker.reason == Typed(("sglang.srt.managers.worker.Worker",))


UNDECIDED = {
    "a parameter used for nothing else": (
        {}, {"sglang/srt/managers/relay.py": "def relay(target, path):\n    return target.reload_weights(path)\n"},
        ("sglang/srt/managers/relay.py", 2, "target")),
    "the attribute asked for by name first": (
        {BRIDGE: [("        self.dispatcher.open_channel()\n",
                   "        if hasattr(self.dispatcher, 'open_channel'):\n"
                   "            self.dispatcher.open_channel()\n")]}, {}, (BRIDGE, 13, "self.dispatcher")),
    "the attribute set on a runner elsewhere": (
        {}, {"sglang/srt/frontend/patching.py": "def patch(runner):\n    runner.open_channel = print\n"},
        (BRIDGE, 12, "self.dispatcher")),
    "an attribute a subclass assigns": (
        {BRIDGE: [("open_channel()", "replayed.clear()")]}, {}, (BRIDGE, 12, "self.dispatcher")),
    "inside a try catching AttributeError": (
        {BRIDGE: [("        self.dispatcher.open_channel()\n",
                   "        try:\n            self.dispatcher.open_channel()\n"
                   "        except AttributeError:\n            pass\n")]}, {}, (BRIDGE, 15, "self.dispatcher")),
    "a scope asking isinstance of it": (
        {BRIDGE: [("        self.dispatcher.open_channel()\n",
                   "        assert not isinstance(self.dispatcher, int)\n        self.dispatcher.open_channel()\n")]},
        {}, (BRIDGE, 13, "self.dispatcher")),
    "an owner answering any attribute": (
        {"sglang/srt/engine/runner.py": [("    def forward(self, batch):\n",
                                          "    def __getattr__(self, name):\n        return None\n\n"
                                          "    def forward(self, batch):\n")]}, {}, (BRIDGE, 12, "self.dispatcher")),
    "a value of unknown origin among those given": (
        {"sglang/srt/managers/scheduler.py": [("        return None\n",
                                               "        return None\n\n    def swap(self, other):\n"
                                               "        self.weights_manager.helper = other\n")]},
        {}, (MANAGER, 15, "self.helper")),
    "an attribute of a tuple": (
        {}, {"sglang/srt/managers/pairs.py": "from typing import Tuple\n\n\ndef first(pair: Tuple[int, int], path):\n"
                                             "    target = pair.handler\n    return target.reload_weights(path)\n"},
        ("sglang/srt/managers/pairs.py", 6, "target")),
}


@pytest.mark.parametrize("case", list(UNDECIDED))
def test_what_stays_undecided(tmp_path, case):
    edits, files, (rel, line, spelled) = UNDECIDED[case]
    assert _decide(_tree(tmp_path, edits, files), rel, line, spelled) is None
