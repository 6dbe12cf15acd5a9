"""`equivalence --method` without `--name` on an extraction that renamed the function and passes
its parameters by position (`extract_method --name ... --positional`): the wrapper's call names
the function, and the proof follows it (it took the wrapper for the method's own logic, and
called the pair divergent: 0.5.18 `ServerArgs._handle_dcp_validation` ->
`parallel_hook.handle_dcp_validation(self)`)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

from codemods.extract_method import refactor, write_plan
from equivalence.cli import main
from tests.method_expected import TREES, spec


def test_a_renamed_positional_function_is_followed_from_its_wrapper(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    shutil.copytree(TREES / "method_pass_self", before)
    shutil.copytree(TREES / "method_pass_self", after)
    write_plan(refactor(after, replace(spec("method_pass_self"), positional=True, function_name="build_backend")))
    assert "attention_setup.build_backend(" in (after / "sglang/srt/model_executor/model_runner.py").read_text()
    out = tmp_path / "r.json"
    assert main(["--method", "ModelRunner.make_backend", str(before), str(after), "--json", str(out)]) == 0
    pair = json.loads(out.read_text())["pairs"][0]
    assert not pair["divergences"] and all(c["hit"] == c["branches"] for c in pair["coverage"].values())
