"""Command line: bad inputs (message, exit code, nothing changed, no temp file), dry run, commits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.extract_kv_dtype.__main__ import main
from tests.codemod_expected import RUNNER, TARGET, TREES, expected_files

REPO = Path(__file__).resolve().parent.parent


def tree(tmp_path: Path, shape: str = "record_dflash") -> Path:
    dest = tmp_path / "tree"
    shutil.copytree(TREES / shape, dest)
    return dest


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and ".git" not in p.parts}


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_missing_path(tmp_path, capsys):
    code, _, err = run([tmp_path / "nope"], capsys)
    assert code == 2 and "nope" in err and "no such file or directory" in err


def test_path_is_a_file(tmp_path, capsys):
    f = tmp_path / "f.py"
    f.write_text("x = 1\n")
    code, _, err = run([f], capsys)
    assert code == 2 and "not a directory" in err
    assert f.read_text() == "x = 1\n"


def test_not_an_sglang_tree(tmp_path, capsys):
    code, _, err = run([tmp_path], capsys)
    assert code == 2 and "not an sglang tree" in err
    assert not list(tmp_path.iterdir())


def test_syntax_error_names_file_and_line(tmp_path, capsys):
    root = tree(tmp_path)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace("    def get_loader(self)", "    def get_loader(self", 1))
    before = snapshot(root)
    code, _, err = run([root], capsys)
    assert code == 2 and f"{runner}:" in err and "syntax error" in err
    assert snapshot(root) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_runner(tmp_path, capsys):
    root = tree(tmp_path)
    (root / RUNNER).chmod(0)
    try:
        code, _, err = run([root], capsys)
    finally:
        (root / RUNNER).chmod(0o644)
    assert code == 2 and "permission denied" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_read_only_tree(tmp_path, capsys):
    root = tree(tmp_path)
    before = snapshot(root)
    folders = [p for p in root.rglob("*") if p.is_dir()] + [root]
    for p in folders:
        p.chmod(0o555)
    try:
        code, _, err = run([root], capsys)
    finally:
        for p in folders:
            p.chmod(0o755)
    assert code == 2 and "read-only" in err
    assert snapshot(root) == before


def test_read_only_runner_file(tmp_path, capsys, monkeypatch):
    root = tree(tmp_path)
    before = snapshot(root)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).endswith("model_runner.py")
                        and mode == os.W_OK else real_access(p, mode))
    code, _, err = run([root], capsys)
    assert code == 2 and "model_runner.py" in err and "read-only" in err
    assert snapshot(root) == before


def test_target_module_present_with_other_content(tmp_path, capsys):
    root = tree(tmp_path)
    target = root / TARGET
    target.parent.mkdir(parents=True)
    target.write_text("# someone else's module\n")
    before = snapshot(root)
    code, _, err = run([root], capsys)
    assert code == 2 and "already present with other content" in err and str(target) in err
    assert snapshot(root) == before


def test_halfway_tree_run_with_all_steps(tmp_path, capsys):
    root = tree(tmp_path)
    for rel, text in expected_files("record_dflash", 2).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    before = snapshot(root)
    code, _, err = run([root, "--steps", "1-4"], capsys)
    assert code == 2 and "steps 1-2 are already applied" in err and "--steps 3-4" in err
    assert snapshot(root) == before
    code, _, _ = run([root, "--steps", "3-4"], capsys)
    assert code == 0 and (root / RUNNER).read_text() == expected_files("record_dflash", 4)[RUNNER]


def test_steps_beyond_the_tree(tmp_path, capsys):
    root = tree(tmp_path)
    before = snapshot(root)
    code, _, err = run([root, "--steps", "3-4"], capsys)
    assert code == 2 and "run --steps 1-" in err
    assert snapshot(root) == before


def test_bad_steps_syntax(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main([str(tree(tmp_path)), "--steps", "4-2"])
    assert exc.value.code == 2


def test_already_applied_and_no_method_exit_codes(tmp_path, capsys):
    root = tree(tmp_path)
    assert run([root], capsys)[0] == 0
    code, _, err = run([root], capsys)
    assert code == 5 and "already applied" in err
    old = tmp_path / "old"
    shutil.copytree(TREES / "no_method", old)
    code, _, err = run([old], capsys)
    assert code == 4 and "predates" in err


def test_dry_run_prints_a_diff_and_writes_nothing(tmp_path, capsys):
    root = tree(tmp_path)
    before = snapshot(root)
    code, out, err = run([root, "--dry-run"], capsys)
    assert code == 0 and "recognised shape: record_dflash" in err and "recognised" not in out
    assert out.startswith(f"diff --git a/{RUNNER} b/{RUNNER}\n")
    assert f"--- /dev/null\n+++ b/{TARGET}" in out and f"--- a/{RUNNER}" in out
    assert "+from sglang.srt.mem_cache import kv_cache_dtype" in out
    assert snapshot(root) == before


def test_checkout_layout_is_found(tmp_path, capsys):
    checkout = tmp_path / "checkout"
    shutil.copytree(TREES / "record_call", checkout / "python")
    code, out, err = run([checkout], capsys)
    assert code == 0 and f"found {checkout / 'python' / RUNNER}" in err.replace(str(checkout.resolve()), str(checkout))
    assert out == "" and f"wrote {(checkout / 'python' / TARGET).resolve()}" in err


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def test_commit_outside_git(tmp_path, capsys):
    root = tree(tmp_path)
    before = snapshot(root)
    env_ceiling = os.environ.get("GIT_CEILING_DIRECTORIES")
    os.environ["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    try:
        code, _, err = run([root, "--commit"], capsys)
    finally:
        if env_ceiling is None:
            del os.environ["GIT_CEILING_DIRECTORIES"]
        else:
            os.environ["GIT_CEILING_DIRECTORIES"] = env_ceiling
    assert code == 2 and "not inside one" in err
    assert snapshot(root) == before


def _git_tree(tmp_path: Path) -> Path:
    root = tree(tmp_path)
    git(root, "init", "-q")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return root


def test_commit_on_dirty_tree(tmp_path, capsys):
    root = _git_tree(tmp_path)
    (root / RUNNER).write_text((root / RUNNER).read_text() + "# local edit\n")
    before = snapshot(root)
    code, _, err = run([root, "--commit"], capsys)
    assert code == 2 and "clean working tree" in err
    assert snapshot(root) == before


def test_commit_makes_one_commit_per_step(tmp_path, capsys, monkeypatch):
    root = _git_tree(tmp_path)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@t")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@t")
    code, out, err = run([root, "--commit"], capsys)
    assert code == 0 and out == "" and err.count("committed step ") == 4
    subjects = git(root, "log", "--format=%s").splitlines()
    assert len(subjects) == 5 and subjects[-1] == "base"
    assert "static method" in subjects[3]
    assert git(root, "status", "--porcelain") == ""
    assert (root / RUNNER).read_text() == expected_files("record_dflash", 4)[RUNNER]


def test_git_failure_part_way_says_which_steps_are_committed(tmp_path, capsys, monkeypatch):
    import codemods.core.command as cli
    from codemods.core.errors import BadInput

    root = _git_tree(tmp_path)
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    real = cli.commit
    calls = []

    def third_fails(root, paths, subject):
        calls.append(subject)
        if len(calls) == 3:
            raise BadInput("git commit failed: hook said no", root)
        real(root, paths, subject)

    monkeypatch.setattr(cli, "commit", third_fails)
    code, out, err = run([root, "--commit"], capsys)
    assert code == 2 and "git commit failed: hook said no" in err
    assert "step 3's changes are written to the working tree but not committed" in err
    assert "Committed before it: step 1, step 2." in err and "Not written: step 4." in err
    assert len(git(root, "log", "--format=%s").splitlines()) == 3


def test_dry_run_into_a_closed_pipe_stops_quietly(tmp_path):
    root = tree(tmp_path)
    before = snapshot(root)
    proc = subprocess.Popen([sys.executable, "-m", "codemods.extract_kv_dtype", "--dry-run", str(root)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before the diff comes (like `| head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait() == 141 and "recognised shape" in err  # status lines only: no error, no traceback
    assert "error" not in err.lower() and "Traceback" not in err
    assert snapshot(root) == before


def test_a_failing_stdout_is_not_reported_as_a_restored_write(tmp_path, capsys, monkeypatch):
    root = tree(tmp_path)

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys.stdout, "writelines", full)
    code, _, err = run([root, "--dry-run"], capsys)
    assert code == 2 and "No space left on device" in err and "restored" not in err


@pytest.mark.parametrize("crash_after", [1])
def test_interrupted_between_renames_then_completed(tmp_path, crash_after):
    root = tree(tmp_path)
    before = snapshot(root)
    env = {**os.environ, "CODEMODS_CRASH_AFTER_RENAMES": str(crash_after)}
    res = subprocess.run([sys.executable, "-m", "codemods.extract_kv_dtype", str(root)], cwd=REPO, env=env)
    assert res.returncode == 137
    # The new module went first: the runner is untouched, the module is an orphan nothing imports.
    assert (root / RUNNER).read_bytes() == before[RUNNER]
    assert (root / TARGET).read_text() == expected_files("record_dflash", 4)[TARGET]
    res = subprocess.run([sys.executable, "-m", "codemods.extract_kv_dtype", str(root)], cwd=REPO,
                         capture_output=True, text=True)
    assert "completed an interrupted run" in res.stderr and res.stdout == ""
    assert res.returncode == 5  # the journal finished the write: already applied
    after = snapshot(root)
    assert {k: v.decode() for k, v in after.items() if k in (RUNNER, TARGET)} == expected_files("record_dflash", 4)
    assert not [k for k in after if "tmp" in k or "journal" in k]


def test_failure_during_renames_restores_the_tree(tmp_path, monkeypatch):
    from codemods.extract_kv_dtype import refactor, write_plan

    root = tree(tmp_path)
    before = snapshot(root)
    plan = refactor(root)
    real_replace = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OSError):
        write_plan(plan)
    assert snapshot(root) == before
    assert not (root / "sglang/srt/mem_cache").exists()


def test_help_explains_everything(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for word in ("--steps", "--dry-run", "--commit", "--no-format", "exit codes", "already applied"):
        assert word in out


def test_unreadable_runner_even_as_root(tmp_path, capsys, monkeypatch):
    root = tree(tmp_path)
    before = snapshot(root)
    real = Path.read_text

    def deny(self, *a, **k):
        if self.name == "model_runner.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "read_text", deny)
    code, _, err = run([root], capsys)
    assert code == 2 and "model_runner.py" in err and "permission denied" in err
    monkeypatch.undo()
    assert snapshot(root) == before
