"""`--narrow` where an attribute of the narrowed parameter spells the new name, with a wrapper and
without one (`--no-wrapper`: every caller of the function passes the narrowed attributes), on our
fixture `method_narrow` (the shape of 0.5.15.post1 `ModelRunner.prealloc_symmetric_memory_pool`)."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from codemods.core.errors import Refusal
from codemods.core.formatting import Style
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan
from codemods.extract_method.recipe import Narrow, Recipe
from codemods.extract_method.steps.narrow_param import narrow_function, narrowed_call

TREE = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "method_narrow"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/memory/pool_alloc.py"
NARROWS = ("server_args.enable_pool=enable_pool", "server_args.pool_blocks=pool_blocks")
SPEC = MethodSpec(class_name="ModelRunner", method_name="reserve_pool", target_module="sglang.srt.memory.pool_alloc",
                  narrows=NARROWS)
NO_WRAPPER = MethodSpec(**{**SPEC.__dict__, "no_wrapper": True})

# Every path of reserve_pool, through both callers: what it reserves and logs.
BEHAVIOUR = """
import itertools, json, logging
from sglang.srt.memory import pool_alloc
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.server_args import ServerArgs
logged = []
logging.basicConfig(level=logging.INFO)
logging.getLogger().addHandler(type("H", (logging.Handler,), {"emit": lambda s, r: logged.append(r.getMessage())})())
out = []
for draft, enable, blocks, device in itertools.product((False, True), (False, True), (-1, 0, 3), ("cpu", "cuda", "meta")):
    pool_alloc.RESERVED.clear()
    r = ModelRunner(ServerArgs(enable_pool=enable, pool_blocks=blocks), device, is_draft_worker=draft)
    out.append([list(pool_alloc.RESERVED), r.reset(), list(pool_alloc.RESERVED)])
print(json.dumps([out, logged]))
"""


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    shutil.copytree(TREE, root)
    return root


def _behaviour(root: Path) -> list:
    done = subprocess.run([sys.executable, "-c", BEHAVIOUR], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _function(root: Path) -> ast.FunctionDef:
    return next(s for s in ast.parse((root / TARGET).read_text()).body
                if isinstance(s, ast.FunctionDef) and s.name == "reserve_pool")


def _calls(root: Path) -> list[str]:
    return [ast.unparse(n) for n in ast.walk(ast.parse((root / RUNNER).read_text()))
            if isinstance(n, ast.Call) and ast.unparse(n.func) == "pool_alloc.reserve_pool"]


def test_an_attribute_spelling_the_new_name_is_no_clash(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    plan = refactor(root, SPEC)
    assert plan.steps[3].subject.startswith("Pass enable_pool, pool_blocks instead of server_args to reserve_pool")
    write_plan(plan)
    assert [a.arg for a in _function(root).args.kwonlyargs] == ["is_draft_worker", "enable_pool", "pool_blocks",
                                                                "device"]
    assert _calls(root) == ["pool_alloc.reserve_pool(is_draft_worker=self.is_draft_worker, enable_pool=self."
                            "server_args.enable_pool, pool_blocks=self.server_args.pool_blocks, device=self.device)"]
    assert _behaviour(root) == before


def test_without_a_wrapper_each_caller_passes_the_attributes(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    plan = refactor(root, NO_WRAPPER)
    assert "step 4: 2 call(s) in ModelRunner pass enable_pool, pool_blocks" in plan.messages
    write_plan(plan)
    owner = next(s for s in ast.parse((root / RUNNER).read_text()).body if isinstance(s, ast.ClassDef))
    assert "reserve_pool" not in {s.name for s in owner.body if isinstance(s, ast.FunctionDef)}
    assert _calls(root) == 2 * ["pool_alloc.reserve_pool(is_draft_worker=self.is_draft_worker, enable_pool=self."
                                "server_args.enable_pool, pool_blocks=self.server_args.pool_blocks, "
                                "device=self.device)"]
    assert "server_args" not in ast.unparse(_function(root))
    assert ast.unparse(_function(root).args) == "*, is_draft_worker: bool, enable_pool: bool, pool_blocks: int, " \
                                                "device: str"  # the types ServerArgs declares (A = Annotated)
    assert _behaviour(root) == before
    with pytest.raises(AlreadyApplied):
        refactor(root, NO_WRAPPER)


def test_without_a_wrapper_step_by_step_gives_the_same_tree(tmp_path):
    whole, split = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    write_plan(refactor(whole, NO_WRAPPER))
    for step in (1, 2, 3, 4):
        write_plan(refactor(split, NO_WRAPPER, range(step, step + 1)))
    for rel in (RUNNER, TARGET):
        assert (split / rel).read_text() == (whole / rel).read_text()


CALLER = '''"""A caller of ModelRunner.reserve_pool outside the class."""

from __future__ import annotations

from sglang.srt.model_executor.model_runner import ModelRunner


class TpWorker:
    def __init__(self, model_runner: ModelRunner):
        self.model_runner = model_runner

    def refresh(self) -> None:
        self.model_runner.reserve_pool()
'''


def test_without_a_wrapper_calls_in_other_files_pass_the_attributes(tmp_path):
    """--pass-self: step 3 rewrote a typed caller in another file; step 4 narrows it too, also in
    a run that starts at step 4."""
    for split in (False, True):
        root = _tree(tmp_path / str(split))
        (root / "sglang/srt/managers").mkdir()
        (root / "sglang/srt/managers/tp_worker.py").write_text(CALLER)
        spec = MethodSpec(class_name="ModelRunner", method_name="reserve_pool", pass_self="model_runner",
                          target_module="sglang.srt.memory.pool_alloc", no_wrapper=True,
                          narrows=("model_runner.is_draft_worker=is_draft_worker",
                                   "model_runner.server_args=server_args", "model_runner.device=device"))
        if split:
            write_plan(refactor(root, spec, range(1, 4)))
            plan = refactor(root, spec, range(4, 5))
        else:
            plan = refactor(root, spec)
        assert "step 4: 2 call(s) in ModelRunner and 1 in 1 other file(s) pass is_draft_worker, server_args, " \
               "device" in plan.messages
        write_plan(plan)
        text = (root / "sglang/srt/managers/tp_worker.py").read_text()
        assert "pool_alloc.reserve_pool(\n            is_draft_worker=self.model_runner.is_draft_worker,\n" \
               "            server_args=self.model_runner.server_args,\n" \
               "            device=self.model_runner.device,\n        )" in text
        assert [a.arg for a in _function(root).args.kwonlyargs] == ["is_draft_worker", "server_args", "device"]


def test_a_bare_name_spelling_the_new_name_is_still_a_clash(tmp_path):
    root = _tree(tmp_path)
    path = root / RUNNER
    path.write_text(path.read_text().replace("        size = self.server_args.pool_blocks",
                                             "        enable_pool = 1\n        size = self.server_args.pool_blocks"))
    with pytest.raises(Refusal) as exc:
        refactor(root, NO_WRAPPER)
    assert "reserve_pool already uses the name enable_pool" in exc.value.why
    assert exc.value.path.name == "pool_alloc.py" and exc.value.line is not None


def test_a_call_elsewhere_in_the_module_is_refused(tmp_path):
    root = _tree(tmp_path)
    path = root / RUNNER
    path.write_text(path.read_text() + "\n\ndef _boot(r: ModelRunner):\n    return r.reset()\n\n"
                                       "# pool_alloc.reserve_pool is called by the class only\n")
    with pytest.raises(Refusal) as exc:
        refactor(root, NO_WRAPPER)
    assert "spelled outside ModelRunner's calls" in exc.value.why and exc.value.path.name == "model_runner.py"


def _recipe(*narrows: Narrow) -> Recipe:
    return Recipe("ModelRunner", "reserve_pool", RUNNER, "sglang.srt.memory.pool_alloc", narrows=narrows)


def test_a_value_narrowed_twice_must_be_a_chain_of_names():
    recipe = _recipe(Narrow("model_runner", "device", "device"), Narrow("model_runner", "server_args", "server_args"))
    call = cst.parse_expression("pool_alloc.reserve_pool(model_runner=make_runner())")
    with pytest.raises(Refusal, match="would be evaluated once each"):
        narrowed_call(call, recipe, Path("x.py"), 3, "the call")
    call = cst.parse_expression("pool_alloc.reserve_pool(model_runner=self.runner)")
    assert cst.Module([]).code_for_node(narrowed_call(call, recipe, Path("x.py"), 3, "the call")) == \
        "pool_alloc.reserve_pool(device=self.runner.device, server_args=self.runner.server_args)"
    one = _recipe(Narrow("model_runner", "device", "device"))
    call = cst.parse_expression("pool_alloc.reserve_pool(model_runner=make_runner())")
    assert cst.Module([]).code_for_node(narrowed_call(call, one, Path("x.py"), 3, "the call")) == \
        "pool_alloc.reserve_pool(device=make_runner().device)"


def test_the_clash_check_reads_names_not_attribute_or_keyword_text():
    recipe = _recipe(Narrow("server_args", "enable_pool", "enable_pool"))
    code = ("def reserve_pool(*, server_args):\n    x = f(enable_pool=server_args.enable_pool)\n"
            "    return x.enable_pool\n")
    out = narrow_function(code, Path("pool_alloc.py"), recipe, Style(enabled=False))
    assert "def reserve_pool(*, enable_pool):" in out and "f(enable_pool=enable_pool)" in out
    with pytest.raises(Refusal, match="already uses the name enable_pool") as exc:
        narrow_function(code.replace("return x.enable_pool", "return enable_pool"), Path("pool_alloc.py"), recipe,
                        Style(enabled=False))
    assert exc.value.line == 3
