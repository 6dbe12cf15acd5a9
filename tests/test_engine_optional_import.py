"""A function-level import of a module that is not installed (an optional dependency under
`try`, fixtures/methods/optional): both ways are run, the module there (what is imported from it
is the world's) and missing (the import raises ModuleNotFoundError), so the code after the
import is checked too."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from equivalence.cli import main

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "methods" / "optional"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/debug/probe_utils.py"
METHOD = "ModelRunner.init_probe"
MODULE = "tensorprobe_not_installed.torch"


def extracted(dest: Path, edit: tuple[str, str] = ("", "")) -> Path:
    """init_probe moved by hand to probe_utils, taking the runner whole; then `edit` in the function."""
    shutil.copytree(FIXTURE, dest)
    runner = dest / RUNNER
    text = runner.read_text()
    start = text.index("    def init_probe(self):")
    body = textwrap.dedent(text[start:]).split("\n", 1)[1].replace("self.", "model_runner.")
    target = dest / TARGET
    target.write_text(target.read_text() + "\n\ndef init_probe(*, model_runner):\n" + body.replace(*edit))
    runner.write_text(text[:start].replace("import logging\n", "import logging\n\nfrom sglang.srt.debug import "
                                           "probe_utils\n")
                      + "    def init_probe(self):\n        probe_utils.init_probe(model_runner=self)\n")
    return dest


def run(tmp_path: Path, after: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    before = tmp_path / "before"
    shutil.copytree(FIXTURE, before)
    code = main(["--method", METHOD, str(before), str(after), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def test_the_module_is_varied_there_and_missing(tmp_path):
    code, report = run(tmp_path, extracted(tmp_path / "after"), "--mutants")
    assert (code, report["verdict"]) == (0, "equivalent")
    (pair,) = report["pairs"]
    assert pair["inputs"][MODULE] == ["<stand-in>", "<absent>"]
    assert all(c["hit"] == c["branches"] and c["missed"] == [] for c in pair["coverage"].values())
    mutants = report["mutants"]
    assert mutants["total"] >= 5 and mutants["killed"] == mutants["total"], mutants["survivors"]


def test_a_change_after_the_import_is_divergent(tmp_path):
    """Seen only where the module is there: a run that always failed the import missed it."""
    code, report = run(tmp_path, extracted(tmp_path / "after", ("    seed_all(mode=True)\n", "")))
    assert (code, report["verdict"]) == (1, "divergent")
    (pair,) = report["pairs"]
    (first, *_) = pair["divergences"]
    calls = {side: [e[1] for e in first[side]["events"] if e[0] == "call"] for side in ("before", "after")}
    assert f"{MODULE}.seed_all" in calls["before"] and f"{MODULE}.seed_all" not in calls["after"]
