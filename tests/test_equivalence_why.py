"""Why the proof did not run a branch or a function, said by one mechanism (equivalence.engine.run.why)
for the method check and the component check alike.

On `fixtures/components/draft_table` (a runner whose draft-table setup calls real torch with a
memory format, which the world can only give as a stand-in or None, both of which torch rejects), the component proof
of codemods.extract_component's output runs 4/12 branches per version; the report must say, in
the terminal, JSON and Markdown, that nothing past the `torch.zeros(...)` call ran, naming that
file:line and the exception, and stay inconclusive. A helper no call reaches leaves the pair
"could not run", with why. Should the world one day give the device a value torch takes, the
fixture no longer shows this: give it another call the world cannot satisfy (it was the device
until the world offered torch's devices in component checks, 2026-12-06)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_component import ComponentSpec, refactor, write_plan
from equivalence.engine.run.coverage import BranchTracer

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "components" / "draft_table"
RUNNER = "sglang/srt/model_executor/model_runner.py"
COMPONENT = "sglang/srt/model_executor/model_runner_components/draft_table.py"
DEVICE = "TypeError: contiguous(): argument 'memory_format' must be torch.memory_format, not StandIn"
SPEC = ComponentSpec(class_name="ModelRunner",
                     target="sglang.srt.model_executor.model_runner_components.draft_table.DraftTableManager",
                     methods=("maybe_init_draft_table", "update_draft_table"), attr="draft_tables",
                     pass_owner="model_runner", keep_wrappers=True)
HELPER = ('''        for layer in self.model.layers():
            if isinstance(layer, DraftTableLayer):
                layer.bind(self.draft_table, width)
        logger.info(f"draft table of width {width} on {self.device}")
''', '''        self._bind_layers(DraftTableLayer, width)

    def _bind_layers(self, kind, width):
        for layer in self.model.layers():
            if isinstance(layer, kind):
                layer.bind(self.draft_table, width)
        logger.info(f"draft table of width {width} on {self.device}")
''')


def _pair(tmp: Path, edit: tuple[str, str] | None = None) -> tuple[Path, Path]:
    before, after = tmp / "before", tmp / "after"
    shutil.copytree(FIXTURE, before)
    if edit is not None:
        runner = before / RUNNER
        text = runner.read_text()
        assert text.count(edit[0]) == 1
        runner.write_text(text.replace(*edit))
    shutil.copytree(before, after)
    write_plan(refactor(after, SPEC))
    return before, after


def _check(tmp: Path, before: Path, after: Path) -> tuple[int, dict, str, str]:
    run = subprocess.run([sys.executable, "-m", "equivalence", "--component", "ModelRunner.draft_tables", str(before),
                          str(after), "--json", str(tmp / "r.json"), "--markdown", str(tmp / "r.md")],
                         capture_output=True, text=True, cwd=REPO)
    assert (tmp / "r.json").exists(), run.stderr
    return run.returncode, json.loads((tmp / "r.json").read_text()), (tmp / "r.md").read_text(), run.stdout


def _line_of(path: Path, text: str) -> int:
    (line,) = [i for i, s in enumerate(path.read_text().splitlines(), 1) if text in s]
    return line


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("why")
    before, after = _pair(tmp)
    return (before, after, *_check(tmp, before, after))


def test_branches_past_a_torch_call_on_a_stand_in_say_why_in_every_format(checked):
    before, after, code, report, md, out = checked
    assert (code, report["verdict"]) == (2, "inconclusive")
    (pair,) = report["pairs"]
    assert pair["divergences"] == [] and "could_not_run" not in pair
    files = {"before": before / RUNNER, "after": after / COMPONENT}
    zeros = {side: f"{path}:{_line_of(path, 'torch.zeros(')}" for side, path in files.items()}
    where = {side: f"{path}:{_line_of(path, '.contiguous(')}" for side, path in files.items()}
    for side, cov in pair["coverage"].items():
        assert (cov["hit"], cov["branches"]) == (4, 12), cov
        (group,) = cov["why_missed"]  # one reason for every branch missed
        assert group["branches"] == cov["missed"]
        why = group["why"]
        assert why.startswith("never reached: "), why
        # the place most calls stopped at comes first: the line, the expression, file:line, the exceptions
        first = why.split("; ")[0]
        assert "`torch.zeros(" in first and f"({zeros[side]})" in first and "raising TypeError" in first, why
        # and the call no value of the world's passes, with its place and its exception
        assert f"({where[side]}), raising {DEVICE}" in why, why
        assert "returned without reaching it" in why
        # the terminal and the Markdown say it as the JSON does (a Markdown line stops at 1,000 characters)
        assert why in out and (why in md or (len(why) > 900 and why[:600] in md and "more characters" in md))
    assert out.count("why not hit: never reached: ") == 2 and md.count("  - why not hit: never reached: ") == 2


def test_a_function_no_call_reaches_could_not_run_with_why(tmp_path):
    """The for loop moved into a helper `_bind_layers` (moved along with the methods): no call
    reaches it in either version, so nothing of it is proven: could not run, saying why."""
    before, after = _pair(tmp_path, HELPER)
    code, report, md, out = _check(tmp_path, before, after)
    assert (code, report["verdict"]) == (2, "could not run")
    (pair,) = report["pairs"]
    reason = pair["could_not_run"]
    for label, unit, path in ((before, "method _bind_layers", before / RUNNER),
                              (after, "component _bind_layers", after / COMPONENT)):
        assert f"{label}: no configuration called the {unit}; the first configuration raised before it: " \
               f"TypeError: zeros()" in reason, reason
        assert f"{path}:{_line_of(path, 'torch.zeros(')}" in reason, reason
    assert f"### Could not run: {before} → {after}" in md and reason in md and f"could not run: {reason}" in out
    for cov in pair["coverage"].values():
        helper = [g for g in cov["why_missed"] if "_bind_layers" in g["branches"][0]]
        assert [g["why"] for g in helper] == [f"the {helper[0]['branches'][0].split(' line ')[0]} was never called"]


def _traced(source: str, *calls) -> BranchTracer:
    tree = ast.parse(source)
    namespace: dict = {}
    exec(compile(tree, "why.py", "exec"), namespace)
    tracer = BranchTracer({namespace["f"].__code__: tree.body[-1]}, {namespace["f"].__code__: "function"})
    with tracer:
        for args in calls:
            try:
                namespace["f"](*args)
            except Exception:  # noqa: BLE001 - the calls that stop are what is measured
                pass
    return tracer


def test_the_tracer_says_where_calls_stopped_and_what_a_test_did():
    """Never reached: the calls that stopped before the test, grouped by place, the commonest
    first, with the expression, where and the exception; and those that returned. A test that
    ran but never went one way: how often it ran, and what it raised there."""
    source = ('def f(x, y):\n'
              '    if y is None:\n        return 0\n'
              '    n = int(x)\n'
              '    if n > y:\n        return 1\n'
              '    return 2\n')
    cov = _traced(source, ("a", 1), ("b", 1), (None, 1), ("1", None), ("0", 5), ("1", "s")).coverage()
    why = {b: g["why"] for g in cov.to_json()["why_missed"] for b in g["branches"]}
    assert set(why) == {"function line 5: if true"}
    assert why["function line 5: if true"] == (
        "`n > y` was evaluated in 2 call(s) but never led this way; it raised in 1 of them: 1 at line 5 `n > y` (why.py:5), "
        "raising TypeError: '>' not supported between instances of 'int' and 'str'")
    cov = _traced(source, ("a", 1), ("b", 1), (None, 1), ("1", None)).coverage()
    why = {b: g["why"] for g in cov.to_json()["why_missed"] for b in g["branches"]}
    assert why["function line 5: if true"] == why["function line 5: if false (skips body)"] == (
        "never reached: 3 of the 4 call(s) of the function raised before it: 3 at line 4 `int(x)` (why.py:4), raising "
        "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType' (1) or "
        "ValueError: invalid literal for int() with base 10: 'a' (1) or ValueError: invalid literal for int() with base "
        "10: 'b' (1); the other 1 returned without reaching it")


def test_an_exception_message_names_a_traced_value_by_its_plain_type():
    # one version compares the world's traced str where the other compares a literal: the same
    # TypeError, whose message must not tell the harness's classes apart
    from equivalence.engine.run.why import exception_text
    from equivalence.engine.world.standins import TracedStr

    def compare(value):
        try:
            return sorted([value, None])
        except TypeError as e:
            return exception_text(e)

    traced = TracedStr("x", "self.name", None)  # no world running: nothing asked of it
    assert type(traced).__name__ == "TracedStr"
    assert compare(traced) == compare("x") == ("TypeError", "'<' not supported between instances of 'NoneType' and 'str'")
