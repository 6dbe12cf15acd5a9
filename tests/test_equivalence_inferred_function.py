"""`equivalence --method` without `--name` on an extraction that renamed the function and passes
its parameters by position (`extract_method --name ... --positional`): the wrapper's call names
the function, and the proof follows it (it took the wrapper for the method's own logic, and
called the pair divergent: 0.5.18 `ServerArgs._handle_dcp_validation` ->
`parallel_hook.handle_dcp_validation(self)`)."""

from __future__ import annotations

import json
import textwrap
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


def test_a_call_nested_in_another_calls_arguments_is_no_wrapper(tmp_path):
    """0.5.19 `init_kv_cache_configurator`: the method builds an object, one argument of which is a
    keyword-only call into another module. That call is the method's own logic, not a wrapper's
    (taken for one, the proof ran the helper against the method and called it divergent); a
    statement making such a call is a wrapper."""
    from pysource.extraction import locate

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "checks.py").write_text("def is_active(*, flags):\n    return bool(flags)\n")
    (pkg / "runner.py").write_text(textwrap.dedent("""\
        from pkg.checks import is_active


        class Config:
            def __init__(self, size, active):
                self.size, self.active = size, active


        class Runner:
            def init_config(self):
                self.config = Config(size=self.size, active=is_active(flags=self.flags))

            def check(self):
                return is_active(flags=self.flags)
        """))
    assert locate(tmp_path, "pkg/runner.py", "Runner", "init_config").shape == "method"
    wrapper = locate(tmp_path, "pkg/runner.py", "Runner", "check")
    assert (wrapper.shape, wrapper.function_name) == ("wrapper", "is_active")
