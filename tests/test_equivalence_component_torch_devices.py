"""A component check offers torch's own values where the moved code hands torch an owner's
attribute as a device (`torch.device(self.device)`, read as `self.model_runner.device` once
moved), and compares a generator the code hands on by its code, not by its address or the
class it was made in (`load(model, (w for w in ...))`). Its world reads the code under test as a
method check's does (`isinstance(x, torch.dtype)` offers dtypes), and a tensor torch leaves
uninitialised (`torch.empty`) holds the same in both versions."""

from __future__ import annotations

import json
import subprocess
import sys

from codemods.extract_component import refactor, write_plan
from tests.component_trees import RUNNER, copy_tree, spec

SAVE = '''        logger.info(f"Saving model to {url}")
        RemoteModelLoader.save_model(self.model, self.model_config.model_path, url)
'''
SAVE_ON_A_DEVICE = '''        device = torch.device(self.device)
        if self.device == "cuda":
            logger.info(f"Saving model to {url}")
        RemoteModelLoader.save_model(self.model, (p for p in self.model_config.model_path), url, device)
'''


WEIGHTS = """            return self.model.get_weights_by_name(name, truncate_size, tp_size=self.tp_size)
"""
WEIGHTS_BY_KIND = """            kind = "dtype" if isinstance(name, torch.dtype) else "name"
            return self.model.get_weights_by_name(name, truncate_size, tp_size=self.tp_size, kind=kind,
                                                  buffer=torch.empty(64))
"""


def _check(tmp_path, edits) -> dict:
    before = copy_tree(tmp_path / "before", {RUNNER: edits})
    after = copy_tree(tmp_path / "after", {RUNNER: edits})
    write_plan(refactor(after, spec(pass_owner="model_runner")))
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.weight_exporter",
                          str(before), str(after), "--json", str(out)], capture_output=True, text=True)
    assert out.exists(), run.stderr[-2000:]
    return json.loads(out.read_text())


def test_torch_values_offered_generators_by_code_and_uninitialised_memory_alike(tmp_path):
    """One check of both edits (each mechanism alone leaves it divergent or inconclusive)."""
    report = _check(tmp_path, [(SAVE, SAVE_ON_A_DEVICE), (WEIGHTS, WEIGHTS_BY_KIND)])
    (pair,) = report["pairs"]
    assert pair["verdict"] == "equivalent", pair["divergences"][:1] or pair["coverage"]
    for side in ("before", "after"):
        assert pair["coverage"][side]["hit"] == pair["coverage"][side]["branches"], (side, pair["coverage"][side])
    assert "self.device" in json.dumps(pair["inputs"])
