"""`--git BASE..HEAD` and `--commits BASE..HEAD` on local git checkouts of our fixture trees:
each commit named with its subject, the commit that introduced a divergence, bad input (one
line, exit 2), and nothing left behind: no temporary folder, the repository as it was, also
after SIGINT/SIGTERM to a running process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from equivalence.cli import main
from tests.git_series import (CHANGED_BRANCH, UNREACHABLE_BRANCH, codemod_commits, commit_edit, git, make_checkout,
                              repository_state)

REPO_ROOT = Path(__file__).resolve().parent.parent
TREES = REPO_ROOT / "fixtures" / "trees"
RUNNER = "sglang/srt/model_executor/model_runner.py"


@pytest.fixture(scope="module")
def series(tmp_path_factory) -> Path:
    """original, the codemod's four commits, then a divergent commit and a later divergent one;
    the package at the repository's root (the layout of a folder holding `sglang/`)."""
    pytest.importorskip("codemods.extract_kv_dtype")
    repo = make_checkout(tmp_path_factory.mktemp("git") / "checkout", TREES / "record_call", package_in="")
    codemod_commits(repo)
    commit_edit(repo, CHANGED_BRANCH)
    commit_edit(repo, UNREACHABLE_BRANCH)
    git(repo, "tag", "refactored", "HEAD~2")
    git(repo, "tag", "original", "HEAD~6")
    return repo


@pytest.fixture
def tmpdir_watch(tmp_path, monkeypatch):
    """Temporary files go to a fresh folder, which must be empty again after the command."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert list(folder.iterdir()) == []


def run(args, tmp_path) -> tuple[int, dict | None]:
    out = tmp_path / "report.json"
    code = main([*args, "--json", str(out), "--examples", "20"])
    return code, json.loads(out.read_text()) if out.exists() else None


def test_commits_names_each_commit_and_all_are_equivalent(series, tmp_path, tmpdir_watch, capsys):
    before = repository_state(series)
    code, report = run(["--commits", "original..refactored", str(series)], tmp_path)
    assert code == 0 and report["verdict"] == "equivalent"
    subjects = git(series, "log", "--reverse", "--format=%h %s", "original..refactored").splitlines()
    revisions = report["revisions"]
    assert [f"{c['short']} {c['subject']}" for c in revisions["checked"]] == subjects
    assert [c["verdict"] for c in revisions["checked"]] == ["equivalent"] * 4
    assert revisions["introduced_by"] is None and revisions["mode"] == "commits"
    assert [p["after"] for p in report["pairs"]] == [s.split()[0] for s in subjects]
    assert report["pairs"][0]["before"] == git(series, "rev-parse", "--short=7", "original")
    assert {f["id"] for f in report["findings"]} == {"fp4-fallback-not-auto", "kv-str-keyerror"}
    terminal = capsys.readouterr().out
    for line in subjects:
        short, subject = line.split(" ", 1)
        assert f"-> {short} ({subject}): equivalent" in terminal
    assert repository_state(series) == before


def test_commits_name_the_commit_that_introduced_a_divergence(series, tmp_path, tmpdir_watch, capsys):
    markdown = tmp_path / "pr.md"
    code, report = run(["--commits", "original..HEAD", str(series), "--markdown", str(markdown)], tmp_path)
    assert code == 1 and report["verdict"] == "divergent"
    changed, unreachable = git(series, "log", "--format=%h", "-2").splitlines()[::-1]
    revisions = report["revisions"]
    assert [c["verdict"] for c in revisions["checked"]] == ["equivalent"] * 4 + ["divergent", "inconclusive"]
    assert revisions["introduced_by"] == changed and revisions["also_divergent"] == []
    text = markdown.read_text()
    assert f"**Divergence introduced by `{changed}` {CHANGED_BRANCH[2]}.**" in text
    rows = {row.split(" | ")[1]: row.split(" | ") for row in text.splitlines() if row.startswith("| ")}
    assert rows[f"`{changed}` {CHANGED_BRANCH[2]}"][3] == "divergent"
    assert rows[f"`{unreachable}` {UNREACHABLE_BRANCH[2]}"][3] == "inconclusive"
    assert f"Divergence introduced by {changed} {CHANGED_BRANCH[2]}." in capsys.readouterr().out


def test_later_divergent_commits_are_listed(tmp_path, tmpdir_watch):
    repo = make_checkout(tmp_path / "checkout", TREES / "record_call", package_in="python")
    codemod_commits(repo)
    first = commit_edit(repo, CHANGED_BRANCH)
    second = commit_edit(repo, ('torch.float8_e4m3fn: "fp8_e4m3"', 'torch.float8_e4m3fn: "fp8"', "Name fp8 shortly"))
    code, report = run(["--commits", "HEAD~2..HEAD", str(repo)], tmp_path)
    assert code == 1
    assert report["revisions"]["introduced_by"] == first[:7]
    assert report["revisions"]["also_divergent"] == [second[:7]]


def test_git_checks_base_against_head_in_one_pair(series, tmp_path, tmpdir_watch):
    code, report = run(["--git", "original..refactored", str(series)], tmp_path)
    assert code == 0
    (pair,) = report["pairs"]
    assert (pair["before"], pair["after"]) == (git(series, "rev-parse", "--short=7", "original"),
                                               git(series, "rev-parse", "--short=7", "refactored"))
    assert {c["kind"] for c in pair["classified"]} == {"deferred-writes", "eager-read"}
    assert report["revisions"]["mode"] == "git"
    assert report["revisions"]["checked"][0]["subject"] == git(series, "log", "-1", "--format=%s", "refactored")


def test_path_defaults_to_the_current_folder(series, tmp_path, tmpdir_watch, monkeypatch):
    monkeypatch.chdir(series / "sglang")  # any folder inside the checkout
    code, report = run(["--git", "refactored~1..refactored"], tmp_path)
    assert code == 0 and report["revisions"]["repository"] == str(series)


def test_a_dirty_working_tree_is_allowed_and_said(series, tmp_path, tmpdir_watch, capsys):
    runner = series / RUNNER
    text = runner.read_text()
    runner.write_text(text + "\nraise SystemExit('the working tree is never read')\n")
    try:
        code, _ = run(["--git", "refactored~1..refactored", str(series)], tmp_path)
    finally:
        runner.write_text(text)
    assert code == 0
    (note,) = [line for line in capsys.readouterr().err.splitlines() if "uncommitted" in line]
    assert note == (f"equivalence: note: {series} has uncommitted changes; they are not checked, "
                    "only the revisions of refactored~1..refactored are read")


def _unrelated_commit(repo: Path) -> str:
    """A root commit holding only a README, made without touching the working tree or a ref."""
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input="not sglang\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    tree = subprocess.run(["git", "mktree"], cwd=repo, input=f"100644 blob {blob}\tREADME\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    return git(repo, "commit-tree", tree, "-m", "Unrelated history")


def _bad_inputs(repo: Path, tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    (tmp_path / "plain").mkdir()
    unrelated = _unrelated_commit(repo)
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")
    return {
        "root-commit": (["--commits", f"{unrelated}..HEAD", str(repo)],
                        f"equivalence: {repo}: commit {root[:7]} in {unrelated}..HEAD has no parent to compare it with"),
        "no-package": (["--git", f"{unrelated}..HEAD", str(repo)],
                       f"equivalence: revision {unrelated[:7]} 'Unrelated history' (the range's base): no "
                       "python/sglang/ nor sglang/ folder in it"),
        "not-a-checkout": (["--git", "HEAD~1..HEAD", str(tmp_path / "plain")],
                           f"equivalence: {tmp_path / 'plain'}: not a git checkout (git finds no repository here or above)"),
        "no-such-folder": (["--git", "HEAD~1..HEAD", str(tmp_path / "missing")],
                           f"equivalence: {tmp_path / 'missing'}: no such folder"),
        "unknown-revision": (["--commits", "nosuchbranch..HEAD", str(repo)],
                             f"equivalence: {repo}: unknown revision 'nosuchbranch'"),
        "empty-range": (["--commits", "HEAD..HEAD", str(repo)],
                        f"equivalence: {repo}: empty range HEAD..HEAD: HEAD has no commit that HEAD lacks"),
        "reversed-range": (["--git", "HEAD..HEAD~1", str(repo)],
                           f"equivalence: {repo}: empty range HEAD..HEAD~1: HEAD~1 has no commit that HEAD lacks"),
        "not-a-range": (["--git", "HEAD", str(repo)],
                        "equivalence: expected a range BASE..HEAD (e.g. main..HEAD), got 'HEAD'"),
    }


@pytest.mark.parametrize("case", ["not-a-checkout", "no-such-folder", "unknown-revision", "empty-range",
                                  "reversed-range", "not-a-range", "root-commit", "no-package"])
def test_bad_input_is_one_line_and_exit_2(case, series, tmp_path, tmpdir_watch, capsys):
    args, message = _bad_inputs(series, tmp_path)[case]
    before = repository_state(series)
    code, report = run(args, tmp_path)
    assert (code, report) == (2, None)
    assert capsys.readouterr().err.splitlines() == [message]
    assert repository_state(series) == before


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    """base without the method; then the method; then the class renamed; then the runner gone."""
    repo = make_checkout(tmp_path_factory.mktemp("git") / "broken", TREES / "no_method")
    shutil.copy(TREES / "record_call" / RUNNER, repo / "python" / RUNNER)
    git(repo, "commit", "-qam", "Add configure_kv_cache_dtype")
    runner = repo / "python" / RUNNER
    runner.write_text(runner.read_text().replace("class ModelRunner", "class Runner"))
    git(repo, "commit", "-qam", "Rename the runner class")
    git(repo, "rm", "-q", f"python/{RUNNER}")
    git(repo, "commit", "-qm", "Remove the runner")
    return repo


@pytest.mark.parametrize("args, revision, missing", [
    (["--git", "HEAD~3..HEAD~2"], "HEAD~3",
     "' (the range's base): python/sglang/srt/model_executor/model_runner.py:{line}: ModelRunner has no method "
     "configure_kv_cache_dtype and no call of an extracted configure_kv_cache_dtype(...) (if the function has "
     "another name, pass --name FUNCTION)"),
    (["--commits", "HEAD~2..HEAD~1"], "HEAD~1",
     "': python/sglang/srt/model_executor/model_runner.py: no class ModelRunner at module level"),
    (["--commits", "HEAD~3..HEAD~1"], "HEAD~3",
     "' (the range's base): python/sglang/srt/model_executor/model_runner.py:{line}: ModelRunner has no method "
     "configure_kv_cache_dtype and no call of an extracted configure_kv_cache_dtype(...) (if the function has "
     "another name, pass --name FUNCTION)"),
    (["--git", "HEAD~2..HEAD"], "HEAD",
     "': python/sglang/srt/model_executor/model_runner.py does not exist"),
], ids=["base-without-method", "class-renamed", "first-bad-revision-named", "runner-removed"])
def test_a_revision_without_the_class_or_method_is_named(args, revision, missing, broken, tmp_path, tmpdir_watch,
                                                         capsys):
    before = repository_state(broken)
    code, report = run([*args, str(broken)], tmp_path)
    assert (code, report) == (2, None)
    short, subject = git(broken, "log", "-1", "--format=%h\t%s", revision).split("\t")
    (line,) = capsys.readouterr().err.splitlines()
    if "{line}" in missing:
        source = git(broken, "show", f"{revision}:python/{RUNNER}").splitlines()
        missing = missing.format(line=next(i for i, text in enumerate(source, 1) if text.startswith("class ")))
    assert line == f"equivalence: revision {short} '{subject}" + missing
    assert repository_state(broken) == before


# --- interrupted for real: a subprocess, stopped while its versions are in its temporary folder ---

@pytest.mark.parametrize("flow", ["commits", "steps"])
@pytest.mark.parametrize("signum, exit_code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_leaves_nothing_behind(flow, signum, exit_code, series, tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    before = repository_state(series)
    args = ["--commits", "original..HEAD", str(series)] if flow == "commits" else ["--steps", str(TREES / "record_call")]
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(REPO_ROOT)}
    # a shell's background job (`cmd &`) inherits SIGINT ignored, and Python then raises no
    # KeyboardInterrupt: the child gets the disposition of a terminal's foreground process
    proc = subprocess.Popen([sys.executable, "-m", "equivalence", *args],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not any(scratch.glob("equivalence-*/*/sglang/srt/model_executor/model_runner.py")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == exit_code, err
    assert err.splitlines()[-1] == "equivalence: interrupted; temporary files removed"
    assert list(scratch.iterdir()) == []
    assert repository_state(series) == before


@pytest.mark.parametrize("args, message", [
    (["--git", "a..b", "one", "two"], "--git/--commits BASE..HEAD take one PATH"),
    (["--git", "a..b", "--steps", "one"], "--git/--commits BASE..HEAD take one PATH"),
    (["--git", "a..b", "--commits", "a..b"], "not allowed with argument"),
    (["--commits", "a..b", "--intended", "kv-str-keyerror"], "--intended goes with BEFORE AFTER or --git"),
    (["--git", "a..b", "--fix", "fp4-fallback"], "--fix goes with --steps PATH"),
], ids=["two-paths", "with-steps", "git-and-commits", "intended-with-commits", "fix"])
def test_usage_errors(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


# --- --method: the generic engine on revisions (an extraction made by hand on fixtures/methods) ---

@pytest.fixture(scope="module")
def method_series(tmp_path_factory) -> Path:
    from tests.method_trees import FIXTURE, NUMA, _extract

    repo = make_checkout(tmp_path_factory.mktemp("git") / "methods", FIXTURE)
    _extract(repo / "python", "threads")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Extract ModelRunner.init_threads_binding into numa_utils")
    numa = repo / "python" / NUMA
    text = numa.read_text()
    assert text.count("tp_size > ") == 1
    numa.write_text(text.replace("tp_size > ", "tp_size >= "))
    git(repo, "commit", "-qam", "Warn from as many ranks as NUMA nodes")
    return repo


def test_method_commits_name_the_commit_that_introduced_a_divergence(method_series, tmp_path, tmpdir_watch):
    code, report = run(["--method", "ModelRunner.init_threads_binding", "--commits", "HEAD~2..HEAD",
                        str(method_series)], tmp_path)
    assert code == 1
    extract, edit = git(method_series, "log", "--reverse", "--format=%h", "-2").splitlines()
    assert [c["verdict"] for c in report["revisions"]["checked"]] == ["equivalent", "divergent"]
    assert report["revisions"]["introduced_by"] == edit
    assert report["pairs"][0]["static"]["residuals"] == []


def test_method_git_base_to_head_and_a_missing_method(method_series, tmp_path, tmpdir_watch, capsys):
    code, report = run(["--method", "ModelRunner.init_threads_binding", "--git", "HEAD~2..HEAD~1",
                        str(method_series)], tmp_path)
    assert code == 0 and report["verdict"] == "equivalent"
    (tmp_path / "missing").mkdir()
    code, report = run(["--method", "ModelRunner.no_such_method", "--git", "HEAD~2..HEAD~1", str(method_series)],
                       tmp_path / "missing")
    assert (code, report) == (2, None)
    base = git(method_series, "log", "-1", "--format=%h", "HEAD~2")
    (line,) = capsys.readouterr().err.splitlines()[-1:]
    assert line.startswith(f"equivalence: revision {base} 'original' (the range's base): "
                           "python/sglang/srt/model_executor/model_runner.py:")
    assert line.endswith("ModelRunner has no method no_such_method and no call of an extracted no_such_method(...) "
                         "(if the function has another name, pass --name FUNCTION)")
