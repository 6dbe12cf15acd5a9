"""Several methods in one run (`CLASS.M1,M2 TARGET.MODULE`), on our fixture `method_group` (the shape
of 0.5.15.post1 `ModelRunner.maybe_recover_ep_ranks` calling `_get_healthy_expert_location_src_rank`):
the callee moves first, the caller then calls its function by name in their module."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from codemods.core.errors import BadInput, Refusal
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan

TREE = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "method_group"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/elastic/recovery.py"
SPEC = MethodSpec(class_name="ModelRunner", method_name="maybe_recover", methods=("maybe_recover", "_healthy_src_rank"),
                  target_module="sglang.srt.elastic.recovery", names={"_healthy_src_rank": "healthy_src_rank"})

BEHAVIOUR = """
import itertools, json, logging
from sglang.srt.elastic.recovery import RecoveryState
from sglang.srt.model_executor.model_runner import ModelRunner
logged = []
logging.basicConfig(level=logging.INFO)
logging.getLogger().addHandler(type("H", (logging.Handler,), {"emit": lambda s, r: logged.append(r.getMessage())})())
out = []
for active, flags in itertools.product(([1, 1, 1], [1, 0, 1], [0, 0, 1], [0, 0, 0]),
                                       ([0, 0, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1])):
    RecoveryState.last_src, RecoveryState.broadcasts = None, []
    try:
        r = ModelRunner(active, flags, seed=len(out))
        out.append([r.src_rank, r.step(), RecoveryState.last_src, RecoveryState.broadcasts])
    except RuntimeError as e:
        out.append(str(e))
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


def _functions(root: Path) -> dict[str, ast.FunctionDef]:
    return {s.name: s for s in ast.parse((root / TARGET).read_text()).body if isinstance(s, ast.FunctionDef)}


def _methods(root: Path) -> dict[str, ast.FunctionDef]:
    cls = next(s for s in ast.parse((root / RUNNER).read_text()).body if isinstance(s, ast.ClassDef))
    return {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}


def test_the_callee_moves_first_and_the_caller_calls_it_by_name(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    plan = refactor(root, SPEC)
    assert plan.messages[0] == "2 methods, moved in this order: _healthy_src_rank, maybe_recover"
    assert [s.number for s in plan.steps] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert plan.steps[1].subject == "Move _healthy_src_rank into sglang/srt/elastic/recovery.py as healthy_src_rank"
    assert plan.steps[5].subject == "Move maybe_recover into sglang/srt/elastic/recovery.py"
    write_plan(plan)
    functions = _functions(root)
    assert [a.arg for a in functions["maybe_recover"].args.kwonlyargs] == ["active", "rejoin_flags", "seed"]
    assert "healthy_src_rank(rejoining=False, rejoin_flags=rejoin_flags)" in ast.unparse(functions["maybe_recover"])
    assert "recovery." not in ast.unparse(functions["maybe_recover"])
    methods = _methods(root)
    assert ast.unparse(methods["maybe_recover"].body[0]) == (
        "recovery.maybe_recover(active=self.active, rejoin_flags=self.rejoin_flags, seed=self.seed)")
    assert "self._healthy_src_rank(rejoining=True)" in ast.unparse(methods["__init__"])
    assert _behaviour(root) == before
    with pytest.raises(AlreadyApplied, match="every method is already extracted: ModelRunner.maybe_recover: "
                                             "already applied") as exc:
        refactor(root, SPEC)
    assert exc.value.path == root / RUNNER and exc.value.exit_code == 5


def test_without_wrappers_no_method_is_left(tmp_path):
    root = _tree(tmp_path)
    before = _behaviour(root)
    write_plan(refactor(root, replace(SPEC, no_wrapper=True)))
    methods = _methods(root)
    assert not {"maybe_recover", "_healthy_src_rank"} & set(methods)
    assert "recovery.healthy_src_rank(rejoining=True, rejoin_flags=self.rejoin_flags)" in ast.unparse(
        methods["__init__"])
    assert "recovery.maybe_recover(" in ast.unparse(methods["step"])
    assert _behaviour(root) == before


def test_the_order_given_does_not_matter(tmp_path):
    one, other = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    write_plan(refactor(one, SPEC))
    write_plan(refactor(other, replace(SPEC, methods=("_healthy_src_rank", "maybe_recover"),
                                       method_name="_healthy_src_rank")))
    for rel in (RUNNER, TARGET):
        assert (one / rel).read_text() == (other / rel).read_text()


def test_a_method_already_moved_is_skipped(tmp_path):
    root = _tree(tmp_path)
    alone = MethodSpec(class_name="ModelRunner", method_name="_healthy_src_rank", no_wrapper=True,
                       target_module="sglang.srt.elastic.recovery", function_name="healthy_src_rank")
    write_plan(refactor(root, alone))
    plan = refactor(root, replace(SPEC, no_wrapper=True))
    assert plan.messages[1].startswith("skipped, ModelRunner._healthy_src_rank: already applied")
    assert [s.number for s in plan.steps] == [1, 2, 3, 4]


def test_a_wrapper_the_others_call_is_refused(tmp_path):
    root = _tree(tmp_path)
    write_plan(refactor(root, MethodSpec(class_name="ModelRunner", method_name="_healthy_src_rank",
                                         target_module="sglang.srt.elastic.recovery",
                                         function_name="healthy_src_rank")))
    with pytest.raises(Refusal, match="already extracted, with a wrapper, which maybe_recover calls") as exc:
        refactor(root, SPEC)
    assert "self._healthy_src_rank(rejoining=False)" in (root / RUNNER).read_text().splitlines()[exc.value.line - 1]


def test_the_caller_alone_is_refused_and_a_later_refusal_points_at_the_users_line(tmp_path):
    root = _tree(tmp_path)
    alone = MethodSpec(class_name="ModelRunner", method_name="maybe_recover", target_module="sglang.srt.elastic.recovery")
    with pytest.raises(Refusal, match="call of another ModelRunner method"):
        refactor(root, alone)
    path = root / RUNNER
    text = path.read_text().replace("        RecoveryState.last_src = src\n",
                                    "        RecoveryState.last_src = src\n        self.src_rank = src\n")
    path.write_text(text)
    with pytest.raises(Refusal, match="early return where self.src_rank is not written yet") as exc:
        refactor(root, SPEC)
    assert text.splitlines()[exc.value.line - 1].strip() == "return"


def test_methods_calling_each_other_round_are_refused(tmp_path):
    root = _tree(tmp_path)
    path = root / RUNNER
    path.write_text(path.read_text().replace("        raise RuntimeError(", "        self.maybe_recover()\n"
                                                                         "        raise RuntimeError("))
    with pytest.raises(Refusal, match="call each other round"):
        refactor(root, SPEC)


@pytest.mark.parametrize("change, why", [
    (dict(narrows=("active",)), "--narrow with several methods"),
    (dict(moved_globals=("logger",)), "--move-global with several methods"),
    (dict(function_name="f"), "--name METHOD=FUNCTION"),
    (dict(names={"other": "f"}), "other is not one of the methods"),
    (dict(methods=("maybe_recover", "maybe_recover")), "a method named twice"),
])
def test_options_for_one_method_are_bad_input(tmp_path, change, why):
    with pytest.raises(BadInput, match=why):
        refactor(_tree(tmp_path), replace(SPEC, **change))


def test_steps_are_bad_input(tmp_path):
    with pytest.raises(BadInput, match="--steps with several methods"):
        refactor(_tree(tmp_path), SPEC, range(1, 3))


def test_the_command_line(tmp_path):
    root = _tree(tmp_path)
    done = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root),
                           "ModelRunner.maybe_recover,_healthy_src_rank", "sglang.srt.elastic.recovery",
                           "--name", "_healthy_src_rank=healthy_src_rank", "--no-wrapper", "--dry-run"],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert "+def healthy_src_rank(*, rejoin_flags, rejoining: bool) -> int:" in done.stdout
    assert "+    src = healthy_src_rank(rejoining=False, rejoin_flags=rejoin_flags)" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "codemods.extract_method", str(root),
                          "ModelRunner.maybe_recover,_healthy_src_rank", "sglang.srt.elastic.recovery",
                          "--name", "healthy_src_rank"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert bad.returncode == 2 and "--name METHOD=FUNCTION" in bad.stderr


@pytest.mark.parametrize("options", [
    dict(pass_self="model_runner"),
    dict(no_wrapper=True, positional=True),
    dict(no_wrapper=True, pass_self="model_runner", positional=True),
    dict(renames={"rejoin_flags": "flags_by_rank"}),
])
def test_each_option_applies_to_every_method_and_behaviour_is_kept(tmp_path, options):
    root = _tree(tmp_path)
    before = _behaviour(root)
    write_plan(refactor(root, replace(SPEC, **options)))
    assert _behaviour(root) == before
    assert set(_functions(root)) >= {"maybe_recover", "healthy_src_rank"}
    assert "recovery." not in ast.unparse(_functions(root)["maybe_recover"])
    with pytest.raises(AlreadyApplied):
        refactor(root, replace(SPEC, **options))


STATICS = {"pkg/__init__.py": "", "pkg/chat.py": '''\
import math


class Chat:
    def effort(self, request):
        return self._parse(request.value) or self._default(request.size)

    @staticmethod
    def _parse(value):
        return None if value is None else max(0.0, min(float(value), 1.0))

    @staticmethod
    def _default(size):
        return round(math.log2(size + 1) / 10, 3)
'''}
STATIC_USE = ("from types import SimpleNamespace as N; from pkg.chat import Chat; "
              "print([Chat().effort(N(value=v, size=s)) for v in (None, 0, 0.5, 7) for s in (0, 3, 1000)])")


def test_a_group_of_static_methods_runs_from_step_2_in_one_run(tmp_path):
    """A static method reads as step 1 done: each method of the group runs the steps it lacks."""
    from tests.checkouts import write_tree
    root = write_tree(tmp_path / "t", STATICS)
    before = subprocess.run([sys.executable, "-c", STATIC_USE], cwd=root, capture_output=True, text=True).stdout
    spec = MethodSpec(class_name="Chat", method_name="_parse", methods=("_parse", "_default"),
                      target_module="pkg.efforts", names={"_parse": "parse", "_default": "default"},
                      no_wrapper=True, positional=True)
    write_plan(refactor(root, spec))
    chat, effort = (root / "pkg/chat.py").read_text(), (root / "pkg/efforts.py").read_text()
    assert "staticmethod" not in chat and "efforts.parse(request.value) or efforts.default(request.size)" in chat
    assert "def parse(value):" in effort and "def default(size):" in effort and "import math" in effort
    after = subprocess.run([sys.executable, "-c", STATIC_USE], cwd=root, capture_output=True, text=True)
    assert after.stdout == before and before, after.stderr
    with pytest.raises(AlreadyApplied):
        refactor(root, spec)
