"""The codemod on our fixture shapes: exact output per step, idempotency, split runs, comments."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tokenize
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from codemods.extract_kv_dtype import AlreadyApplied, NoSuchMethod, refactor, write_plan
from tests.codemod_expected import RUNNER, SHAPES, TARGET, TREES, expected_files
from tests.wrapper_position import assert_equivalent, assert_same_but_wrapper_position

STEPS = (1, 2, 3, 4)
# Where the wrapper goes when step 3 runs without step 2 (a rule, see leave_wrapper), and where
# the method sat in every fixture (so where a run doing steps 2 and 3 together puts it).
FULL_AFTER = {"instance_log": "get_loader", "server_args_write_log": "get_loader",
              "server_args_write": "get_loader", "record_call": "_record_kv_cache_dtype",
              "record_dflash": "_record_kv_cache_dtype"}
SPLIT_AFTER = {"instance_log": "load_model", "server_args_write_log": "load_model",
               "server_args_write": "load_model", "record_call": "_record_kv_cache_dtype",
               "record_dflash": "_record_kv_cache_dtype"}


def tree(tmp_path: Path, shape: str) -> Path:
    dest = tmp_path / shape
    shutil.copytree(TREES / shape, dest)
    return dest


def texts(root: Path) -> dict[str, str]:
    return {rel: (root / rel).read_text() for rel in (RUNNER, TARGET) if (root / rel).exists()}


def comments(text: str) -> Counter:
    toks = tokenize.generate_tokens(io.StringIO(text).readline)
    return Counter(t.string for t in toks if t.type == tokenize.COMMENT)


@pytest.mark.parametrize("step", STEPS, ids=[f"step{n}" for n in STEPS])
@pytest.mark.parametrize("shape", SHAPES)
def test_each_step_gives_the_reviewed_output(tmp_path, shape, step):
    root = tree(tmp_path, shape)
    if step > 1:  # start from the reviewed output of the previous step
        for rel, text in expected_files(shape, step - 1).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    plan = refactor(root, range(step, step + 1))
    write_plan(plan)
    expected = expected_files(shape, step)
    if step == 3 and SPLIT_AFTER[shape] != FULL_AFTER[shape]:
        # step 3 on its own does not know where step 2 took the method from (see leave_wrapper)
        got = texts(root)
        assert got[TARGET] == expected[TARGET]
        assert_same_but_wrapper_position(got[RUNNER], expected[RUNNER], SPLIT_AFTER[shape], FULL_AFTER[shape])
    else:
        assert texts(root) == expected
    for text in texts(root).values():
        cst.parse_module(text)


@pytest.mark.parametrize("shape", SHAPES)
def test_step_2_cuts_the_method_and_calls_the_module_function(shape):
    runner = expected_files(shape, 2)[RUNNER]
    assert "def configure_kv_cache_dtype" not in runner and "staticmethod" not in runner
    assert "self.configure_kv_cache_dtype" not in runner
    assert runner.count("kv_cache_dtype.configure_kv_cache_dtype(") == 1
    assert "from sglang.srt.mem_cache import kv_cache_dtype\n" in runner
    step3 = expected_files(shape, 3)[RUNNER]
    assert step3.count("self.configure_kv_cache_dtype()") == 1
    assert step3.count("    def configure_kv_cache_dtype(self):\n") == 1


@pytest.mark.parametrize("shape", SHAPES)
def test_step_3_alone_says_where_the_wrapper_went(tmp_path, shape):
    root = tree(tmp_path, shape)
    write_plan(refactor(root, range(1, 3)))
    plan = refactor(root, range(3, 4))
    why = "" if SPLIT_AFTER[shape] == "_record_kv_cache_dtype" else ", which holds the call site"
    assert any(msg.startswith(f"step 3: wrapper ModelRunner.configure_kv_cache_dtype placed after "
                              f"ModelRunner.{SPLIT_AFTER[shape]}{why} (line ") for msg in plan.messages), plan.messages
    whole = refactor(tree(tmp_path / "whole", shape), range(1, 4))
    assert "step 3: wrapper ModelRunner.configure_kv_cache_dtype placed where the method was (line " \
        in " ".join(whole.messages)


@pytest.mark.parametrize("shape", SHAPES)
def test_second_run_says_already_applied_and_changes_nothing(tmp_path, shape):
    root = tree(tmp_path, shape)
    write_plan(refactor(root))
    after = texts(root)
    with pytest.raises(AlreadyApplied):
        refactor(root)
    assert texts(root) == after


@pytest.mark.parametrize("split", [(2,), (1, 3), (3,)], ids=["1-2+3-4", "1+2-3+4", "1-3+4"])
@pytest.mark.parametrize("shape", SHAPES)
def test_split_runs_equal_one_run(tmp_path, shape, split):
    whole = tree(tmp_path / "whole", shape)
    write_plan(refactor(whole))
    parts = tree(tmp_path / "parts", shape)
    start = 1
    for end in (*split, 4):
        write_plan(refactor(parts, range(start, end + 1)))
        start = end + 1
    if 2 in split and SPLIT_AFTER[shape] != FULL_AFTER[shape]:  # step 3 ran without step 2
        got, want = texts(parts), texts(whole)
        assert got[TARGET] == want[TARGET]
        assert_same_but_wrapper_position(got[RUNNER], want[RUNNER], SPLIT_AFTER[shape], FULL_AFTER[shape])
        assert_equivalent(whole, parts)
    else:
        assert texts(parts) == texts(whole)


@pytest.mark.parametrize("fmt", [True, False], ids=["format", "no-format"])
@pytest.mark.parametrize("shape", SHAPES)
def test_no_comment_is_lost(tmp_path, shape, fmt):
    root = tree(tmp_path, shape)
    before = sum((comments(t) for t in texts(root).values()), Counter())
    write_plan(refactor(root, format=fmt))
    after = sum((comments(t) for t in texts(root).values()), Counter())
    assert after == before


def test_final_interface_matches_upstream(tmp_path):
    root = tree(tmp_path, "record_dflash")
    write_plan(refactor(root))
    module = cst.parse_module((root / TARGET).read_text())
    (func,) = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    code = cst.Module([]).code_for_node
    assert [p.name.value for p in func.params.kwonly_params] == [
        "server_args_kv_cache_dtype", "model", "model_dtype",
        "is_draft_worker", "is_dflash", "speculative_draft_attention_backend"]
    assert [code(p.annotation.annotation) for p in func.params.kwonly_params] == [
        "str", "nn.Module", "torch.dtype", "bool", "bool", "str"]
    assert code(func.returns.annotation) == "tuple[Optional[str], torch.dtype]"
    assert not func.params.params


def test_no_method_is_reported_and_nothing_changes(tmp_path):
    root = tree(tmp_path, "no_method")
    before = texts(root)
    with pytest.raises(NoSuchMethod):
        refactor(root)
    assert texts(root) == before


def test_no_format_output_parses_and_is_already_applied_after(tmp_path):
    root = tree(tmp_path, "record_dflash")
    write_plan(refactor(root, format=False))
    for text in texts(root).values():
        cst.parse_module(text)
    with pytest.raises(AlreadyApplied):
        refactor(root)


def test_the_codemod_does_not_import_torch(tmp_path):
    root = tree(tmp_path, "record_dflash")
    code = ("import sys; from codemods.extract_kv_dtype import refactor; "
            f"refactor({str(root)!r}); assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)
