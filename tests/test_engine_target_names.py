"""`python -m equivalence --method` on a method that imports what it calls from the module it is
moved to (fixtures/methods/transfer): after the move the name is the function's own module
global, the same object; both versions see it as one input keyed by its origin, and the static
check finds no difference. Calling another function of that module is divergent."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from equivalence.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "transfer"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/distributed/transfer_engine.py"
METHOD = "ModelRunner.init_shared_transfer_engine"
LOCAL_IMPORT = "            from sglang.srt.distributed.transfer_engine import init_transfer_engine\n\n"
MODULE_IMPORT = "from sglang.srt.distributed.transfer_engine import init_transfer_engine\n"
ORIGIN = "sglang.srt.distributed.transfer_engine.init_transfer_engine"
WRAPPER = """\
    def init_shared_transfer_engine(self):
        transfer_engine.maybe_init_shared_transfer_engine(server_args=self.server_args, gpu_id=self.gpu_id)
"""


def original(dest: Path, import_at: str) -> Path:
    """The fixture, the method importing `init_transfer_engine` in its body or at module level."""
    shutil.copytree(FIXTURE, dest)
    if import_at == "module":
        runner = dest / RUNNER
        text = runner.read_text().replace(LOCAL_IMPORT, "")
        runner.write_text(text.replace("from sglang.srt.utils import get_local_ip\n",
                                       "from sglang.srt.utils import get_local_ip\n" + MODULE_IMPORT))
    return dest


def extracted(dest: Path, import_at: str, calls: str = "init_transfer_engine") -> Path:
    """The method moved by hand to the target as `maybe_init_shared_transfer_engine(*, server_args,
    gpu_id)`, where `init_transfer_engine` is the module's own (the import goes); a wrapper stays."""
    original(dest, import_at)
    runner = dest / RUNNER
    text = runner.read_text()
    start = text.index("    def init_shared_transfer_engine(self):")
    body = textwrap.dedent(text[start:].replace(LOCAL_IMPORT, "")).split("\n", 1)[1]
    body = body.replace("self.", "").replace("init_transfer_engine(", f"{calls}(")
    target = dest / TARGET
    target.write_text(target.read_text().replace("import logging\n", "import logging\n\nfrom sglang.srt.environ "
                                                 "import envs\nfrom sglang.srt.utils import get_local_ip\n")
                      + "\n\ndef maybe_init_shared_transfer_engine(*, server_args, gpu_id):\n" + body)
    text = text[:start] + WRAPPER
    text = text.replace("from sglang.srt.environ import envs\n", "from sglang.srt.distributed import transfer_engine\n")
    runner.write_text(text.replace("from sglang.srt.utils import get_local_ip\n", "").replace(MODULE_IMPORT, ""))
    return dest


def run(tmp_path: Path, after: Path, import_at: str, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main(["--method", METHOD, str(original(tmp_path / "before", import_at)), str(after), "--json", str(out),
                 *extra])
    return code, json.loads(out.read_text())


@pytest.mark.parametrize("import_at", ["function", "module"], ids=["function-level-import", "module-level-import"])
def test_the_targets_own_function_is_one_input_in_both_versions(tmp_path, import_at):
    code, report = run(tmp_path, extracted(tmp_path / "after", import_at), import_at, "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["divergences"] == [] and pair["classified"] == []
    assert all(c["hit"] == c["branches"] >= 8 and c["missed"] == [] for c in pair["coverage"].values())
    assert pair["inputs"][ORIGIN] == ["<stand-in>"]  # called, never run: not the subject of the refactoring
    static = pair["static"]
    assert static["residuals"] == [] and not static["divergent"]  # the import went, the docstring moved
    (own,) = [c for c in static["constants"] if c["name"] == "init_transfer_engine"]
    assert (own["equal"], own["detail"]) == (True, f"the same object: {ORIGIN}")
    mutants = report["mutants"]
    assert mutants["total"] >= 10 and mutants["killed"] >= 0.9 * mutants["total"], mutants["survivors"]


@pytest.mark.parametrize("import_at", ["function", "module"], ids=["function-level-import", "module-level-import"])
def test_calling_another_function_of_the_target_is_divergent(tmp_path, import_at):
    code, report = run(tmp_path, extracted(tmp_path / "after", import_at, calls="init_backup_engine"), import_at)
    assert (code, report["verdict"]) == (1, "divergent")
    (pair,) = report["pairs"]
    (first, *_) = pair["divergences"]
    calls = {side: [e[1] for e in first[side]["events"] if e[0] == "call"] for side in ("before", "after")}
    assert ORIGIN in calls["before"] and ORIGIN not in calls["after"]  # the other function ran instead
    (other,) = [c for c in pair["static"]["constants"] if c["name"] == "init_backup_engine"]
    assert not other["equal"] and pair["static"]["divergent"]
