"""The harness in the environments users have: without its extra (torch, hypothesis missing)
one line and exit 2, `--help` still works; with it, a run prints no warning (numpy present)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from equivalence.cli import INSTALL

REPO = Path(__file__).resolve().parent.parent
TREE = str(REPO / "fixtures" / "trees" / "record_call")
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def harness(*args: str, missing: str | None = None, tmp_path: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m equivalence ARGS`, with module `missing` made unimportable the way an absent
    package is (a folder first on PYTHONPATH whose package raises ModuleNotFoundError)."""
    path = [str(REPO)]
    if missing:
        fake = tmp_path / "unimportable" / missing
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "__init__.py").write_text(f'raise ModuleNotFoundError("No module named {missing!r}", name={missing!r})\n')
        path.insert(0, str(fake.parent))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "equivalence", *args], cwd=REPO, env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize("missing", ["torch", "hypothesis"])
@pytest.mark.parametrize("args", [[TREE, TREE], ["--steps", TREE, "--mutants"], ["--steps", TREE, "--fix", "fp4-fallback"],
                                  [TREE, TREE, "--intended", "kv-str-keyerror"]],
                         ids=["two trees", "steps", "fix", "intended"])
def test_without_the_extra_one_line_and_exit_2(tmp_path, missing, args):
    res = harness(*args, missing=missing, tmp_path=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (
        f"equivalence: the harness needs torch and hypothesis, and {missing} is not installed: "
        "pip install 'torch==2.13.0' 'hypothesis>=6.100' numpy 'z3-solver>=4.12' "
        "(or pip install -e '.[equivalence]' in a checkout of sglang-refactor)\n")


def test_help_and_usage_errors_work_without_torch(tmp_path):
    res = harness("--help", missing="torch", tmp_path=tmp_path)
    assert res.returncode == 0 and "exit codes:" in res.stdout and res.stderr == ""
    res = harness(TREE, missing="torch", tmp_path=tmp_path)
    assert res.returncode == 2 and "give either BEFORE AFTER or --steps PATH" in res.stderr
    assert "Traceback" not in res.stderr


def test_the_install_command_installs_the_extra():
    assert shlex.split(INSTALL)[2:] == EXTRAS["equivalence"]


@pytest.mark.parametrize("extra", ["equivalence", "dev"])
def test_the_extras_install_numpy_so_torch_imports_without_a_warning(extra):
    assert "numpy" in EXTRAS[extra] and set(EXTRAS["equivalence"]) <= set(EXTRAS[extra])


def test_torch_without_numpy_warns_so_numpy_is_needed(tmp_path):
    fake = tmp_path / "numpy"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ModuleNotFoundError("No module named \'numpy\'", name="numpy")\n')
    res = subprocess.run([sys.executable, "-c", "import torch"], env={**os.environ, "PYTHONPATH": str(tmp_path)},
                         capture_output=True, text=True)
    assert "Failed to initialize NumPy" in res.stderr


def test_a_run_prints_no_warning():
    res = harness(TREE, TREE)
    assert res.returncode == 0 and "verdict: equivalent" in res.stdout
    assert res.stderr == ""
