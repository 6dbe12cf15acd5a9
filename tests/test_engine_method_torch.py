"""`python -m equivalence --method` on a target module that imports torch's distributed
submodules (fixtures/methods/torch_tp, shaped like sglang's layers/model_parallel.py): it loads
with real torch, what the code asks of `torch.distributed` is answered and observed by the
world (never a real process group), and a wrong extraction is divergent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "torch_tp"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/layers/model_parallel.py"
METHOD = "ModelRunner.shard_model"
PARAMS = ("tp_size", "device", "model", "shard_columns")
WRAPPER = """    def shard_model(self):
        model_parallel.shard_model(
            tp_size=self.tp_size, device=self.device, model=self.model, shard_columns=self.shard_columns
        )
"""


def edited(dest: Path, edits: dict[str, tuple[str, str]] | None) -> Path:
    """`dest` after one (old, new) text replacement per file of `edits`."""
    for rel, (old, new) in (edits or {}).items():
        path = dest / rel
        assert old in path.read_text(), (rel, old)
        path.write_text(path.read_text().replace(old, new, 1))
    return dest


def extracted(dest: Path, edits: dict[str, tuple[str, str]] | None = None, first: dict | None = None) -> Path:
    """The fixture (with `first` edits) with `shard_model` moved by hand into the target module
    (which gains `import torch.distributed as dist`), a wrapper left in ModelRunner and its unused
    imports dropped; then `edits`."""
    edited(shutil.copytree(FIXTURE, dest), first)
    runner, target = dest / RUNNER, dest / TARGET
    text = runner.read_text()
    start = text.index("    def shard_model(self):")
    body = "".join(line[4:] + "\n" for line in text[start:].splitlines()[1:])
    for param in PARAMS:
        body = body.replace(f"self.{param}", param)
    runner.write_text(
        text[:start].replace("import torch\nimport torch.distributed as dist\n"
                             "from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, "
                             "parallelize_module\n\n", "")
        .replace("from sglang.srt.server_args", "from sglang.srt.layers import model_parallel\nfrom sglang.srt.server_args")
        + WRAPPER)
    target.write_text(target.read_text().replace("import torch\n", "import torch\nimport torch.distributed as dist\n")
                      + f"\n\ndef shard_model(*, {', '.join(PARAMS)}) -> None:\n{body}")
    return edited(dest, edits)


def run(tmp_path: Path, after: Path, *extra: str, before: Path = FIXTURE) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main(["--method", METHOD, str(before), str(after), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def calls(observed: dict) -> list:
    return [e[1:] for e in observed["events"] if e[0] == "call"]


def test_a_target_importing_torch_distributed_submodules_is_proven(tmp_path):
    code, report = run(tmp_path, extracted(tmp_path / "after"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["shapes"] == {"before": "method", "after": "wrapper"}
    for side, unit in (("before", "method"), ("after", "function")):
        cov = pair["coverage"][side]
        assert cov["hit"] == cov["branches"] >= 6 and cov["missed"] == []
    # torch.distributed is the world's: its calls are inputs, varied where the code compares them
    assert {"torch.distributed.init_device_mesh", "torch.distributed.tensor.parallel.parallelize_module"} <= set(
        pair["inputs"])
    assert len(pair["inputs"]["torch.distributed.get_rank()"]) > 2
    constants = {c["name"]: c for c in pair["static"]["constants"]}
    assert constants["dist"]["equal"] and constants["parallelize_module"]["equal"]
    mutants = report["mutants"]
    assert mutants["total"] >= 10 and mutants["killed"] >= 0.9 * mutants["total"], mutants["survivors"]


LOCAL_IMPORT = {RUNNER: ("        device_mesh = torch.distributed.init_device_mesh(",
                         "        from torch.distributed import init_device_mesh\n\n"
                         "        device_mesh = init_device_mesh(")}


def test_a_function_level_import_from_torch_distributed_is_observed_the_same(tmp_path):
    before = edited(shutil.copytree(FIXTURE, tmp_path / "before"), LOCAL_IMPORT)
    for edits, verdict in (({}, "equivalent"), (WRONG_DEVICE, "divergent")):
        after = extracted(tmp_path / f"after-{verdict}", edits, first=LOCAL_IMPORT)
        code, report = run(tmp_path, after, before=before)
        assert report["verdict"] == verdict
        assert all(c["hit"] == c["branches"] for c in report["pairs"][0]["coverage"].values())
        if verdict == "divergent":
            (shown, *_) = [d for d in report["pairs"][0]["divergences"] if "example" in d]
            assert meshed_on_the_args_device(calls(shown["after"]))


def meshed_on_the_args_device(calls: list) -> bool:
    """A mesh of `(tp_size,)` asked on `self.server_args.device` (tp_size: the world's value of the
    key, an int since the runner declares `tp_size: int`)."""
    return any(name == "torch.distributed.init_device_mesh" and args[0] == "<self.server_args.device>"
               and len(args[1]) == 1 for name, args, _ in calls)


WRONG_DEVICE = {RUNNER: ("device=self.device", "device=self.server_args.device")}
WRONG = {
    "device from the wrong attribute": WRONG_DEVICE,
    "mesh of the wrong size": {TARGET: ("init_device_mesh(device, (tp_size,))", "init_device_mesh(device, (1,))")},
    "another plan": {TARGET: ("ColwiseParallel() if shard_columns", "RowwiseParallel() if shard_columns")},
}


@pytest.mark.parametrize("case", WRONG, ids=list(WRONG))
def test_a_wrong_extraction_is_divergent_in_what_torch_distributed_is_asked(tmp_path, case):
    code, report = run(tmp_path, extracted(tmp_path / "after", WRONG[case]))
    assert (code, report["verdict"]) == (1, "divergent")
    shown = [d for d in report["pairs"][0]["divergences"] if "example" in d]
    assert shown
    before, after = calls(shown[0]["before"]), calls(shown[0]["after"])
    assert before != after and all(name.startswith("torch.distributed.") for name, *_ in before + after)
    if case == "device from the wrong attribute":
        assert meshed_on_the_args_device(after)


DEVICE_MODULE = {RUNNER: ("    def shard_model(self):\n",
                          "    def shard_model(self):\n        torch.get_device_module(self.device).set_device(0)\n"
                          "        if self.device == \"cpu\":\n            logger.info(\"On the CPU.\")\n")}


def test_the_device_module_is_the_world_s_and_the_device_is_varied_after_it(tmp_path):
    """torch.get_device_module hands out device state (torch.cuda): its call is observed, never run on
    a stand-in device (which real torch refuses), so the code after it runs with every device."""
    before = edited(shutil.copytree(FIXTURE, tmp_path / "before"), DEVICE_MODULE)
    for edits, verdict in (({}, "equivalent"), ({TARGET: ("set_device(0)", "set_device(1)")}, "divergent")):
        code, report = run(tmp_path, extracted(tmp_path / f"after-{verdict}", edits, first=DEVICE_MODULE),
                           before=before)
        assert report["verdict"] == verdict
        (pair,) = report["pairs"]
        assert all(c["hit"] == c["branches"] and c["missed"] == [] for c in pair["coverage"].values())
        assert "cpu" in pair["inputs"]["self.device"]
