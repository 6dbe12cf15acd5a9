"""A PATH that is missing, a file, or no sglang tree: the codemods' one line, exit 2, at once
(checked before torch is imported)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pysource import layout

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / "fixtures" / "trees" / "record_call"
RUNNER = "sglang/srt/model_executor/model_runner.py"
METHOD = ["--method", "ModelRunner.configure_kv_cache_dtype"]


def _not_a_tree(path: Path) -> str:
    with pytest.raises(layout.NotASourceTree) as e:
        layout.find_root(path, RUNNER)
    return f"{path}: {e.value}"


def cases(tmp_path: Path) -> list[tuple[list[str], str]]:
    """(arguments, the line on stderr)."""
    missing, file, empty = tmp_path / "missing", tmp_path / "file", tmp_path / "empty"
    file.write_text("")
    empty.mkdir()
    return [
        ([str(missing), str(TREE)], f"{missing}: no such file or directory"),
        ([str(TREE), str(file)], f"{file}: {layout.not_a_folder(file)}"),
        ([str(empty), str(TREE)], _not_a_tree(empty)),
        (["--steps", str(missing)], f"{missing}: no such file or directory"),
        (["--steps", str(file)], f"{file}: {layout.not_a_folder(file)}"),
        (["--steps", str(empty)], _not_a_tree(empty)),
        ([*METHOD, str(TREE), str(missing)], f"{missing}: no such file or directory"),
        ([*METHOD, str(file), str(TREE)], f"{file}: {layout.not_a_folder(file)}"),
        ([*METHOD, "--steps", str(missing), "--to", "sglang.srt.mem_cache.kv_cache_dtype"],
         f"{missing}: no such file or directory"),
        ([*METHOD, str(empty), str(TREE)],
         f"{empty}: no module defining class ModelRunner here (looked in the packages of {empty}, {empty / 'python'})"),
        (["--git", "HEAD~1..HEAD", str(missing)], f"{missing}: no such folder"),
        (["--commits", "HEAD~1..HEAD", str(empty)],
         f"{empty}: not a git checkout (git finds no repository here or above)"),
    ]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`equivalence.cli.main(argv)` in a fresh interpreter; prints the exit code and whether
    torch (or hypothesis) got imported."""
    code = ("import sys; from equivalence.cli import main; code = main(sys.argv[1:]); "
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'hypothesis'}))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env=env, capture_output=True, text=True)


def test_each_bad_path_is_one_line_and_exit_2_without_importing_torch(tmp_path):
    for argv, line in cases(tmp_path):
        res = _run(argv, tmp_path)
        assert res.stderr == f"equivalence: {line}\n", argv
        assert res.stdout == "2 []\n", argv


@pytest.mark.parametrize("argv", [["missing", "missing2"], ["--steps", "file"], [*METHOD, "missing", "missing2"]],
                         ids=["two trees", "steps", "method"])
def test_a_bad_path_is_refused_in_well_under_two_seconds(tmp_path, argv):
    (tmp_path / "file").write_text("")
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "equivalence", *argv], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    assert res.returncode == 2 and res.stdout == "" and res.stderr.count("\n") == 1, res.stderr
    assert elapsed < 2, f"{elapsed:.1f} s"
