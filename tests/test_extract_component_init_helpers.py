"""An attribute the owner assigns in a method that runs only while `__init__` runs, before the
component may be used (sglang's Scheduler: `self.init_model_config()`, called once from
`__init__`, assigns `self.model_config`), is assigned once the component is built no more than
one `__init__` assigns itself: a value field, as upstream's DynamicChunkSizer has it, not a
getter. The method running at any other time (another method calls it, another file spells it,
`__init__` calls it again after the building point) makes it a getter again."""

from __future__ import annotations

import ast

import pytest

from codemods.extract_component import refactor
from tests.component_trees import RUNNER, TARGET_FILE, copy_tree, spec

HELPER = [("        self.tp_rank = tp_rank\n", "        self.init_ranks(tp_rank)\n"),
          ("    def load_model(self):\n", "    def init_ranks(self, tp_rank):\n        self.tp_rank = tp_rank\n\n"
                                          "    def load_model(self):\n")]


def _arguments(plan) -> dict[str, str]:
    """The component's constructor arguments in the owner's builder."""
    owner = ast.parse(next(t for p, t in plan.changes.items() if p.as_posix().endswith(RUNNER)))
    call = next(n for n in ast.walk(owner) if isinstance(n, ast.FunctionDef) and n.name == "init_weight_exporter")
    return {k.arg: ast.unparse(k.value) for k in next(n for n in ast.walk(call) if isinstance(n, ast.Call)).keywords}


def test_an_attribute_a_helper_of_init_assigns_is_a_value_field(tmp_path):
    plan = refactor(copy_tree(tmp_path / "t", {RUNNER: HELPER}), spec())
    assert _arguments(plan)["tp_rank"] == "self.tp_rank"
    assert "get_tp_rank" not in next(t for p, t in plan.changes.items() if p.as_posix().endswith(TARGET_FILE))


@pytest.mark.parametrize("runs_later", [
    {RUNNER: HELPER + [("    def flush_cache(self) -> bool:\n",
                        "    def reset(self):\n        self.init_ranks(0)\n\n    def flush_cache(self) -> bool:\n")]},
    {RUNNER: HELPER + [("        self.cache_flushes = 0\n", "        self.cache_flushes = 0\n        self.init_ranks(1)\n")]},
    {RUNNER: HELPER, "sglang/srt/managers/rerank.py": None},  # another file calls it
], ids=["another-method-calls-it", "init-calls-it-after-the-building-point", "another-file-calls-it"])
def test_a_helper_that_may_run_later_makes_a_getter(tmp_path, runs_later):
    edits = {k: v for k, v in runs_later.items() if v is not None}
    files = {k: "def rerank(runner):\n    runner.init_ranks(3)\n" for k, v in runs_later.items() if v is None}
    plan = refactor(copy_tree(tmp_path / "t", edits, files=files), spec())
    assert _arguments(plan)["get_tp_rank"] == "lambda: self.tp_rank"


def test_the_proof_agrees_the_helper_rebinds_nothing_once_built(tmp_path):
    # the harness's own reading (equivalence.component.shape.during_init): it does not rebind
    # tp_rank between calls, and the value field is equivalent; a helper called later is rebound
    import json
    import subprocess
    import sys

    from codemods.extract_component import write_plan

    for case, edits, rebound in [("once", HELPER, False), ("later", HELPER + [(
            "    def flush_cache(self) -> bool:\n",
            "    def reset(self):\n        self.init_ranks(0)\n\n    def flush_cache(self) -> bool:\n")], True)]:
        before = copy_tree(tmp_path / case / "before", {RUNNER: edits})
        after = copy_tree(tmp_path / case / "after", {RUNNER: edits})
        write_plan(refactor(after, spec()))
        out = tmp_path / case / "report.json"
        run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.weight_exporter",
                              str(before), str(after), "--json", str(out)], capture_output=True, text=True)
        pair = json.loads(out.read_text())["pairs"][0]
        assert run.returncode == 0 and pair["verdict"] == "equivalent", (case, run.stdout[-2000:])
        assert ("self.tp_rank" in pair["component"]["rebound"]) is rebound, pair["component"]
