"""`--dry-run | git apply` writes exactly what a run writes; stdout holds the diff alone.

On a git checkout made from a real release (PATH its root or its python/), and on a folder
holding `sglang/` outside git; the diff renderer's edge cases (new files, missing trailing
newlines, empty files) are applied by git itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.core.output import diff_base, render_diff
from tests.releases import release_root

REPO = Path(__file__).resolve().parent.parent
VERSION = "0.5.15.post1"
# (module, arguments after PATH): every codemod command whose --dry-run must feed `git apply`
COMMANDS = [pytest.param("codemods.extract_kv_dtype", [], id="extract_kv_dtype"),
            pytest.param("codemods.extract_method", ["ModelRunner.check_quantized_moe_compatibility",
                                                     "sglang.srt.model_executor.model_runner_components.moe_ep_setup"],
                         id="extract_method")]
GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@t"]


def git(cwd: Path, *args: str, input: str | None = None) -> str:
    res = subprocess.run(["git", *GIT_ID, *args], cwd=cwd, input=input, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def codemod(module: str, path: Path, *args: str, ceiling: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "GIT_CEILING_DIRECTORIES": str(ceiling)}
    return subprocess.run([sys.executable, "-m", module, str(path), *args], env=env, capture_output=True, text=True)


HEADER = re.compile(r"diff --git a/(\S+) b/\1|new file mode 100644|--- (a/\S+|/dev/null)|\+\+\+ b/\S+")
HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def diff_files(text: str) -> list[str]:
    """The files a unified diff changes; fails on any line that is not part of a diff."""
    files, old, new = [], 0, 0
    for n, line in enumerate(text.split("\n")[:-1], 1):  # the diff's own line ends only
        if old or new:
            assert line[:1] in " -+\\", f"line {n} is not part of a hunk: {line!r}"
            old -= line[:1] in " -"
            new -= line[:1] in " +"
            continue
        if line.startswith("\\"):
            continue
        hunk = HUNK.fullmatch(line)
        if hunk:
            old, new = (int(c) if c is not None else 1 for c in hunk.groups())
            continue
        header = HEADER.fullmatch(line)
        assert header, f"line {n} is not a diff line: {line!r}"
        if header.group(1):
            files.append(header.group(1))
    assert old == new == 0, "the last hunk is cut short"
    return files


# --- real release ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """CHECKOUT/python/sglang from the release, committed: built once, copied per test."""
    root = tmp_path_factory.mktemp("checkout") / "sglang-checkout"
    shutil.copytree(release_root(VERSION) / "sglang", root / "python" / "sglang")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def clone(checkout: Path, dest: Path) -> Path:
    """A private copy of the checkout (a local clone: objects shared read-only, files written)."""
    git(checkout.parent, "clone", "-q", str(checkout), str(dest))
    return dest


@pytest.fixture(scope="module")
def written(checkout, tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """What a real run leaves in python/ (paths relative to it), per command."""
    out = {}
    for param in COMMANDS:
        module, args = param.values
        work = tmp_path_factory.mktemp("written")
        copy = clone(checkout, work / "checkout")
        res = codemod(module, copy, *args, ceiling=work)
        assert res.returncode == 0 and res.stdout == "", res.stderr
        out[module] = snapshot(copy / "python")
    return out


def changed(written: dict[str, bytes]) -> list[str]:
    """The files a real run changed or made, relative to the folder holding `sglang/`."""
    release = release_root(VERSION)
    return sorted(rel for rel, data in written.items() if not (release / rel).is_file()
                  or (release / rel).read_bytes() != data)


def dry_run_then_apply(module: str, args: list[str], path: Path, apply_in: Path, ceiling: Path) -> list[str]:
    res = codemod(module, path, *args, "--dry-run", ceiling=ceiling)
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip()  # the status lines: there, and (diff_files) none of them on stdout
    files = diff_files(res.stdout)
    git(apply_in, "apply", "--check", input=res.stdout)
    git(apply_in, "apply", input=res.stdout)
    return files


@pytest.mark.parametrize("module, args", COMMANDS)
@pytest.mark.parametrize("where", ["root", "python"], ids=["PATH=checkout", "PATH=checkout/python"])
def test_dry_run_applies_from_the_checkout_root(checkout, written, tmp_path, module, args, where):
    copy = clone(checkout, tmp_path / "checkout")
    path = copy if where == "root" else copy / "python"
    files = dry_run_then_apply(module, args, path, copy, tmp_path)
    assert sorted(files) == [f"python/{rel}" for rel in changed(written[module])]
    assert snapshot(copy) == {f"python/{rel}": data for rel, data in written[module].items()}


@pytest.mark.parametrize("module, args", COMMANDS)
def test_dry_run_outside_git_is_relative_to_path(checkout, written, tmp_path, module, args):
    folder = tmp_path / "unpacked"
    shutil.copytree(release_root(VERSION) / "sglang", folder / "sglang")
    files = dry_run_then_apply(module, args, folder, folder, tmp_path)
    assert sorted(files) == changed(written[module])
    assert snapshot(folder) == written[module]


# --- the renderer's edge cases, applied by git ----------------------------------------------

CASES = {  # id: (path, old text or None for a new file, new text)
    "new file": ("pkg/mod.py", None, "x = 1\n"),
    "new file without a trailing newline": ("pkg/mod.py", None, "x = 1"),
    "empty new file": ("pkg/__init__.py", None, ""),
    "new file in a new folder": ("pkg/new/deeper/mod.py", None, "y = 2\n"),
    "old text without a trailing newline": ("pkg/mod.py", "a = 1\nb = 2", "a = 1\nb = 3\n"),
    "new text loses its trailing newline": ("pkg/mod.py", "a = 1\nb = 2\n", "a = 1\nb = 3"),
    "last line unchanged, newline added": ("pkg/mod.py", "a = 1\nb = 2", "a = 0\nb = 2\n"),
    "form feed and CRLF inside lines": ("pkg/mod.py", "a = 1\x0c\r\nb = 2\n", "a = 1\x0c\r\nb = 3\n"),
}


@pytest.mark.parametrize("rel, old, new", CASES.values(), ids=CASES.keys())
def test_git_apply_writes_the_new_text(tmp_path, rel, old, new):
    git(tmp_path, "init", "-q")
    path = tmp_path / rel
    if old is not None:
        path.parent.mkdir(parents=True)
        path.write_bytes(old.encode())
    diff = "".join(render_diff({path: new}, {path: old}, tmp_path))
    assert diff_files(diff) == [rel]
    git(tmp_path, "apply", input=diff)
    assert path.read_bytes() == new.encode()


def test_diff_base_is_the_git_top_else_path(tmp_path, monkeypatch):
    top = tmp_path / "checkout"
    (top / "python" / "sglang").mkdir(parents=True)
    git(top, "init", "-q")
    link = tmp_path / "link"
    link.symlink_to(top / "python")
    changed = [top / "python" / "sglang" / "m.py"]
    assert diff_base(top / "python", changed) == top.resolve()
    assert diff_base(link, changed) == top.resolve()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    outside = tmp_path / "wheel"
    (outside / "sglang").mkdir(parents=True)
    assert diff_base(outside, [outside / "sglang" / "m.py"]) == outside.resolve()
    # a changed file outside PATH (a checkout's test/ with PATH its python/): their common folder
    assert diff_base(outside / "sglang", [outside / "sglang" / "m.py", outside / "test" / "t.py"]) \
        == outside.resolve()


def test_the_kv_run_compared_changes_the_runner_and_makes_the_module(written):
    assert changed(written["codemods.extract_kv_dtype"]) == [
        "sglang/srt/mem_cache/kv_cache_dtype.py", "sglang/srt/model_executor/model_runner.py"]


def test_the_extract_method_run_compared_makes_a_package(written):
    assert changed(written["codemods.extract_method"]) == [
        "sglang/srt/model_executor/model_runner.py", "sglang/srt/model_executor/model_runner_components/__init__.py",
        "sglang/srt/model_executor/model_runner_components/moe_ep_setup.py"]
