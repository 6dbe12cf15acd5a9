"""codemods.extract_method on real releases: upstream's two examples, on git checkouts.

Structure and behaviour are asserted (names, signatures, where things are, compiling,
idempotence, split runs, commits), never golden text: nothing of sglang is committed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan
from codemods.extract_method.__main__ import main
from tests.releases import release_root

RUNNER = "sglang/srt/model_executor/model_runner.py"
EXAMPLES = {
    "init_threads_binding": ("sglang.srt.utils.numa_utils", ["tp_size", "tp_rank"], ["local_omp_cpuid"],
                             ["get_cpu_ids_by_node"]),
    "check_quantized_moe_compatibility": (
        "sglang.srt.model_executor.model_runner_components.moe_ep_setup",
        ["model_config", "tp_size", "moe_ep_size", "moe_dp_size"], [], ["_use_aiter", "get_bool_env_var"]),
}
# Release 0.5.16's parameter names (upstream's own extraction); the order may differ: ours is first read.
UPSTREAM = {"init_threads_binding": {"tp_rank", "tp_size"},
            "check_quantized_moe_compatibility": {"model_config", "tp_size", "moe_ep_size", "moe_dp_size"}}
VERSIONS = ("0.5.14", "0.5.15.post1")
CASES = [(v, m) for v in VERSIONS for m in EXAMPLES]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def checkout(version: str, dest: Path) -> Path:
    """A git checkout made from a release: python/sglang, committed."""
    (dest / "python").mkdir()
    subprocess.run(["cp", "-r", str(release_root(version) / "sglang"), str(dest / "python")], check=True)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "base")
    return dest


@pytest.fixture(scope="module", params=CASES, ids=[f"{v}-{m}" for v, m in CASES])
def applied(request, tmp_path_factory):
    version, method = request.param
    root = checkout(version, tmp_path_factory.mktemp(f"{version}-{method}"))
    spec = MethodSpec("ModelRunner", method, EXAMPLES[method][0])
    plan = refactor(root, spec)
    write_plan(plan)
    return method, root / "python", spec, plan


def function_in(root: Path, module: str, name: str) -> cst.FunctionDef:
    tree = cst.parse_module((root / (module.replace(".", "/") + ".py")).read_text())
    (func,) = [s for s in tree.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return func


def test_function_takes_upstreams_parameters(applied):
    method, root, spec, _ = applied
    func = function_in(root, spec.target_module, method)
    names = [p.name.value for p in func.params.kwonly_params]
    assert names == EXAMPLES[method][1] and set(names) == UPSTREAM[method]
    assert not func.params.params and isinstance(func.params.star_arg, cst.ParamStar)
    code = cst.Module([]).code_for_node(func)
    assert "self" not in code.split()


def test_wrapper_in_the_class_calls_the_module(applied):
    method, root, spec, _ = applied
    text = (root / RUNNER).read_text()
    alias = spec.target_module.rpartition(".")[2]
    tree = cst.parse_module(text)
    (cls,) = [s for s in tree.body if isinstance(s, cst.ClassDef) and s.name.value == "ModelRunner"]
    (wrapper,) = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == method]
    code = cst.Module([]).code_for_node(wrapper)
    assert f"{alias}.{method}(" in code and [p.name.value for p in wrapper.params.params] == ["self"]
    for result in EXAMPLES[method][2]:
        assert f"self.{result} = {alias}.{method}(" in code
    assert f"self.{method}()" in text
    assert f"from {spec.target_module.rpartition('.')[0]} import" in text and alias in text


def test_what_only_the_method_used_leaves_the_runner(applied):
    method, root, spec, plan = applied
    text = (root / RUNNER).read_text()
    for name in EXAMPLES[method][3]:
        assert name not in text
    assert plan.steps[3].subject.startswith("Drop ")


def test_every_changed_file_compiles(applied):
    _, root, _, plan = applied
    for path, text in plan.changes.items():
        compile(text, str(path), "exec")
        cst.parse_module(text)
    assert all(p.exists() for p in plan.changes)


def test_new_package_gets_an_empty_init(applied):
    method, root, spec, plan = applied
    folder = root / spec.target_module.replace(".", "/")
    init = folder.parent / "__init__.py"
    assert init.exists()
    if "model_runner_components" in spec.target_module:
        assert init in plan.changes and init.read_text() == ""


def test_second_run_is_already_applied_and_changes_nothing(applied):
    method, root, spec, _ = applied
    before = git(root.parent, "status", "--porcelain")
    with pytest.raises(AlreadyApplied):
        refactor(root.parent, spec)
    assert git(root.parent, "status", "--porcelain") == before


@pytest.mark.parametrize("version", VERSIONS)
def test_split_run_and_commits(tmp_path, version, monkeypatch, capsys):
    """`--steps 1-2` then `--steps 3-4`, each with --commit: four commits, the same files as one run."""
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    method = "check_quantized_moe_compatibility"
    target = EXAMPLES[method][0]
    root = checkout(version, tmp_path)
    argv = [str(root), f"ModelRunner.{method}", target, "--commit"]
    assert main([*argv, "--steps", "1-2"]) == 0
    assert main([*argv, "--steps", "3-4"]) == 0
    subjects = git(root, "log", "--format=%s").splitlines()
    assert len(subjects) == 5 and subjects[-1] == "base"
    assert subjects[3] == f"Make ModelRunner.{method} a keyword-only static method"
    assert subjects[2] == f"Move {method} into {target.replace('.', '/')}.py"
    assert git(root, "status", "--porcelain") == ""
    assert main([*argv[:3]]) == 5
    func = function_in(root / "python", target, method)
    assert [p.name.value for p in func.params.kwonly_params] == EXAMPLES[method][1]


def test_one_run_commits_four_steps(tmp_path, monkeypatch):
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    root = checkout("0.5.15.post1", tmp_path)
    assert main([str(root), "ModelRunner.init_threads_binding", "sglang.srt.utils.numa_utils", "--commit"]) == 0
    subjects = git(root, "log", "--format=%s").splitlines()
    assert subjects == [
        "Drop get_cpu_ids_by_node from model_runner.py: only init_threads_binding used it",
        "Restore a ModelRunner.init_threads_binding wrapper",
        "Move init_threads_binding into sglang/srt/utils/numa_utils.py",
        "Make ModelRunner.init_threads_binding a keyword-only static method",
        "base",
    ]
    for rev in ("HEAD~3", "HEAD~2", "HEAD~1", "HEAD"):  # every step leaves a tree that compiles
        for rel in git(root, "diff", "--name-only", f"{rev}~1", rev).split():
            compile(git(root, "show", f"{rev}:{rel}"), rel, "exec")


def test_the_codemod_does_not_import_torch(tmp_path):
    code = ("import sys; from codemods.extract_method import MethodSpec, refactor; "
            f"refactor({str(release_root('0.5.15.post1'))!r}, MethodSpec('ModelRunner', 'init_threads_binding', "
            "'sglang.srt.utils.numa_utils')); assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent.parent)
