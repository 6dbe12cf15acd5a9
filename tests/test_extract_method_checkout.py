"""extract_method on a git checkout (python/sglang, test/, benchmark/): a moved global is
updated wherever the checkout reads it through the class's module, in the same step."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from codemods.extract_method.__main__ import main
from tests.method_expected import RUNNER, TREES

OLD = '        omp_cpuids = os.environ.get("SGLANG_CPU_OMP_THREADS_BIND", "all")\n'
NEW = '        omp_cpuids = os.environ.get("SGLANG_CPU_OMP_THREADS_BIND", DEFAULT_BIND)\n'
USERS = {
    "test/srt/test_bind.py": ("from sglang.srt.model_executor.model_runner import DEFAULT_BIND\n\n\n"
                              "def test_default():\n    assert DEFAULT_BIND == \"all\"\n"),
    "benchmark/bench_bind.py": ("from unittest import mock\n\nfrom sglang.srt.model_executor import model_runner\n\n"
                                "print(model_runner.DEFAULT_BIND)\n"
                                "with mock.patch(\"sglang.srt.model_executor.model_runner.DEFAULT_BIND\", \"0-3\"):\n"
                                "    pass\n"),
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def test_a_moved_global_is_updated_across_the_checkout(tmp_path, monkeypatch):
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(var, "t@t")
    root = tmp_path / "checkout"
    shutil.copytree(TREES / "method_one_result", root / "python")
    runner = root / "python" / RUNNER
    text = runner.read_text().replace(OLD, NEW).replace('logger = logging.getLogger(__name__)\n',
                                                        'logger = logging.getLogger(__name__)\n\nDEFAULT_BIND = "all"\n')
    runner.write_text(text)
    for rel, code in USERS.items():
        (root / rel).parent.mkdir(parents=True)
        (root / rel).write_text(code)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    assert main([str(root), "ModelRunner.bind_threads", "sglang.srt.utils.numa_utils", "--move-global",
                 "DEFAULT_BIND", "--commit"]) == 0
    assert (root / "test/srt/test_bind.py").read_text().startswith(
        "from sglang.srt.utils.numa_utils import DEFAULT_BIND\n")
    bench = (root / "benchmark/bench_bind.py").read_text()
    assert "numa_utils.DEFAULT_BIND" in bench and "model_runner.DEFAULT_BIND" not in bench
    assert '"sglang.srt.utils.numa_utils.DEFAULT_BIND"' in bench
    moved = git(root, "show", "--name-only", "--format=", "HEAD~2").split()
    assert sorted(moved) == ["benchmark/bench_bind.py", "python/" + RUNNER, "python/sglang/srt/utils/numa_utils.py",
                             "test/srt/test_bind.py"]
    target = (root / "python/sglang/srt/utils/numa_utils.py").read_text()
    assert 'DEFAULT_BIND = "all"' in target and 'DEFAULT_BIND = "all"' not in runner.read_text()
    assert git(root, "status", "--porcelain") == ""


def test_a_run_killed_while_renaming_is_completed_by_the_next(tmp_path):
    import os
    import sys

    root = tmp_path / "tree"
    shutil.copytree(TREES / "method_one_result", root)
    argv = [sys.executable, "-m", "codemods.extract_method", str(root), "ModelRunner.bind_threads",
            "sglang.srt.utils.numa_utils"]
    repo = Path(__file__).resolve().parent.parent
    killed = subprocess.run(argv, cwd=repo, env={**os.environ, "CODEMODS_CRASH_AFTER_RENAMES": "1"})
    assert killed.returncode == 137 and (root / ".extract-refactor.journal").exists()
    again = subprocess.run(argv, cwd=repo, capture_output=True, text=True)
    assert "completed an interrupted run (2 file(s))" in again.stderr and again.returncode == 5
    assert "numa_utils.bind_threads(" in (root / RUNNER).read_text()
    assert not list(root.rglob("*.refactor-tmp")) and not (root / ".extract-refactor.journal").exists()
