"""`--narrow` with `--positional`: the narrowed values are parameters of the function at the
narrowed parameter's place, positional-or-keyword; the wrapper, or without one (`--no-wrapper`)
every caller, passes them by position in that order where it passed the parameter by position
(by keyword where it passed it by keyword). On our fixture `method_narrow_positional`, and on
the step's functions alone; `equivalence --mutants` proves the outputs."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

from codemods.core.errors import Refusal
from codemods.core.formatting import Style
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan
from codemods.extract_method.recipe import Narrow, Recipe
from codemods.extract_method.steps.narrow_param import narrow_function, narrowed_call

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / "fixtures" / "trees" / "method_narrow_positional"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/memory/pool_alloc.py"
NARROWS = ("server_args.enable_pool=enable_pool", "server_args.pool_blocks=pool_blocks")
SPEC = MethodSpec(class_name="ModelRunner", method_name="pool_size", target_module="sglang.srt.memory.pool_alloc",
                  narrows=NARROWS, positional=True)
NO_WRAPPER = replace(SPEC, no_wrapper=True)

HEAD = '''\
    """A small ModelRunner written for sglang-refactor's tests (`--narrow` with `--positional`).

    `pool_size` reads two attributes of `self.server_args` (narrowed into parameters of their own),
    two other attributes of `self`, and takes a parameter of its own with a default; it is called
    from two methods, one passing that parameter.
    """

    from __future__ import annotations

    from sglang.srt.memory import pool_alloc
    from sglang.srt.server_args import ServerArgs


    class ModelRunner:
        """Runs the forward passes of one model on one rank."""

        def __init__(self, server_args: ServerArgs, device: str, is_draft_worker: bool = False):
            self.server_args = server_args
            self.device = device
            self.is_draft_worker = is_draft_worker
'''

FUNCTION = textwrap.dedent('''\
    """Pool sizes: an existing module the method moves into."""

    from __future__ import annotations


    def block_bytes(device: str) -> int:
        return 4096 if device == "cpu" else 65536


    def pool_size(
        is_draft_worker: bool,
        enable_pool: bool,
        pool_blocks: int,
        device: str,
        scale: int = 1,
    ) -> int:
        # A draft worker shares its target's pool.
        if is_draft_worker or not enable_pool:
            return 0
        if pool_blocks <= 0:
            return -1
        return scale * pool_blocks * block_bytes(device)
''')

WITH_WRAPPER = textwrap.dedent(HEAD + '''\
            self.reserved = self.pool_size()

        def pool_size(self, scale: int = 1) -> int:
            return pool_alloc.pool_size(
                self.is_draft_worker,
                self.server_args.enable_pool,
                self.server_args.pool_blocks,
                self.device,
                scale=scale,
            )

        def grow(self) -> int:
            if self.device != "meta":
                self.reserved = self.pool_size(scale=2)
            return self.reserved
''')

WITHOUT_WRAPPER = textwrap.dedent(HEAD + '''\
            self.reserved = pool_alloc.pool_size(
                self.is_draft_worker,
                self.server_args.enable_pool,
                self.server_args.pool_blocks,
                self.device,
            )

        def grow(self) -> int:
            if self.device != "meta":
                self.reserved = pool_alloc.pool_size(
                    self.is_draft_worker,
                    self.server_args.enable_pool,
                    self.server_args.pool_blocks,
                    self.device,
                    scale=2,
                )
            return self.reserved
''')


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    shutil.copytree(TREE, root)
    return root


@pytest.mark.parametrize("spec, runner", [(SPEC, WITH_WRAPPER), (NO_WRAPPER, WITHOUT_WRAPPER)],
                         ids=["wrapper", "no-wrapper"])
def test_the_narrowed_values_are_passed_by_position(tmp_path, spec, runner):
    root = _tree(tmp_path)
    plan = refactor(root, spec)
    assert plan.steps[3].subject.startswith("Pass enable_pool, pool_blocks instead of server_args to pool_size")
    write_plan(plan)
    assert (root / TARGET).read_text() == FUNCTION
    assert (root / RUNNER).read_text() == runner
    with pytest.raises(AlreadyApplied):
        refactor(root, spec)


def test_without_a_wrapper_step_by_step_gives_the_same_tree(tmp_path):
    whole, split = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    write_plan(refactor(whole, NO_WRAPPER))
    for step in (1, 2, 3, 4):
        write_plan(refactor(split, NO_WRAPPER, range(step, step + 1)))
    for rel in (RUNNER, TARGET):
        assert (split / rel).read_text() == (whole / rel).read_text()


def test_a_run_starting_at_step_4_narrows_what_step_3_made_positional(tmp_path):
    """Steps 1-3 with --positional, then step 4 alone: the tree tells that the function's
    parameter is positional-or-keyword now (step 4 is still to do), and the calls pass it so."""
    root = _tree(tmp_path)
    write_plan(refactor(root, NO_WRAPPER, range(1, 4)))
    assert "pool_alloc.pool_size(self.is_draft_worker, self.server_args, self.device, scale=2)" in \
        ast.unparse(ast.parse((root / RUNNER).read_text()))
    write_plan(refactor(root, NO_WRAPPER, range(4, 5)))
    assert (root / RUNNER).read_text() == WITHOUT_WRAPPER and (root / TARGET).read_text() == FUNCTION


CALLER = textwrap.dedent('''\
    """A caller of ModelRunner.pool_size outside the class."""

    from __future__ import annotations

    from sglang.srt.model_executor.model_runner import ModelRunner


    class TpWorker:
        def __init__(self, model_runner: ModelRunner):
            self.model_runner = model_runner

        def refresh(self) -> int:
            return self.model_runner.pool_size(scale=3)
''')

CALLER_AFTER = textwrap.dedent('''\
    """A caller of ModelRunner.pool_size outside the class."""

    from __future__ import annotations

    from sglang.srt.memory import pool_alloc
    from sglang.srt.model_executor.model_runner import ModelRunner


    class TpWorker:
        def __init__(self, model_runner: ModelRunner):
            self.model_runner = model_runner

        def refresh(self) -> int:
            return pool_alloc.pool_size(
                self.model_runner.is_draft_worker,
                self.model_runner.server_args,
                self.model_runner.device,
                scale=3,
            )
''')


def test_with_pass_self_calls_in_other_files_pass_the_attributes_by_position(tmp_path):
    root = _tree(tmp_path)
    (root / "sglang/srt/managers").mkdir()
    (root / "sglang/srt/managers/tp_worker.py").write_text(CALLER)
    spec = MethodSpec(class_name="ModelRunner", method_name="pool_size", target_module="sglang.srt.memory.pool_alloc",
                      pass_self="model_runner", no_wrapper=True, positional=True,
                      narrows=("model_runner.is_draft_worker=is_draft_worker", "model_runner.server_args=server_args",
                               "model_runner.device=device"))
    plan = refactor(root, spec)
    assert "step 4: 2 call(s) in ModelRunner and 1 in 1 other file(s) pass is_draft_worker, server_args, " \
           "device" in plan.messages
    write_plan(plan)
    assert (root / "sglang/srt/managers/tp_worker.py").read_text() == CALLER_AFTER
    assert "def pool_size(is_draft_worker: bool, server_args, device: str, scale: int = 1) -> int:\n" \
        in (root / TARGET).read_text()


RECIPE = Recipe("ModelRunner", "pool_size", RUNNER, "sglang.srt.memory.pool_alloc",
                narrows=(Narrow("server_args", "enable_pool", "enable_pool"),
                         Narrow("server_args", "pool_blocks", "pool_blocks")))
POSITIONAL = ["is_draft_worker", "server_args", "device", "scale"]


@pytest.mark.parametrize("before, after", [
    ('''\
        def pool_size(is_draft_worker, server_args, device, scale=1):
            if is_draft_worker or not server_args.enable_pool:
                return 0
            return scale * server_args.pool_blocks
    ''', '''\
        def pool_size(is_draft_worker, enable_pool, pool_blocks, device, scale=1):
            if is_draft_worker or not enable_pool:
                return 0
            return scale * pool_blocks
    '''),
    ('''\
        def pool_size(is_draft_worker, server_args, *, device, scale=1):
            return server_args.enable_pool and server_args.pool_blocks
    ''', '''\
        def pool_size(is_draft_worker, enable_pool, pool_blocks, *, device, scale=1):
            return enable_pool and pool_blocks
    '''),
], ids=["all-positional", "some-keyword-only"])
def test_a_positional_parameter_is_narrowed_in_its_place(before, after):
    out = narrow_function(textwrap.dedent(before), Path("pool_alloc.py"), RECIPE, Style(enabled=False))
    assert out == textwrap.dedent(after)


def test_a_defaulted_parameter_after_another_defaulted_one_is_refused():
    code = textwrap.dedent('''\
        def pool_size(is_draft_worker, scale=1, server_args=None):
            return server_args.enable_pool and server_args.pool_blocks
    ''')
    with pytest.raises(Refusal, match="server_args has a default and follows a parameter with one") as exc:
        narrow_function(code, Path("pool_alloc.py"), RECIPE, Style(enabled=False))
    assert exc.value.line == 1


@pytest.mark.parametrize("before, after", [
    ("pool_alloc.pool_size(self.is_draft_worker, self.server_args, self.device, scale=2)",
     "pool_alloc.pool_size(self.is_draft_worker, self.server_args.enable_pool, self.server_args.pool_blocks, "
     "self.device, scale=2)"),
    ("pool_alloc.pool_size(self.is_draft_worker, self.server_args)",
     "pool_alloc.pool_size(self.is_draft_worker, self.server_args.enable_pool, self.server_args.pool_blocks)"),
    ("pool_alloc.pool_size(self.is_draft_worker, server_args=self.server_args, device=self.device)",
     "pool_alloc.pool_size(self.is_draft_worker, enable_pool=self.server_args.enable_pool, "
     "pool_blocks=self.server_args.pool_blocks, device=self.device)"),
    ("pool_alloc.pool_size(a, b, *rest)",
     "pool_alloc.pool_size(a, b.enable_pool, b.pool_blocks, *rest)"),
], ids=["by-position", "last", "by-keyword", "before-star"])
def test_a_call_passes_the_attributes_where_it_passed_the_parameter(before, after):
    call = narrowed_call(cst.parse_expression(before), RECIPE, Path("x.py"), 3, "the call", POSITIONAL)
    assert cst.Module([]).code_for_node(call) == after


@pytest.mark.parametrize("before, why", [
    ("pool_alloc.pool_size(self.is_draft_worker, *rest)", "passes *args to pool_alloc.pool_size, which may fill "
                                                          "server_args"),
    ("pool_alloc.pool_size(self.is_draft_worker, make(), self.device)", "passes make() to pool_alloc.pool_size: "
                                                                         "narrowed into enable_pool, pool_blocks"),
    ("pool_alloc.pool_size(self.is_draft_worker)", "does not pass server_args to pool_alloc.pool_size exactly once, "
                                                   "by keyword or by position"),
    ("pool_alloc.pool_size(a, b, server_args=b)", "does not pass server_args to pool_alloc.pool_size exactly once"),
])
def test_what_a_call_by_position_cannot_carry_is_refused(before, why):
    with pytest.raises(Refusal, match=re.escape(why)) as exc:
        narrowed_call(cst.parse_expression(before), RECIPE, Path("x.py"), 3, "the call", POSITIONAL)
    assert exc.value.line == 3


@pytest.mark.parametrize("spec", [SPEC, NO_WRAPPER], ids=["wrapper", "no-wrapper"])
def test_equivalence_proves_the_output_with_every_mutant_killed(tmp_path, spec):
    before, after = _tree(tmp_path / "before"), _tree(tmp_path / "after")
    write_plan(refactor(after, spec))
    out = subprocess.run([sys.executable, "-m", "equivalence", "--method", "ModelRunner.pool_size", str(before),
                          str(after), "--mutants"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert ": equivalent over " in out.stdout and "branches before 6/6 after 6/6" in out.stdout, out.stdout
    killed = next(line for line in out.stdout.splitlines() if line.startswith("mutants: "))
    done, total = map(int, killed.split()[1].split("/"))
    assert done == total >= 14, killed  # with each argument passed by position mutated (order, source)
    assert "verdict: equivalent" in out.stdout


def test_each_step_is_proven_the_narrowed_value_read_up_front_an_eager_read(tmp_path):
    """Step 3 -> 4 passes `self.server_args.enable_pool` where step 3's function read
    `server_args.enable_pool` from the `self.server_args` it was given, on some paths only: with
    `server_args` None, step 4 raises up front, the eager read the one-run pair already calls so."""
    import json

    from equivalence.cli import main

    out = tmp_path / "r.json"
    root = _tree(tmp_path)
    assert main(["--steps", str(root), "--method", "ModelRunner.pool_size", "--to", "sglang.srt.memory.pool_alloc",
                 *(a for n in NARROWS for a in ("--narrow", n)), "--positional", "--json", str(out)]) == 0
    pairs = json.loads(out.read_text())["pairs"]
    assert [p["verdict"] for p in pairs] == ["equivalent"] * 5
    assert [c["kind"] for c in pairs[3]["classified"]] == ["eager-read"]
