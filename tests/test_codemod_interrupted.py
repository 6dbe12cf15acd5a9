"""Interrupted runs, killed for real, and the bad inputs' "nothing left behind" in full.

A real subprocess runs the command line; a hook injected into *that* process (nothing in the
codemod is changed for the test) stops it at a chosen point of the write (journal says
"writing" but no temp yet, after the first temp file, journal says "renaming" but no rename
yet, between the two renames, after both renames) by writing a marker and sleeping; the
test then SIGKILLs it from outside.  After the kill the tree must
be as before or as after (the only in-between state allowed is a new module that nothing
imports yet, with the journal that finishes it), and a re-run must complete it and leave no
temp or journal file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codemods.extract_kv_dtype.__main__ import main
from codemods.core.writer import JOURNAL, TMP_SUFFIX
from tests.codemod_expected import RUNNER, TARGET, TREES

REPO = Path(__file__).resolve().parent.parent
SHAPE = "record_dflash"

# Runs in the child before the codemod: at the chosen point, say so and wait to be killed.
HOOK = textwrap.dedent("""
    import os, pathlib, sys, time
    point, marker, root = sys.argv[1], sys.argv[2], sys.argv[3]
    renames = []

    def stop():
        pathlib.Path(marker).write_text("stopped")
        time.sleep(120)  # killed from outside long before this ends
        os._exit(99)

    real_fsync, real_replace, real_unlink = os.fsync, os.replace, pathlib.Path.unlink

    def fsync(fd):
        real_fsync(fd)
        name = os.readlink(f"/proc/self/fd/{fd}")
        if point == "after-first-temp" and name.endswith(%(tmp)r) and %(journal)r not in name:
            stop()

    def replace(src, dst):
        if pathlib.Path(dst).name != %(journal)r:
            renames.append(dst)
            if point == "after-journal" and len(renames) == 1:
                stop()
            if point == "between-renames" and len(renames) == 2:
                stop()
        real_replace(src, dst)
        if point == "before-temps" and pathlib.Path(dst).name == %(journal)r:
            stop()

    def unlink(self, *a, **k):
        if point == "after-renames" and self.name == %(journal)r:
            stop()
        return real_unlink(self, *a, **k)

    os.fsync, os.replace, pathlib.Path.unlink = fsync, replace, unlink
    from codemods.extract_kv_dtype.__main__ import main
    sys.exit(main([root]))
""") % {"journal": JOURNAL, "tmp": TMP_SUFFIX}


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def dirs(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir()}


def leftovers(root: Path) -> list[str]:
    return [k for k in files(root) if k.endswith(TMP_SUFFIX) or Path(k).name == JOURNAL]


def visible(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in files(root).items() if not (k.endswith(TMP_SUFFIX) or Path(k).name == JOURNAL)}


def refactored(tmp_path: Path) -> dict[str, bytes]:
    """The tree after an uninterrupted run (computed, not read from fixtures)."""
    ref = tmp_path / "reference"
    shutil.copytree(TREES / SHAPE, ref)
    assert main([str(ref)]) == 0
    return files(ref)


def run_until_killed(root: Path, point: str, tmp_path: Path) -> None:
    marker = tmp_path / f"stopped-{point}"
    proc = subprocess.Popen([sys.executable, "-c", HOOK, point, str(marker), str(root)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {point}: {proc.returncode} {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"never reached {point}")
        time.sleep(0.02)
    proc.kill()  # SIGKILL: no handler, no finally, no cleanup
    proc.wait(timeout=30)
    assert proc.returncode == -9


@pytest.mark.parametrize("point", ["before-temps", "after-first-temp", "after-journal", "between-renames", "after-renames"])
def test_killed_run_leaves_before_or_after_and_a_rerun_completes_it(tmp_path, point):
    root = tmp_path / "tree"
    shutil.copytree(TREES / SHAPE, root)
    before = files(root)
    after = refactored(tmp_path)
    assert set(after) == set(before) | {TARGET} and after[RUNNER] != before[RUNNER]

    run_until_killed(root, point, tmp_path)
    now = visible(root)
    orphan_module = {**before, TARGET: after[TARGET]}  # new module first, nothing imports it yet
    state = {id(before): "before", id(after): "after", id(orphan_module): "orphan"}
    matches = [state[id(s)] for s in (before, after, orphan_module) if now == s]
    assert matches, f"killed {point}: the tree is half-written: {sorted(now)}"
    assert now[RUNNER] in (before[RUNNER], after[RUNNER])
    if now[RUNNER] == before[RUNNER] and TARGET in now:
        # the runner does not import the new module yet: behaviour is the old one
        assert b"kv_cache_dtype import" not in now[RUNNER] and b"from sglang.srt.mem_cache import" not in now[RUNNER]
        assert (root / JOURNAL).exists(), "an orphan module without a journal would never be completed"

    res = subprocess.run([sys.executable, "-m", "codemods.extract_kv_dtype", str(root)], cwd=REPO,
                         capture_output=True, text=True)
    assert res.returncode in (0, 5), res.stderr
    if point in ("before-temps", "after-first-temp"):
        assert "rolled back an interrupted run" in res.stderr and res.returncode == 0
    else:
        assert "completed an interrupted run" in res.stderr and res.returncode == 5
    assert files(root) == after, f"after a re-run following a kill {point}"
    assert not leftovers(root)
    res = subprocess.run([sys.executable, "-m", "codemods.extract_kv_dtype", str(root)], cwd=REPO,
                         capture_output=True, text=True)
    assert res.returncode == 5 and "already applied" in res.stderr


# --- bad inputs: no file changed, no temp file, no folder left behind -----------------------


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(TREES / SHAPE, root)
    return root


def _break_syntax(root: Path) -> None:
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace("    def get_loader(self)", "    def get_loader(self", 1))


def _target_taken(root: Path) -> None:
    (root / TARGET).parent.mkdir(parents=True)
    (root / TARGET).write_text("# someone else's module\n")


def _halfway(root: Path) -> None:
    from codemods.extract_kv_dtype import refactor, write_plan

    write_plan(refactor(root, range(1, 3)))


BAD_TREES = {
    # id: (prepare, argv after PATH, exit code, words of the message)
    "syntax-error": (_break_syntax, [], 2, ["syntax error", RUNNER]),
    "target-present-other-content": (_target_taken, [], 2, ["already present with other content", TARGET]),
    "halfway-run-with-all-steps": (_halfway, ["--steps", "1-4"], 2, ["steps 1-2 are already applied", "--steps 3-4"]),
    "steps-beyond-the-tree": (lambda root: None, ["--steps", "3-4"], 2, ["run --steps 1-"]),
}


@pytest.mark.parametrize("case", BAD_TREES)
def test_bad_tree_changes_nothing_and_leaves_nothing(tmp_path, capsys, case):
    prepare, argv, code, words = BAD_TREES[case]
    root = _tree(tmp_path)
    prepare(root)
    before_files, before_dirs = files(root), dirs(root)
    assert main([str(root), *argv]) == code
    err = capsys.readouterr().err
    for word in words:
        assert word in err, err
    assert files(root) == before_files and dirs(root) == before_dirs


def test_read_only_folder_even_as_root(tmp_path, capsys, monkeypatch):
    """Twin of the chmod test skipped as root: the folder that would get the new module is read-only."""
    root = _tree(tmp_path)
    before_files, before_dirs = files(root), dirs(root)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if mode == os.W_OK and Path(p).is_dir()
                        else real_access(p, mode))
    assert main([str(root)]) == 2
    err = capsys.readouterr().err
    assert "read-only" in err and str(root) in err
    monkeypatch.undo()
    assert files(root) == before_files and dirs(root) == before_dirs


def test_failed_write_leaves_no_temp_file_and_no_new_folder(tmp_path, capsys, monkeypatch):
    """A write that fails half way (disk full on the second temp file) restores everything."""
    root = _tree(tmp_path)
    before_files, before_dirs = files(root), dirs(root)
    real_fsync = os.fsync
    calls = []

    def full(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    assert main([str(root)]) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("error: ") and "No space left on device" in err and "restored" in err
    assert "Traceback" not in err
    assert files(root) == before_files and dirs(root) == before_dirs


def test_kill_while_writing_leaves_nothing_after_the_next_run_even_a_refused_one(tmp_path, capsys):
    """Killed while writing temps: the next run rolls back first, whatever it then does."""
    root = _tree(tmp_path)
    before_files, before_dirs = files(root), dirs(root)
    run_until_killed(root, "after-first-temp", tmp_path)
    assert leftovers(root) and visible(root) == before_files
    assert main([str(root), "--steps", "3-4"]) == 2  # refused for another reason
    out = capsys.readouterr()
    assert "rolled back an interrupted run" in out.err and "run --steps 1-" in out.err
    assert files(root) == before_files and dirs(root) == before_dirs


def test_a_journal_of_the_earlier_format_is_still_completed(tmp_path):
    import json

    from codemods.core.writer import recover

    root = _tree(tmp_path)
    target = root / TARGET
    target.parent.mkdir(parents=True)
    tmp = target.with_name(f".{target.name}{TMP_SUFFIX}")
    tmp.write_text("X = 1\n")
    (root / JOURNAL).write_text(json.dumps([[str(tmp), str(target)]]))
    assert "completed" in recover(root)
    assert target.read_text() == "X = 1\n" and not leftovers(root)


def test_dry_run_on_an_interrupted_tree_says_so(tmp_path, capsys):
    """--dry-run does not recover (it writes nothing): it must not misread the half-done tree."""
    root = _tree(tmp_path)
    run_until_killed(root, "between-renames", tmp_path)
    half = files(root)
    assert main([str(root), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "interrupted run" in err and JOURNAL in err and "without --dry-run" in err
    assert "other content" not in err
    assert files(root) == half
