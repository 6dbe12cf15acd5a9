"""equivalence.engine.judge.call_sites: an extraction without a wrapper rewrites every call site,
and the runs execute the first one only; the others are compared with the old ones statically
(0.5.18's ServerArgs._handle_mamba_radix_cache, called twice: its second call's arguments could
be swapped unseen)."""

from __future__ import annotations

import json
import textwrap

import pytest

from equivalence.cli import main
from pysource.extraction import locate
from equivalence.engine.judge.static_check import static_check
from tests.engine_examples import write_tree

RUNNER = "sglang/srt/runner.py"
TARGET = "sglang/srt/binding.py"

BEFORE = {RUNNER: """\
    class Runner:
        def __init__(self, tp, flag):
            self.tp = tp
            if flag:
                self.a = self.bind(tp)
            b = self.bind(n=2)
            self.b = b + 1

        def bind(self, n, scale=1):
            return (self.tp - n) * scale
    """}

AFTER = {RUNNER: """\
    from sglang.srt import binding


    class Runner:
        def __init__(self, tp, flag):
            self.tp = tp
            if flag:
                self.a = binding.bind(self.tp, tp)
            b = binding.bind(self.tp, 2)
            self.b = b + 1
    """, TARGET: """\
    def bind(tp, n, scale=1):
        return (tp - n) * scale
    """}

SECOND = "b = binding.bind(self.tp, 2)\n        self.b = b + 1"


def _trees(tmp_path, second: str):
    after = dict(AFTER)
    text = textwrap.dedent(after[RUNNER])
    assert SECOND in text
    after[RUNNER] = text.replace(SECOND, second)
    return write_tree(tmp_path / "before", BEFORE), write_tree(tmp_path / "after", after)


def _check(tmp_path, second: str = SECOND):
    before, after = _trees(tmp_path, second)
    return static_check(locate(before, RUNNER, "Runner", "bind"), locate(after, RUNNER, "Runner", "bind"))


def test_every_call_site_rewritten_alike_leaves_no_residual(tmp_path):
    assert _check(tmp_path).residuals == []


@pytest.mark.parametrize("second, why", [
    ("b = binding.bind(2, self.tp)\n        self.b = b + 1",
     "passes tp otherwise than the first call site (sglang/srt/runner.py:8)"),
    ("b = binding.bind(self.tp, 3)\n        self.b = b + 1", "passes n otherwise than the call it replaces"),
    ("b = binding.bind(self.tp, 2, 1)\n        self.b = b + 1", ""),  # the default spelled out
    ("b = binding.bind(self.tp, 2, 3)\n        self.b = b + 1", "passes scale otherwise than the call it replaces"),
    ("b = binding.bind(self.tp, 2)\n        self.b = b - 1",  # a statement reading the local it bound
     "its statements changed otherwise than the first call site's (sglang/srt/runner.py:8)"),
    ("self.b = 1", "__init__ calls it 2 time(s) before, 1 after"),
], ids=["inferred-swapped", "own-changed", "default-spelled", "default-changed", "statement-changed", "dropped"])
def test_a_call_site_rewritten_otherwise_is_a_residual(tmp_path, second, why):
    residuals = _check(tmp_path, second).residuals
    assert [r.note.partition(": ")[2] for r in residuals if r.kind == "call-site"] == ([why] if why else [])


@pytest.mark.parametrize("second, verdict, killed", [(SECOND, "equivalent", 7),
                                                     ("b = binding.bind(2, self.tp)\n        self.b = b + 1", "inconclusive", 6)],
                         ids=["faithful", "swapped"])
def test_the_check_never_calls_a_call_site_it_did_not_run_equivalent_unseen(tmp_path, second, verdict, killed):
    """The runs execute the first call only: the static comparison tells the second one apart (the
    swapped version was equivalent, the mutants of L9-L10 surviving); the mutant that swaps it
    back survives, rightly."""
    before, after = _trees(tmp_path, second)
    main(["--method", "Runner.bind", str(before), str(after), "--mutants", "--json", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    assert (report["verdict"], report["mutants"]["killed"], report["mutants"]["total"]) == (verdict, killed, 7)
    untold = report["pairs"][0].get("untold_residuals", [])
    assert [(r["line"], r["kind"]) for r in untold] == ([("L9", "call-site")] if verdict == "inconclusive" else [])


def test_a_returned_value_the_old_call_assigned_too_is_no_result(tmp_path):
    """`details["kind"] = self.kind_of()`, the method ending in `return kind`: the function returns
    the value as the method did, the caller assigns it as before; nothing the function returns is
    a result written back (0.5.12's SchedulerOutputProcessorMixin._get_storage_backend_type: three
    mapping mismatches of `details["storage_backend"] = "none"` left the check inconclusive)."""
    body = 'kind = "none"\nif {cache} is not None:\n    kind = type({cache}).__name__\nreturn kind\n'
    before = write_tree(tmp_path / "before", {RUNNER: (
        "class Runner:\n    def details(self):\n        details = {}\n        details['kind'] = self.kind_of()\n"
        "        return details\n\n    def kind_of(self):\n" + textwrap.indent(body.format(cache="self.cache"), " " * 8))})
    after = write_tree(tmp_path / "after", {RUNNER: (
        "from sglang.srt import binding\n\n\nclass Runner:\n    def details(self):\n        details = {}\n"
        "        details['kind'] = binding.kind_of(self.cache)\n        return details\n"),
        TARGET: "def kind_of(cache):\n" + textwrap.indent(body.format(cache="cache"), " " * 4)})
    report = static_check(locate(before, RUNNER, "Runner", "kind_of"), locate(after, RUNNER, "Runner", "kind_of"))
    assert report.residuals == [] and report.dropped_return == ""
    assert [(e.name, e.kind) for e in report.map] == [("cache", "parameter")]
