"""`python -m equivalence --method` on a method that dispatches on an input through a tuple of
many names and a table keyed by it (fixtures/methods/graphs, shaped like sglang's
init_decode_cuda_graph): every name the tuple tests and every key of the table is one of the
input's values, so an extraction that changes any of them is divergent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main
from tests.method_trees import as_function, with_wrapper

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "graphs"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/model_executor/graph_setup.py"
METHOD = "ModelRunner.init_device_graphs"
PARAMS = ("device", "gpu_id")


def extracted(dest: Path, edit: tuple[str, str] | None = None) -> Path:
    """The fixture with init_device_graphs moved by hand into graph_setup (with the imports it
    needs) and a wrapper left in ModelRunner; then one (old, new) replacement in the target."""
    shutil.copytree(FIXTURE, dest)
    runner, target = dest / RUNNER, dest / TARGET
    text = runner.read_text()
    runner.write_text(with_wrapper(text, METHOD.split(".")[1], "graph_setup", list(PARAMS), None).replace(
        "from sglang.srt.utils", "from sglang.srt.model_executor import graph_setup\nfrom sglang.srt.utils"))
    moved = target.read_text().replace("import logging\n", "import logging\nfrom collections import defaultdict\n\n"
                                       "from sglang.srt.utils import get_available_gpu_memory\n")
    moved += "\n\n" + as_function(text, METHOD.split(".")[1], list(PARAMS), None)
    if edit is not None:
        assert edit[0] in moved, edit
        moved = moved.replace(edit[0], edit[1], 1)
    target.write_text(moved)
    return dest


def run(tmp_path: Path, after: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main(["--method", METHOD, str(FIXTURE), str(after), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def test_the_extraction_is_proven_with_every_mutant_of_the_names_killed(tmp_path):
    code, report = run(tmp_path, extracted(tmp_path / "after"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    for side in ("before", "after"):
        cov = pair["coverage"][side]
        assert cov["hit"] == cov["branches"] >= 2 and cov["missed"] == []
    devices = pair["inputs"]["self.device"]
    # every name of the tuple (past the neighbours of the first ones) and every key of the table
    assert {"npu", "xpu", "hpu", "mps", "ipu", "tpu", "cuda", "musa", "cpu"} <= set(devices)
    assert report["mutants"]["killed"] == report["mutants"]["total"] > 0


@pytest.mark.parametrize("edit", [
    ('"musa": "CUDA graph"', '"musa": "MUSA graph"'),  # a key only the table names
    ('"ipu", "tpu")', '"ipu", "tpux")'),  # the last name of a long tuple
], ids=["table-value", "last-name-of-tuple"])
def test_a_changed_name_is_divergent(tmp_path, edit):
    code, report = run(tmp_path, extracted(tmp_path / "after", edit))
    assert (code, report["verdict"]) == (1, "divergent")


DRAFT_WRAPPER = """    def init_draft_graph(self, force_for_draft: bool = False):
        graph_setup.init_draft_graph(is_draft_worker=self.is_draft_worker, device=self.device, force_for_draft={})
"""
DRAFT_FUNCTION = """

def init_draft_graph(*, is_draft_worker, device, force_for_draft: bool = False) -> None:
    if is_draft_worker and not force_for_draft:
        return
    logger.info(f"Capture {'draft' if is_draft_worker else 'target'} graph on {device}")
"""


def draft_extracted(dest: Path, passes: str) -> Path:
    """The fixture with init_draft_graph moved by hand into graph_setup, its wrapper passing
    `force_for_draft=<passes>`."""
    shutil.copytree(FIXTURE, dest)
    runner, target = dest / RUNNER, dest / TARGET
    text = runner.read_text()
    start = text.index("    def init_draft_graph(")
    runner.write_text(text[:start].replace("from sglang.srt.utils", "from sglang.srt.model_executor import graph_setup\n"
                                           "from sglang.srt.utils") + DRAFT_WRAPPER.format(passes))
    target.write_text(target.read_text() + DRAFT_FUNCTION)
    return dest


@pytest.mark.parametrize("passes, verdict", [("force_for_draft", "equivalent"), ("False", "divergent")],
                         ids=["forwarded", "dropped"])
def test_a_parameter_the_call_leaves_at_its_default_is_varied(tmp_path, passes, verdict):
    out = tmp_path / "r.json"
    main(["--method", "ModelRunner.init_draft_graph", str(FIXTURE), str(draft_extracted(tmp_path / "a", passes)),
          "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["verdict"] == verdict
    (pair,) = report["pairs"]
    assert pair["inputs"]["arg:force_for_draft"][:3] == ["<absent>", True, None]
    if verdict == "equivalent":  # the branch only force_for_draft=True runs was run
        assert pair["coverage"]["before"]["hit"] == pair["coverage"]["before"]["branches"]
