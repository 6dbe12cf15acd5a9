"""A module-level call that rejects a stub while the version is imported (0.5.23's
tokenizer_manager.py: `asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())`, uvloop missing)
is left out of the import, and the report says so: it binds no name, so the class can still be
checked; every other failure still means "could not run"."""

from __future__ import annotations

import json
import textwrap

import pytest

from equivalence.cli import main
from tests.engine_examples import write_tree

RUNNER = "sglang/srt/runner.py"

MODULE = textwrap.dedent("""\
    import logging

    import missing_policy_pkg

    logging.getLogger(__name__).setLevel(missing_policy_pkg.LEVEL)
    {extra}

    class Runner:{method}
        def run(self):
            self.x = {call}
    """)

METHOD = """
    def bind(self, n):
        return (self.tp, n)
"""


def _run(tmp_path, extra: str = ""):
    before = write_tree(tmp_path / "before", {RUNNER: MODULE.format(extra=extra, call="self.bind(1)", method=METHOD)})
    after = write_tree(tmp_path / "after", {
        RUNNER: "from sglang.srt import binding\n" + MODULE.format(extra=extra, call="binding.bind(self.tp, 1)", method=""),
        "sglang/srt/binding.py": "def bind(tp, n):\n    return (tp, n)\n"})
    out = tmp_path / "r.json"
    code = main(["--method", "Runner.bind", str(before), str(after), "--json", str(out)])
    return code, json.loads(out.read_text())


def test_a_call_rejecting_a_stub_is_left_out_and_said(tmp_path):
    code, report = _run(tmp_path)
    assert (code, report["verdict"]) == (0, "equivalent")
    left_out = report["pairs"][0]["imported_without"]
    assert [line.rpartition("/")[2] for line in left_out[str(tmp_path / "before")]] == [
        "runner.py:5: TypeError: Level not an integer or a valid string: <stub missing_policy_pkg.LEVEL>"]
    assert left_out[str(tmp_path / "after")][0].startswith(str(tmp_path / "after" / RUNNER) + ":6: ")


@pytest.mark.parametrize("extra", ['raise RuntimeError("no runner here")', "LEVEL = int(missing_policy_pkg.x) + {}"],
                         ids=["raise", "binding"])
def test_any_other_import_failure_still_could_not_run(tmp_path, extra):
    code, report = _run(tmp_path, extra)
    assert (code, report["verdict"]) == (2, "could not run")
