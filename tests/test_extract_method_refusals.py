"""What extract_method cannot carry exactly: refused (exit 3) with file, line and why; nothing written.

Each case is a small edit of one of our fixture trees (tests/method_expected.py's shapes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods.extract_method import MethodSpec, Refusal, refactor, write_plan
from codemods.extract_method.__main__ import main
from tests.checkouts import git_init
from tests.method_expected import RUNNER, SHAPES, TREES, spec

WRITE = "            self.local_omp_cpuid = cpu_ids_by_node[self.tp_rank]\n"
FIRST = '        omp_cpuids = os.environ.get("SGLANG_CPU_OMP_THREADS_BIND", "all")\n'
DEF = "    def bind_threads(self):\n"
CALL = "            self.bind_threads()\n"
TARGET = "sglang/srt/utils/numa_utils.py"

# id: (shape, file, old text, new text, what the message says, the line it names)
CASES = {
    "conditional-write": ("method_one_result", RUNNER, WRITE, "            pass\n",
                          "self.local_omp_cpuid is written on some paths and not others", 48),
    "early-return-before-a-result": ("method_one_result", RUNNER, FIRST, FIRST + "        if not omp_cpuids:\n"
                                     "            return\n",
                                     "early return where self.local_omp_cpuid is not written yet", 36),
    "returns-a-value-and-writes": ("method_one_result", RUNNER, FIRST, FIRST + "        if not omp_cpuids:\n"
                                   "            return 0\n", "returns a value and also writes self.local_omp_cpuid",
                                   36),
    "another-self-method": ("method_one_result", RUNNER, FIRST, FIRST + "        self.init_threads()\n",
                            "call of another ModelRunner method self.init_threads(...)", 35),
    "self-passed-along": ("method_one_result", RUNNER, FIRST, FIRST + "        print(self)\n",
                          "self used other than through an attribute", 35),
    "getattr-self": ("method_one_result", RUNNER, FIRST, FIRST + '        print(getattr(self, "device"))\n',
                     "self used other than through an attribute", 35),
    "super": ("method_one_result", RUNNER, FIRST, FIRST + "        super().bind_threads()\n",
              "super() needs the class", 35),
    "nested-function-captures-self": ("method_one_result", RUNNER, FIRST, FIRST + "\n        def rank():\n"
                                      "            return self.tp_rank\n\n", "nested function rank captures self", 36),
    "lambda-captures-self": ("method_one_result", RUNNER, FIRST, FIRST + "        rank = lambda: self.tp_rank\n",
                             "lambda captures self", 35),
    "decorator": ("method_one_result", RUNNER, DEF, "    @torch.no_grad()\n" + DEF, "has a decorator", 34),
    "async": ("method_one_result", RUNNER, DEF, "    async def bind_threads(self):\n", "is async", 33),
    "defined-twice": ("method_one_result", RUNNER, "    def init_threads(self) -> None:\n",
                      "    def bind_threads(self):\n        pass\n\n    def init_threads(self) -> None:\n",
                      "defined 2 times", 54),
    "star-args": ("method_one_result", RUNNER, DEF, "    def bind_threads(self, *cpus):\n", "takes *args or **kwargs",
                  33),
    "del-self-attribute": ("method_one_result", RUNNER, FIRST, FIRST + "        del self.device\n",
                           "del of self.device", 35),
    "global-statement": ("method_one_result", RUNNER, FIRST, FIRST + "        global _BOUND\n",
                         "a `global` statement", 35),
    "mangled-name": ("method_one_result", RUNNER, FIRST, FIRST + "        print(self.__cpus)\n",
                     "self.__cpus is a private name the class mangles", 35),
    "dunder-attribute": ("method_one_result", RUNNER, FIRST, FIRST + "        print(self.__class__.__name__)\n",
                         "self.__class__ is the instance's own", 35),
    "name-clash": ("method_one_result", RUNNER, FIRST, FIRST + "        tp_size = 1\n",
                   "already uses the name(s) tp_size; --rename", 33),
    "call-site-not-a-statement": ("method_one_result", RUNNER, CALL, "            ok = self.bind_threads()\n",
                                  "the call self.bind_threads() is not a bare statement of its own", 30),
    "method-used-as-a-value": ("method_one_result", RUNNER, CALL, CALL + "            run(self.bind_threads)\n",
                               "uses self.bind_threads other than by calling it (passed as a value?): steps 1-2 "
                               "would break it", 31),
    "target-binds-the-function": ("method_one_result", TARGET, "_is_cuda = is_cuda()\n",
                                  "_is_cuda = is_cuda()\nbind_threads = None\n",
                                  "the target already binds bind_threads", 10),
    "target-binds-a-name-otherwise": ("method_one_result", TARGET, "import os\n", "from posix import os\n",
                                      "the target already binds os here, otherwise than", 4),
    "call-site-star-args": ("method_own_params", RUNNER, 'self.pick_backend("prefill")',
                            "self.pick_backend(*phases)", "a call passes *...", 22),
    "call-site-unknown-keyword": ("method_own_params", RUNNER, 'self.pick_backend("prefill")',
                                  'self.pick_backend(stage="prefill")', "a call passes stage=", 22),
    "property-reads-a-result": ("method_several_results", RUNNER, "    def reset(self) -> None:\n",
                                "    @property\n    def pp(self):\n        return self.pp_rank\n\n"
                                "    def reset(self) -> None:\n",
                                "self.pp is a property that reads self.pp_rank", 29),
    "function-of-the-source-module": ("method_one_result", RUNNER, FIRST, FIRST + "        print(rank_of(self.tp_rank))\n",
                                      "moved code uses 'rank_of', a module-level function or class the source "
                                      "module defines (line 18): the moved code could only import it from there, "
                                      "which closes an import cycle; move it by hand first", 39),
}
# the method reads the property / the function (edited in once it exists)
AFTER = {"function-of-the-source-module": ("class ModelRunner", "def rank_of(rank):\n    return rank\n\n\n"
                                           "class ModelRunner"),
         "property-reads-a-result": ("        pp_size = self.server_args.pp_size\n",
                                     "        pp_size = self.server_args.pp_size + 0 * self.pp\n")}


@pytest.mark.parametrize("case", CASES)
def test_refused_with_file_line_and_why(tmp_path, case):
    shape, rel, old, new, why, line = CASES[case]
    root = tmp_path / shape
    shutil.copytree(TREES / shape, root)
    path = root / rel
    text = path.read_text()
    assert old in text, old
    text = text.replace(old, new, 1)
    if case in AFTER:
        assert AFTER[case][0] in text
        text = text.replace(*AFTER[case], 1)
    path.write_text(text)
    before = {p: p.read_text() for p in root.rglob("*.py")}
    with pytest.raises(Refusal) as exc:
        write_plan(refactor(root, spec(shape)))
    assert why in str(exc.value)
    assert exc.value.path == path and exc.value.line == line, str(exc.value)
    assert {p: p.read_text() for p in root.rglob("*.py")} == before


def test_the_command_line_says_refused_exit_3(tmp_path, capsys):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace(FIRST, FIRST + "        self.init_threads()\n"))
    code = main([str(root), "ModelRunner.bind_threads", SHAPES["method_one_result"]["target_module"]])
    err = capsys.readouterr().err
    assert code == 3 and f"error: {runner}:35: call of another ModelRunner method" in err


def test_pass_self_carries_what_is_refused_otherwise(tmp_path):
    """A call of another method, `self` passed along: with --pass-self the function takes the runner."""
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_pass_self", root)
    with pytest.raises(Refusal, match="self used other than through an attribute"):
        refactor(root, MethodSpec("ModelRunner", "make_backend", "sglang.srt.model_executor.runner_parts.setup"))
    plan = refactor(root, MethodSpec("ModelRunner", "make_backend", "sglang.srt.model_executor.runner_parts.setup",
                                     pass_self="model_runner"))
    assert "parameters from self: model_runner=self" in plan.shape


@pytest.mark.parametrize("argv, why", [
    (["ModelRunner.bind_threads", "sglang.srt..x"], "is not a dotted module name"),
    (["ModelRunner.bind_threads", "sglang.srt.model_executor.model_runner"], "is the module the class is in"),
    (["ModelRunner.bind_threads", "sglang.srt.utils.numa_utils", "--pass-self", "self"], "other than `self`"),
    (["NoSuchRunner.bind_threads", "sglang.srt.utils.numa_utils"], "defines class NoSuchRunner"),
    (["ModelRunner.bind_threads", "sglang.srt.utils.numa_utils", "--source", "sglang/nope.py"], "nope.py"),
])
def test_bad_input_exit_2(tmp_path, capsys, argv, why):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    assert main([str(root), *argv]) == 2
    assert why in capsys.readouterr().err


def test_no_such_method_is_an_error_naming_the_closest_methods(tmp_path, capsys):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    assert main([str(root), "ModelRunner.no_such_method", "sglang.srt.utils.numa_utils"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "ModelRunner.no_such_method not found" in err
    assert main([str(root), "ModelRunner.bind_thread", "sglang.srt.utils.numa_utils"]) == 2
    assert "did you mean bind_threads or init_threads?" in capsys.readouterr().err


def test_help_explains_steps_inference_options_and_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for word in ("--steps", "--dry-run", "--commit", "--no-format", "--name", "--rename", "--narrow", "--pass-self",
                 "--move-global", "--source", "exit codes", "already applied", "keyword-only parameter",
                 "examples"):
        assert word in out, word


# --- the rest of the checkout: uses of the method outside its class, import cycles -----------

USES = {  # id: (file, its text, the refusal's what, line) — each breaks between steps 1 and 3
    "another-file-calls-it": ("sglang/srt/hardware_backend/cpu.py",
                              "from sglang.srt.model_executor.model_runner import ModelRunner\n\n\n"
                              "def warm_up(runner: ModelRunner) -> None:\n    runner.bind_threads()\n",
                              "uses runner.bind_threads", 5),
    "a-file-that-never-imports-the-class-calls-it": ("sglang/srt/managers/scheduler.py",
                                                     "def warm_up(model_runner) -> None:\n"
                                                     "    model_runner.bind_threads()\n",
                                                     "uses model_runner.bind_threads", 2),
    "a-subclass-overrides-it": ("sglang/srt/hardware_backend/runners.py",
                                "from sglang.srt.model_executor.model_runner import ModelRunner\n\n\n"
                                "class CpuRunner(ModelRunner):\n    def bind_threads(self):\n        pass\n",
                                "CpuRunner overrides ModelRunner.bind_threads", 5),
    "a-subclass-calls-super": ("sglang/srt/hardware_backend/runners.py",
                               "from sglang.srt.model_executor.model_runner import ModelRunner\n\n\n"
                               "class CpuRunner(ModelRunner):\n    def bind(self):\n        super().bind_threads()\n",
                               "calls super().bind_threads", 6),
}


def _tree_using_it(tmp_path, case) -> Path:
    rel, code, _, _ = USES[case]
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(code)
    return root


@pytest.mark.parametrize("case", USES)
def test_a_use_outside_the_class_is_refused_where_no_wrapper_follows(tmp_path, case):
    rel, _, what, line = USES[case]
    root = _tree_using_it(tmp_path, case)
    with pytest.raises(Refusal) as exc:
        refactor(root, spec("method_one_result"), steps=range(1, 3))
    assert exc.value.path == root.resolve() / rel and exc.value.line == line
    assert what in str(exc.value) and "steps 1-2 would break it" in str(exc.value)


def test_an_override_is_refused_even_with_the_wrapper(tmp_path):
    # the class's own call sites call the function from step 2 on: the override would be skipped
    with pytest.raises(Refusal, match="CpuRunner overrides ModelRunner.bind_threads"):
        refactor(_tree_using_it(tmp_path, "a-subclass-overrides-it"), spec("method_one_result"))


THROUGH_AN_INSTANCE = [case for case in USES if "overrides" not in USES[case][2]]


@pytest.mark.parametrize("case", THROUGH_AN_INSTANCE)
def test_a_use_through_an_instance_goes_on_through_the_wrapper_the_steps_written_together(tmp_path, case, capsys):
    rel, code, what, line = USES[case]
    root = _tree_using_it(tmp_path, case)
    git_init(root)
    args = ["ModelRunner.bind_threads", "sglang.srt.utils.numa_utils"]
    before = {p: p.read_text() for p in root.rglob("*.py")}
    assert main([str(root), *args, "--commit"]) == 3  # commits 1-2 would break it
    err = capsys.readouterr().err
    assert f"{root.resolve() / rel}:{line}: {what}: steps 1-2 would break it" in err
    assert "run without --commit to write the steps together" in err
    assert {p: p.read_text() for p in root.rglob("*.py")} == before
    assert main([str(root), *args]) == 0
    err = capsys.readouterr().err
    assert f"1 use(s) outside the class go on through the wrapper of step 3" in err
    assert f"  {root.resolve() / rel}:{line}: {what}\n" in err
    assert (root / rel).read_text() == code  # it calls the wrapper
    assert "    def bind_threads(self" in (root / RUNNER).read_text()


def test_every_conflict_is_listed_at_once_with_what_to_do(tmp_path):
    """Uses in other files, a use in the class and what step 1 refuses in the method itself."""
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace(FIRST, FIRST + "        self.init_threads()\n")
                      .replace(CALL, CALL + "            run(self.bind_threads)\n"))
    for rel in ("sglang/srt/managers/scheduler.py", "sglang/srt/hardware_backend/cpu.py"):
        (root / rel).parent.mkdir(parents=True)
        (root / rel).write_text("def warm_up(model_runner) -> None:\n    model_runner.bind_threads()\n")
    with pytest.raises(Refusal) as exc:
        refactor(root, spec("method_one_result"), steps=range(1, 3))  # no wrapper: the outside uses break
    message = str(exc.value)
    lines = message.splitlines()
    assert lines[0] == "4 places the refactoring cannot update:"
    assert lines[1:5] == [
        f"  {root.resolve() / 'sglang/srt/hardware_backend/cpu.py'}:2: uses model_runner.bind_threads: steps 1-2 "
        f"would break it",
        f"  {root.resolve() / 'sglang/srt/managers/scheduler.py'}:2: uses model_runner.bind_threads: steps 1-2 "
        f"would break it",
        f"  {root.resolve() / RUNNER}:31: uses self.bind_threads other than by calling it (passed as a value?): "
        f"steps 1-2 would break it",
        f"  {root.resolve() / RUNNER}:36: call of another ModelRunner method self.init_threads(...): the function "
        f"could not call it; pass --pass-self NAME to hand it the instance"]
    assert lines[5].startswith("Each use that steps 1-2 would break is one of ModelRunner.bind_threads or of a "
                               "same-named method of another class that the tool cannot tell apart from it")
    assert "Update those places first (or rename the other class's method)" in lines[5]


def test_the_same_method_name_on_an_unrelated_class_is_no_use(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text() + "\n\nclass Other:\n    def bind_threads(self):\n        pass\n\n"
                                           "    def start(self):\n        self.bind_threads()\n")
    write_plan(refactor(root, spec("method_one_result")))
    assert "numa_utils.bind_threads(" in runner.read_text()


def test_a_new_import_closing_a_cycle_is_refused_naming_it(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    target = root / TARGET
    target.write_text(target.read_text().replace(
        "from sglang.srt.utils import is_cuda\n",
        "from sglang.srt.model_executor.model_runner import ModelRunner\nfrom sglang.srt.utils import is_cuda\n"))
    before = {p: p.read_text() for p in root.rglob("*.py")}
    with pytest.raises(Refusal) as exc:
        write_plan(refactor(root, spec("method_one_result")))
    assert ("sglang.srt.model_executor.model_runner would import sglang.srt.utils.numa_utils at module level, "
            "which closes the import cycle sglang.srt.model_executor.model_runner -> sglang.srt.utils.numa_utils "
            "-> sglang.srt.model_executor.model_runner") in str(exc.value)
    assert exc.value.path == root.resolve() / RUNNER and exc.value.line == 33
    assert {p: p.read_text() for p in root.rglob("*.py")} == before


def test_move_global_of_a_function_is_refused_at_its_line_on_disk(tmp_path):
    """--move-global moves assignments only; a def named is refused at the line the user's file
    has it (after the class, which step 1 made longer in memory: 0.5.19 `_make_abort_req`)."""
    from dataclasses import replace

    root = tmp_path / "t"
    shutil.copytree(TREES / "method_one_result", root)
    path = root / RUNNER
    text = path.read_text().replace(FIRST, FIRST + "        print(rank_of(self.tp_rank))\n", 1)
    text += "\n\ndef rank_of(rank):\n    return rank\n"
    path.write_text(text)
    line = text.splitlines().index("def rank_of(rank):") + 1
    with pytest.raises(Refusal) as exc:
        refactor(root, replace(spec("method_one_result"), moved_globals=("rank_of",)))
    assert "rank_of is a function or class: --move-global moves a module-level assignment" in str(exc.value)
    assert (exc.value.path, exc.value.line) == (path, line), str(exc.value)
