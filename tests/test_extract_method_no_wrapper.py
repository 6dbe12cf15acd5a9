"""extract_method --no-wrapper (no method left: the call sites call the function) and --positional
(the function's parameters positional-or-keyword, passed by position), on the --pass-self fixture
(with --narrow too: test_extract_method_narrow_positional)."""

from __future__ import annotations

import ast
import shutil
from dataclasses import replace

import pytest

from codemods.core.errors import Refusal
from codemods.extract_method import AlreadyApplied, refactor, write_plan
from tests.method_expected import TREES, spec

RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/model_executor/runner_parts/attention_setup.py"


def _tree(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_pass_self", root)
    return root


def _function(root) -> ast.FunctionDef:
    return next(s for s in ast.parse((root / TARGET).read_text()).body
                if isinstance(s, ast.FunctionDef) and s.name == "make_backend")


def _owner(root) -> ast.ClassDef:
    return next(s for s in ast.parse((root / RUNNER).read_text()).body if isinstance(s, ast.ClassDef))


def test_no_wrapper_positional_leaves_no_method_and_calls_by_position(tmp_path):
    root = _tree(tmp_path)
    plan = refactor(root, replace(spec("method_pass_self"), no_wrapper=True, positional=True))
    assert plan.steps[2].subject == ("Call attention_setup.make_backend where ModelRunner.make_backend was called, "
                                     "with make_backend positional-or-keyword parameters")
    write_plan(plan)
    owner = _owner(root)
    assert "make_backend" not in {s.name for s in owner.body if isinstance(s, ast.FunctionDef)}
    init = ast.unparse(owner.body[1])
    assert "attention_setup.make_backend(self, init_new_workspace=True)" in init
    fn = _function(root)
    assert [a.arg for a in fn.args.args] == ["model_runner", "init_new_workspace"] and not fn.args.kwonlyargs
    with pytest.raises(AlreadyApplied):
        refactor(root, replace(spec("method_pass_self"), no_wrapper=True, positional=True))


def test_no_wrapper_alone_keeps_keywords_and_runs_step_by_step(tmp_path):
    root = _tree(tmp_path)
    wanted = replace(spec("method_pass_self"), no_wrapper=True)
    for step in (1, 2, 3, 4):
        write_plan(refactor(root, wanted, range(step, step + 1)))
    call = next(n for n in ast.walk(_owner(root)) if isinstance(n, ast.Call) and ast.unparse(n.func) ==
                "attention_setup.make_backend")
    assert not call.args and {k.arg: ast.unparse(k.value) for k in call.keywords} == {
        "model_runner": "self", "init_new_workspace": "True"}
    assert [a.arg for a in _function(root).args.kwonlyargs] == ["model_runner", "init_new_workspace"]
    with pytest.raises(AlreadyApplied):
        refactor(root, wanted)


def test_positional_with_a_wrapper(tmp_path):
    root = _tree(tmp_path)
    write_plan(refactor(root, replace(spec("method_pass_self"), positional=True)))
    wrapper = next(s for s in _owner(root).body if isinstance(s, ast.FunctionDef) and s.name == "make_backend")
    assert "attention_setup.make_backend(self, init_new_workspace=init_new_workspace)" in ast.unparse(wrapper)
    assert not _function(root).args.kwonlyargs


def test_positional_with_no_call_left_in_the_class_only_changes_the_signature(tmp_path):
    """A method no code of the class calls (called from other files, or not at all): its
    parameters become positional-or-keyword all the same, and the report says nothing in the
    class passes them by position (0.5.18 `ServerArgs._validate_hisparse_dsa_backend`)."""
    root = _tree(tmp_path)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace("self.attn_backend = self.make_backend(init_new_workspace=True)",
                                                 "self.attn_backend = None"))
    plan = refactor(root, replace(spec("method_pass_self"), no_wrapper=True, positional=True))
    assert any("no call in ModelRunner to pass model_runner by position" in m
               for m in plan.messages), plan.messages
    write_plan(plan)
    assert [a.arg for a in _function(root).args.args] == ["model_runner", "init_new_workspace"]
    assert "make_backend" not in {s.name for s in _owner(root).body if isinstance(s, ast.FunctionDef)}


def test_positional_reports_the_calls_it_changed(tmp_path):
    plan = refactor(_tree(tmp_path), replace(spec("method_pass_self"), no_wrapper=True, positional=True))
    assert any("1 call(s) in ModelRunner pass model_runner by position" in m
               for m in plan.messages), plan.messages


def test_no_wrapper_on_a_tree_with_the_wrapper_is_refused_not_already_applied(tmp_path):
    """The extraction with a wrapper is there (our step 3, or upstream's hand: 0.5.18
    `ServerArgs._handle_pd_disaggregation`): --no-wrapper is not applied, and no step goes on from
    a wrapper, so the run refuses at the wrapper, names what to do, and writes nothing."""
    root = _tree(tmp_path)
    write_plan(refactor(root, spec("method_pass_self")))
    text = (root / RUNNER).read_text()
    with pytest.raises(Refusal) as refused:
        refactor(root, replace(spec("method_pass_self"), no_wrapper=True))
    assert "ModelRunner.make_backend is already a wrapper of" in refused.value.why
    assert "run without --no-wrapper" in refused.value.why
    assert refused.value.line == next(i for i, l in enumerate(text.splitlines(), 1) if "def make_backend" in l)
    assert (root / RUNNER).read_text() == text
    with pytest.raises(AlreadyApplied):
        refactor(root, spec("method_pass_self"))
