"""The kv command on a whole checkout: files outside the package that use the moved table
(`test/`, `benchmark/`, `scripts/`) are updated in step 2, or the run refuses naming them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from codemods.extract_kv_dtype.__main__ import main
from tests.checkouts import FIXTURES, git_init, write_tree

TREES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"
USERS = FIXTURES / "kv_table_users"
RUNNER = "python/sglang/srt/model_executor/model_runner.py"


def checkout(tmp_path: Path, git: bool = True) -> Path:
    root = tmp_path / "sglang-checkout"
    shutil.copytree(TREES / "record_call", root / "python")
    shutil.copytree(USERS / "before", root, dirs_exist_ok=True)
    if git:
        git_init(root)
    return root


def texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.py"))}


def expected_users() -> dict[str, str]:
    return texts(USERS / "after")


@pytest.mark.parametrize("where", ["checkout", "python-folder", "package-folder"])
def test_files_outside_the_package_are_updated(tmp_path, capsys, where):
    root = checkout(tmp_path)
    typed = {"checkout": root, "python-folder": root / "python", "package-folder": root / "python/sglang"}[where]
    assert main([str(typed)]) == 0
    after = texts(root)
    assert {rel: after[rel] for rel in expected_users()} == expected_users()
    assert after["scripts/unrelated.py"] == (USERS / "before/scripts/unrelated.py").read_text()
    assert f"wrote {root.resolve() / 'test/srt/test_kv.py'}" in capsys.readouterr().err
    assert main([str(typed)]) == 5 and texts(root) == after  # already applied, nothing changes


def test_dry_run_shows_the_checkout_files_and_writes_nothing(tmp_path, capsys):
    root = checkout(tmp_path)
    before = texts(root)
    assert main([str(root), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert texts(root) == before
    assert f"--- a/{RUNNER}" in out and "+++ b/python/sglang/srt/mem_cache/kv_cache_dtype.py" in out
    assert "--- a/test/srt/test_kv.py" in out and "--- a/benchmark/kv/bench_kv_strings.py" in out
    assert '+        "sglang.srt.mem_cache.kv_cache_dtype.TORCH_DTYPE_TO_KV_CACHE_STR",' in out
    assert "+from sglang.srt.mem_cache.kv_cache_dtype import TORCH_DTYPE_TO_KV_CACHE_STR" in out
    assert "unrelated.py" not in out


def test_commit_puts_the_checkout_files_in_step_2(tmp_path, capsys):
    root = checkout(tmp_path)
    assert main([str(root), "--commit"]) == 0
    step2 = subprocess.run(["git", "show", "--format=%s", "--name-only", "HEAD~2"], cwd=root, check=True,
                           capture_output=True, text=True).stdout.split()
    assert step2[0] == "Move" and {"test/srt/test_kv.py", "benchmark/kv/bench_kv_strings.py",
                                   "scripts/check_kv_table.py"} <= set(step2)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, check=True, capture_output=True,
                            text=True).stdout
    assert status == ""


def test_outside_git_the_folder_typed_is_the_checkout(tmp_path):
    root = checkout(tmp_path, git=False)
    assert main([str(root)]) == 0
    assert texts(root)["test/srt/test_kv.py"] == expected_users()["test/srt/test_kv.py"]


def test_outside_git_the_python_folder_typed_leaves_its_siblings(tmp_path, capsys):
    root = checkout(tmp_path, git=False)
    before = (root / "test/srt/test_kv.py").read_text()
    assert main([str(root / "python")]) == 0
    assert (root / "test/srt/test_kv.py").read_text() == before


def test_references_that_cannot_be_updated_are_all_refused_with_nothing_written(tmp_path, capsys):
    root = checkout(tmp_path)
    write_tree(root, {
        "test/srt/test_hip.py": "from unittest import mock\n\n\n"
                                "@mock.patch(\"sglang.srt.model_executor.model_runner._is_hip\", True)\n"
                                "def test_hip():\n    pass\n",
        "benchmark/star.py": "from sglang.srt.model_executor.model_runner import *\n\n"
                             "print(TORCH_DTYPE_TO_KV_CACHE_STR)\n"})
    before = texts(root)
    assert main([str(root)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: 2 places the refactoring cannot update:\n")
    assert f"{root.resolve() / 'benchmark/star.py'}:1: `from sglang.srt.model_executor.model_runner import *`" in err
    assert (f"{root.resolve() / 'test/srt/test_hip.py'}:4: patches sglang.srt.model_executor.model_runner._is_hip, "
            f"but configure_kv_cache_dtype will read _is_hip from sglang.srt.mem_cache.kv_cache_dtype: patch "
            f"\"sglang.srt.mem_cache.kv_cache_dtype._is_hip\" instead") in err
    assert texts(root) == before
    assert not (root / "python/sglang/srt/mem_cache").exists()
