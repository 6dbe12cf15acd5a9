"""The README's two set-up commands, as written: the first (install, then scripts/example.sh on a
release) run twice on the same paths gives the same result; the second is what CI runs.

The example runs offline here: the release it names is a wheel made from the `record_call`
fixture (an sglang-shaped tree) that pip "downloads" from a local folder, so the script runs
exactly as the README shows it (pip download, unpack, harness, codemod), only faster. The
script's other source, a tree, is run too on the same paths.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
INSTALL = "pip install -e '.[dev]'"
FIXTURE = REPO / "fixtures" / "trees" / "record_call"
KV_MODULE = Path("sglang/srt/mem_cache/kv_cache_dtype.py")


def setup_commands() -> list[str]:
    section = README.read_text().split("\n## Set-up\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)


def example_command() -> list[str]:
    """The first command's job after the install: [script, VERSION, OUT]."""
    first = setup_commands()[0]
    assert first.startswith(f"{INSTALL} && "), first
    words = shlex.split(first.removeprefix(f"{INSTALL} && "))
    assert len(words) == 3 and words[0] == "scripts/example.sh", words
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.post\d+)?", words[1]), words
    return words


def make_wheel(tree: Path, version: str, dest: Path) -> Path:
    """A wheel of `tree`'s sglang package, named and versioned as PyPI's sglang `version` is."""
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"sglang-{version}-py3-none-any.whl"
    info = f"sglang-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path in sorted((tree / "sglang").rglob("*.py")):
            zf.write(path, path.relative_to(tree).as_posix())
        zf.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: sglang\nVersion: {version}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return wheel


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_two_commands_install_then_run():
    example, tests = setup_commands()
    example_command()
    assert tests == f"{INSTALL} && python -m pytest -q -n auto --dist loadfile --durations=15"


def test_ci_runs_the_readmes_test_command():
    """`.ci/run` installs, then runs the README's test command, word for word."""
    _, tests = setup_commands()
    lines = [line for line in (REPO / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[-1] == tests.removeprefix(f"{INSTALL} && ")
    assert "--durations=15" in lines[-1]
    assert any(re.fullmatch(r"python -m pip install .*-e '\.\[dev\]'", line) for line in lines)


def run(words: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(words, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_the_first_command_twice_on_the_same_paths(tmp_path):
    """The release named by the README, downloaded (from a local folder), then the harness and the
    codemod: run again on the same paths, the same output and the same files (no 'target module
    already present': each run starts from a fresh copy). Then a tree instead of a version, on
    the same paths: the same files again."""
    script, version, _ = example_command()
    out = tmp_path / "example"
    index = tmp_path / "index"
    make_wheel(FIXTURE, version, index)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index)}
    source = files(FIXTURE)
    runs = []
    for _ in range(2):
        proc = run([script, version, str(out)], env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        runs.append((proc.stdout, proc.stderr, files(out)))
    (stdout, stderr, tree), again = runs
    assert again == runs[0]
    assert stdout.splitlines()[-1] == "verdict: equivalent"
    assert f"wrote {out / 'tree' / KV_MODULE}" in stderr
    assert tree["report.md"].startswith(b"## Equivalence check: **equivalent**")
    assert f"tree/{KV_MODULE.as_posix()}" in tree
    assert f"tree/sglang-{version}.dist-info/METADATA" in tree  # the wheel, unpacked

    proc = run([script, str(FIXTURE), str(out)], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == stdout and proc.stderr == stderr
    from_tree = files(out)
    assert from_tree == {k: v for k, v in tree.items() if ".dist-info/" not in k}
    assert files(FIXTURE) == source  # the tree is only read


def test_a_release_pip_cannot_find_stops_before_anything_runs(tmp_path):
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path)}
    proc = run(["scripts/example.sh", "0.0.0", str(tmp_path / "out")], env)
    assert proc.returncode != 0
    assert not (tmp_path / "out" / "report.md").exists() and not (tmp_path / "out" / "tree").exists()
