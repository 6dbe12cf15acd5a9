"""extract_method on our fixture shapes: exact output per step, idempotence, split runs, comments."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan
from tests.method_expected import EXPECTED, KEEP, SHAPES, TREES, expected_files, spec
from tests.test_codemod_steps import comments

STEPS = (1, 2, 3, 4)


def tree(tmp_path: Path, shape: str) -> Path:
    dest = tmp_path / shape
    shutil.copytree(TREES / shape, dest)
    return dest


def texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.py"))}


def step_files(shape: str, number: int) -> dict[str, str]:
    """The files the reviewed output says step `number` alone changes, with their text after it
    (its folder holds only the marker when the step changes nothing)."""
    folder = EXPECTED / shape / f"step{number}"
    return {p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file() and p.name != KEEP}


@pytest.mark.parametrize("shape", SHAPES)
def test_each_step_gives_the_reviewed_output(tmp_path, shape):
    """Each step changes exactly the files its reviewed folder holds, into exactly their text: a
    step that does nothing, misses a file or writes one more fails (not only the files both hold)."""
    root = tree(tmp_path, shape)
    plan = refactor(root, spec(shape))
    assert [s.number for s in plan.steps] == list(STEPS)
    original = texts(TREES / shape)
    for step in plan.steps:
        before = {**original, **expected_files(shape, step.number - 1)}
        got = {p.relative_to(plan.root).as_posix(): t for p, t in step.changes.items()}
        changed = {rel: t for rel, t in got.items() if t != before.get(rel)}  # a file rewritten as it was: no change
        want = step_files(shape, step.number)
        assert sorted(changed) == sorted(want), f"step {step.number} changes other files than reviewed"
        assert changed == want, f"step {step.number}"
        for text in got.values():
            compile(text, shape, "exec")
    write_plan(plan)
    final = expected_files(shape, 4)
    assert {rel: text for rel, text in texts(root).items() if rel in final} == final


@pytest.mark.parametrize("shape", SHAPES)
def test_running_on_its_own_output_changes_nothing(tmp_path, shape):
    root = tree(tmp_path, shape)
    write_plan(refactor(root, spec(shape)))
    after = texts(root)
    with pytest.raises(AlreadyApplied):
        refactor(root, spec(shape))
    assert texts(root) == after


SPLITS = {"1-2+3-4": (2,), "1+2+3+4": (1, 2, 3), "1-3+4": (3,)}


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("shape", SHAPES)
def test_split_runs_reach_the_same_function(tmp_path, shape, split):
    """Steps run apart: the same module function; the class compiles, calls the method, and a
    further run says already applied (a split run's wrapper and call sites may differ: see
    leave_wrapper)."""
    whole = tree(tmp_path / "whole", shape)
    write_plan(refactor(whole, spec(shape)))
    parts = tree(tmp_path / "parts", shape)
    start = 1
    for end in (*SPLITS[split], 4):
        write_plan(refactor(parts, spec(shape), range(start, end + 1)))
        start = end + 1
    want, got = texts(whole), texts(parts)
    assert set(got) == set(want)
    target = spec(shape).target_module.replace(".", "/") + ".py"
    assert got[target] == want[target]
    for text in got.values():
        compile(text, shape, "exec")
    runner = "sglang/srt/model_executor/model_runner.py"
    method = SHAPES[shape]["method_name"]
    original = (TREES / shape / runner).read_text()
    assert got[runner].count(f"self.{method}(") == original.count(f"self.{method}(")
    assert got[runner].count(f"    def {method}(self") == 1
    with pytest.raises(AlreadyApplied):
        refactor(parts, spec(shape))


@pytest.mark.parametrize("fmt", [True, False], ids=["format", "no-format"])
@pytest.mark.parametrize("shape", SHAPES)
def test_no_comment_is_lost(tmp_path, shape, fmt):
    root = tree(tmp_path, shape)
    before = sum((comments(t) for t in texts(root).values()), Counter())
    write_plan(refactor(root, spec(shape), format=fmt))
    after = sum((comments(t) for t in texts(root).values()), Counter())
    assert after == before
    for text in texts(root).values():
        cst.parse_module(text)
    with pytest.raises(AlreadyApplied):
        refactor(root, spec(shape), format=fmt)


def test_narrow_param_alone_narrows_each_attribute_read(tmp_path):
    root = tree(tmp_path, "method_own_params")
    plan = refactor(root, MethodSpec(class_name="ModelRunner", **{**SHAPES["method_own_params"],
                                                                   "narrows": ("server_args",)}))
    want = refactor(tree(tmp_path / "explicit", "method_own_params"), spec("method_own_params"))
    assert [t for t in plan.changes.values()] == [t for t in want.changes.values()]
    assert plan.steps[3].subject == ("Pass server_args_attention_backend instead of server_args to choose_backend; "
                                     "drop ATTENTION_BACKENDS from model_runner.py: only choose_backend used it")


def test_step_4_alone_with_nothing_to_do_says_so(tmp_path):
    root = tree(tmp_path, "method_pass_self")
    write_plan(refactor(root, spec("method_pass_self"), range(1, 4)))
    before = texts(root)
    plan = refactor(root, spec("method_pass_self"), range(4, 5))
    assert plan.changes == {} and plan.steps[0].subject.startswith("Nothing to narrow or tidy after extracting ModelRunner.")
    with pytest.raises(AlreadyApplied, match="step 4 has nothing left to do"):
        refactor(root, spec("method_pass_self"))
    assert texts(root) == before


TIDY = {  # id: (what the runner gains at its end, whether step 4 still drops get_cpu_ids_by_node)
    "a-comment": ("\n# get_cpu_ids_by_node() is only read by bind_threads.\n", True),
    "a-string": ('\nHELP = "see get_cpu_ids_by_node for the ids"\n', True),
    "an-attribute-of-another-name": ("\n\ndef ids(utils):\n    return utils.get_cpu_ids_by_node()\n", True),
    "an-f-string": ('\n\ndef ids():\n    return f"{get_cpu_ids_by_node()}"\n', False),
    "a-string-annotation": ('\n\ndef ids(f: "Optional[get_cpu_ids_by_node]"):\n    return f\n', False),
    "all": ('\n__all__ = ["ModelRunner", "get_cpu_ids_by_node"]\n', False),
}


@pytest.mark.parametrize("case", TIDY)
def test_the_tidy_counts_only_real_uses(tmp_path, case):
    added, dropped = TIDY[case]
    root = tree(tmp_path, "method_one_result")
    runner = root / "sglang/srt/model_executor/model_runner.py"
    runner.write_text(runner.read_text() + added)
    plan = refactor(root, spec("method_one_result"))
    final = plan.changes[runner]
    imports = [ln for ln in final.splitlines() if ln.startswith("from sglang.srt.utils import")]
    assert ("get_cpu_ids_by_node" not in imports[0]) is dropped, imports
    assert ("Drop get_cpu_ids_by_node" in plan.steps[3].subject) is dropped
    compile(final, "model_runner.py", "exec")


CAPTURER = "sglang/srt/state_capturer/routed.py"
FROM_TARGET = {
    "sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/state_capturer/__init__.py": "",
    "sglang/srt/model_executor/__init__.py": "",
    CAPTURER: ('"""The capturer: the target, which defines what the method imports from it."""\n\n\n'
               "class Capturer:\n    def __init__(self, size):\n        self.size = size\n\n\n"
               "_CURRENT = []\n\n\ndef install(capturer):\n    _CURRENT.append(capturer)\n"),
    "sglang/srt/model_executor/model_runner.py": (
        "from sglang.srt.state_capturer.routed import Capturer, install\n\n\n"
        "class ModelRunner:\n    def __init__(self, size):\n        self.size = size\n        self.init_capturer()\n\n"
        "    def init_capturer(self):\n        install(Capturer(self.size + 1))\n"),
}


@pytest.mark.parametrize("imported", ["Capturer, install", "Capturer as C, install"], ids=["same-name", "alias"])
def test_what_the_class_s_module_imports_from_the_target_is_the_target_s_own(tmp_path, imported):
    """The target defines Capturer and install: the function there uses them as its own globals
    (no import of the module from itself); an alias of them there is refused, naming the line."""
    from codemods.extract_method import Refusal
    from tests.checkouts import write_tree

    files = dict(FROM_TARGET)
    runner = "sglang/srt/model_executor/model_runner.py"
    files[runner] = files[runner].replace("Capturer, install", imported).replace(
        "install(Capturer(", "install(C(" if " as C" in imported else "install(Capturer(")
    root = write_tree(tmp_path / "t", files)
    spec_ = MethodSpec("ModelRunner", "init_capturer", "sglang.srt.state_capturer.routed")
    if " as C" in imported:
        with pytest.raises(Refusal, match=r"routed.py:4: .*reads C, imported by .*model_runner.py:1 from this very module, spelled C for the target's Capturer"):
            refactor(root, spec_, range(1, 5))
        return
    write_plan(refactor(root, spec_, range(1, 5)))
    target = (root / CAPTURER).read_text()
    assert "import" not in target.split('"""')[-1]
    assert target.endswith("def init_capturer(*, size) -> None:\n    install(Capturer(size + 1))\n")
    assert "from sglang.srt.state_capturer import routed\n" in (root / runner).read_text()
