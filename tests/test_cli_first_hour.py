"""What a newcomer hits in the first hour, on every command, in a real subprocess: a file
given as PATH, ... (each: the message, the exit code, and a tree hash for "nothing written")."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KV_TREE = REPO / "fixtures" / "trees" / "record_dflash"
RUNNER = "sglang/srt/model_executor/model_runner.py"


def tree_hash(root: Path) -> str:
    """Every path and byte under `root` (folders too: an empty new package counts)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode() + b"\0")
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def run(*argv, cwd: Path = REPO, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", *map(str, argv)], cwd=cwd, env=env, capture_output=True,
                          text=True, **kw)


def copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "tree"
    shutil.copytree(src, dest)
    return dest


# --- a file instead of a folder: what to pass instead --------------------------------------

FILE_COMMANDS = {
    "extract_method": lambda f: ["codemods.extract_method", f, "ModelRunner.get_loader", "sglang.srt.x"],
    "extract_kv_dtype": lambda f: ["codemods.extract_kv_dtype", f],
    "extract_component": lambda f: ["codemods.extract_component", f, "ModelRunner", "sglang.srt.x.X",
                                    "--methods", "get_loader", "--attr", "x"],
    "equivalence": lambda f: ["equivalence", f, f],
    "equivalence --steps": lambda f: ["equivalence", "--steps", f],
    "equivalence --method": lambda f: ["equivalence", "--method", "ModelRunner.get_loader", f, f],
}


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_file_as_path_says_which_folder_to_pass(tmp_path, command):
    root = copy(KV_TREE, tmp_path)
    before = tree_hash(root)
    file = root / RUNNER
    res = run(*FILE_COMMANDS[command](file))
    assert res.returncode == 2, res.stderr
    [line] = res.stderr.splitlines()
    assert f"{file}: not a directory" in line and "the folder holding the package" in line, line
    assert f"({root} for this file)" in line and "checkout" in line, line
    assert tree_hash(root) == before


# --- --commit: each step's subject says the step once ------------------------------------

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


def git_tree(src: Path, tmp_path: Path) -> Path:
    root = copy(src, tmp_path)
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, env={**os.environ, **GIT_ENV})
    return root


def test_commit_subjects_say_each_step_once(tmp_path):
    """A step with nothing to do (step 4 here) still gets its commit, whose subject does not
    repeat the step the status line and `git log` already number."""
    root = git_tree(REPO / "fixtures" / "trees" / "method_pass_self", tmp_path)
    res = run("codemods.extract_method", root, "ModelRunner.make_backend",
              "sglang.srt.model_executor.runner_parts.attention_setup", "--pass-self", "model_runner", "--commit",
              env=GIT_ENV)
    assert res.returncode == 0, res.stderr
    subjects = subprocess.run(["git", "log", "--format=%s", "-4"], cwd=root, capture_output=True,
                              text=True).stdout.splitlines()
    assert len(subjects) == 4 and subjects[0].startswith("Nothing to narrow or tidy after extracting"), subjects
    for subject in subjects:
        assert "step" not in subject.lower(), subject
    committed = [line for line in res.stderr.splitlines() if line.startswith("committed ")]
    assert len(committed) == 4
    for line in committed:
        assert line.lower().count("step") == 1, line


# --- a class several modules define: the option the user gave -----------------------------

@pytest.mark.parametrize("option", ["--component", "--method"])
def test_a_class_defined_twice_is_named_with_the_option_given(tmp_path, option):
    root = copy(REPO / "fixtures" / "components" / "exporter", tmp_path)
    (root / "sglang" / "srt" / "other.py").write_text("class ModelRunner:\n    pass\n")
    before = tree_hash(root)
    res = run("equivalence", option, "ModelRunner.thing", root, root)
    assert res.returncode == 2, res.stderr
    [line] = res.stderr.splitlines()
    assert "class ModelRunner is defined in 2 modules" in line, line
    assert line.endswith(f"name one: {option} MODULE.ModelRunner.thing"), line
    assert tree_hash(root) == before


# --- a misspelled --method: answered before torch is imported, with a did-you-mean ---------

def test_a_method_typo_is_answered_before_torch_with_the_closest_names(tmp_path):
    root = copy(KV_TREE, tmp_path)
    before = tree_hash(root)
    code = ("import sys; from equivalence.cli import main; code = main(sys.argv[1:]); "
            "print(code, 'torch' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code, "--method", "ModelRunner.get_loadr", str(root), str(root)],
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert res.stdout == "2 False\n", (res.stdout, res.stderr)
    [line] = res.stderr.splitlines()
    assert line.startswith(f"equivalence: {root / RUNNER}:") and "has no method get_loadr" in line, line
    assert line.endswith("did you mean get_loader?"), line
    assert tree_hash(root) == before


# --- a syntax error: every command names the line Python names ------------------------------

SYNTAX_COMMANDS = {
    "extract_method": lambda t: ["codemods.extract_method", t, "ModelRunner.get_loader",
                                 "sglang.srt.model_loader.loader_choice", "--dry-run"],
    "extract_kv_dtype": lambda t: ["codemods.extract_kv_dtype", t, "--dry-run"],
    "extract_component": lambda t: ["codemods.extract_component", t, "ModelRunner", "sglang.srt.x.Loaders",
                                    "--methods", "get_loader", "--attr", "loaders", "--dry-run"],
    "equivalence": lambda t: ["equivalence", t, t],
    "equivalence --method": lambda t: ["equivalence", "--method", "ModelRunner.get_loader", t, t],
}


@pytest.mark.parametrize("command", SYNTAX_COMMANDS)
def test_a_syntax_error_is_named_at_the_line_python_names(tmp_path, command):
    root = copy(KV_TREE, tmp_path)
    runner = root / RUNNER
    text = runner.read_text()
    assert "    def get_loader(self)" in text
    runner.write_text(text.replace("    def get_loader(self)", "    def get_loader(self", 1))
    with pytest.raises(SyntaxError) as python:
        compile(runner.read_text(), str(runner), "exec")
    before = tree_hash(root)
    res = run(*SYNTAX_COMMANDS[command](root))
    assert res.returncode == 2 and res.stdout == "", res.stderr
    [line] = res.stderr.splitlines()
    assert f"{runner}:{python.value.lineno}: syntax error: {python.value.msg}" in line, line
    assert tree_hash(root) == before


# --- Ctrl-C: one line, exit 130, nothing written ---------------------------------------------

METHOD_TREE = REPO / "fixtures" / "trees" / "method_one_result"
METHOD_ARGS = ["ModelRunner.bind_threads", "sglang.srt.utils.numa_utils"]


def _sigint_default():
    """In the child: SIGINT at its default, so Python turns it into KeyboardInterrupt even when
    the suite itself was started with SIGINT ignored (a background job of a shell without job
    control: its children inherit the ignore, and the Ctrl-C these tests send would be lost)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_while_importing(argv: list[str], module: str) -> subprocess.CompletedProcess:
    """`python -m ARGV` sent SIGINT once `-X importtime` shows it importing `module` (the command's
    package is imported by then, its own heavy imports are not done)."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", *map(str, argv)], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_default)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if re.search(rf"\|\s+{module}(\.|$)", line.rstrip()):
            break
    else:
        raise AssertionError(f"never imported {module}: {''.join(seen)[-2000:]}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _said(res) -> list[str]:
    """stderr without `-X importtime`'s lines."""
    return [ln for ln in res.stderr.splitlines() if not ln.startswith("import time:")]


@pytest.mark.parametrize("command", ["codemods.extract_method", "codemods.extract_kv_dtype", "equivalence"])
def test_a_ctrl_c_while_importing_is_one_line_and_130(tmp_path, command):
    root = copy(METHOD_TREE if command == "codemods.extract_method" else KV_TREE, tmp_path)
    before = tree_hash(root)
    argv = {"codemods.extract_method": [command, root, *METHOD_ARGS],
            "codemods.extract_kv_dtype": [command, root],
            "equivalence": [command, "--method", "ModelRunner.get_loader", root, root]}[command]
    res = interrupted_while_importing(argv, "torch" if command == "equivalence" else "libcst")
    said = _said(res)
    assert res.returncode == 130, res.stderr[-3000:]
    assert len(said) == 1 and said[0].startswith("equivalence: interrupted" if command == "equivalence"
                                                 else "interrupted; nothing was written"), said
    assert tree_hash(root) == before


# in the child: a Ctrl-C (a real SIGINT to itself) at the chosen point of the run
CTRL_C = """
import os, signal, sys
point = sys.argv[1]
from codemods.core import command, runner

def ctrl_c(real):
    def wrapped(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)
    return wrapped

if point == "planning":
    runner.run_steps = ctrl_c(runner.run_steps)
else:  # the second commit
    real, calls = command.commit, []
    def commit(*args):
        calls.append(1)
        return (ctrl_c(real) if len(calls) == 2 else real)(*args)
    command.commit = commit
from codemods.extract_method.__main__ import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_ctrl_c_while_planning_writes_nothing(tmp_path):
    root = copy(METHOD_TREE, tmp_path)
    before = tree_hash(root)
    res = subprocess.run([sys.executable, "-c", CTRL_C, "planning", str(root), *METHOD_ARGS], cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                         preexec_fn=_sigint_default)
    assert res.returncode == 130 and res.stderr.splitlines()[-1] == "interrupted; nothing was written", res.stderr
    assert "Traceback" not in res.stderr
    assert tree_hash(root) == before


def test_a_ctrl_c_between_commits_says_which_steps_are_committed(tmp_path):
    root = git_tree(METHOD_TREE, tmp_path)
    res = subprocess.run([sys.executable, "-c", CTRL_C, "commit", str(root), *METHOD_ARGS, "--commit"], cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO), **GIT_ENV}, capture_output=True, text=True,
                         preexec_fn=_sigint_default)
    assert res.returncode == 130 and "Traceback" not in res.stderr, res.stderr
    last = res.stderr.splitlines()[-1]
    assert last.startswith("interrupted while committing step 2") and "Committed before it: step 1." in last, last
    assert "Not written: step 3, step 4." in last, last


# --- a new package: a near miss of a sibling is refused, every new one is named -------------

EXPORTER = REPO / "fixtures" / "components" / "exporter"
EXPORTER_METHODS = "init_weights_send_group,send_weights,save_remote_model,get_weights_by_name"


def test_a_new_package_a_typo_of_its_sibling_is_refused_by_extract_method(tmp_path):
    root = copy(METHOD_TREE, tmp_path)
    before = tree_hash(root)
    res = run("codemods.extract_method", root, "ModelRunner.bind_threads",
              "sglang.srt.model_executer.runner_parts.numa")
    assert res.returncode == 2, res.stderr
    line = res.stderr.splitlines()[-1]
    assert line.startswith(f"error: {root / 'sglang/srt/model_executer'}: "), line
    assert "new package model_executer beside model_executor" in line, line
    assert "did you mean sglang.srt.model_executor.runner_parts.numa?" in line, line
    assert tree_hash(root) == before


def test_a_new_package_a_typo_of_its_sibling_is_refused_by_extract_component(tmp_path):
    root = copy(EXPORTER, tmp_path)
    (root / "sglang/srt/model_executor/runner_components").mkdir()
    (root / "sglang/srt/model_executor/runner_components/__init__.py").write_text("")
    before = tree_hash(root)
    res = run("codemods.extract_component", root, "ModelRunner",
              "sglang.srt.model_executor.runner_componets.weight_exporter.WeightExporter",
              "--methods", EXPORTER_METHODS, "--attr", "weight_exporter")
    assert res.returncode == 2, res.stderr
    line = res.stderr.splitlines()[-1]
    assert "new package runner_componets beside runner_components: did you mean " \
           "sglang.srt.model_executor.runner_components.weight_exporter.WeightExporter?" in line, line
    assert tree_hash(root) == before


def test_each_new_package_is_named_and_a_deliberate_one_is_made(tmp_path):
    root = copy(METHOD_TREE, tmp_path / "method")
    res = run("codemods.extract_method", root, "ModelRunner.bind_threads",
              "sglang.srt.model_executor.runner_parts.numa.binding")
    assert res.returncode == 0, res.stderr
    for package in ("sglang.srt.model_executor.runner_parts", "sglang.srt.model_executor.runner_parts.numa"):
        assert f"step 2: new package {package} (" in res.stderr, res.stderr
        assert (root / package.replace(".", "/") / "__init__.py").read_text() == ""
    root = copy(EXPORTER, tmp_path / "component")
    res = run("codemods.extract_component", root, "ModelRunner",
              "sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter",
              "--methods", EXPORTER_METHODS, "--attr", "weight_exporter", "--dry-run")
    assert res.returncode == 0, res.stderr
    assert "step 1: new package sglang.srt.model_executor.model_runner_components (" in res.stderr, res.stderr
    assert "+++ b/sglang/srt/model_executor/model_runner_components/weight_exporter.py" in res.stdout


def test_names_apart_only_by_digits_or_far_apart_are_no_near_miss():
    from codemods.core.packages import near_miss

    assert near_miss("model_executer", ["model_executor", "model_loader"]) == ["model_executor"]
    assert near_miss("triton_3_6_1", ["triton_3_5_1", "triton_3_3_1"]) == []  # a new version's folder
    assert near_miss("model_runner_components", ["model_executor", "model_runner"]) == []
    assert near_miss("gdn_blackwell", ["kda_blackwell"]) == []  # two real siblings of sglang
    assert near_miss("runner_components", ["model_runner_components"]) == []
    assert near_miss("scheduler_componets", ["scheduler_components"]) == ["scheduler_components"]
    assert near_miss("mdoel_executor", ["model_executor"]) == ["model_executor"]  # two letters swapped
