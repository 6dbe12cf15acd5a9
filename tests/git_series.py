"""Local git checkouts for the `--git` / `--commits` tests: a tree committed as "original", the
codemod's four commits on top (`codemods.extract_kv_dtype --commit`), and our own edits as
further commits. Also a snapshot of everything a read-only command must leave as it was."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
from pathlib import Path

KV_MODULE = "sglang/srt/mem_cache/kv_cache_dtype.py"

# Our own edits of the moved function (step 4's output), each one commit.
CHANGED_BRANCH = ('kv_cache_quant_algo.upper() == "FP8"', 'kv_cache_quant_algo == "FP8"',
                  "Compare the kv cache quant algo as written")
UNREACHABLE_BRANCH = ('    resolved_kv_cache_dtype: Optional[str] = None\n',
                      '    resolved_kv_cache_dtype: Optional[str] = None\n'
                      '    if isinstance(server_args_kv_cache_dtype, bytes):\n'
                      '        server_args_kv_cache_dtype = server_args_kv_cache_dtype.decode()\n',
                      "Accept the kv cache dtype as bytes")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def make_checkout(dest: Path, tree: Path, package_in: str = "python") -> Path:
    """A git repository at `dest` holding `tree`'s sglang package in `dest/package_in/` (sglang's
    layout) or at its root (`package_in=""`), committed once as "original"."""
    shutil.copytree(tree / "sglang", dest / package_in / "sglang")
    git(dest, "init", "-q")
    git(dest, "config", "user.name", "test")
    git(dest, "config", "user.email", "test@example.com")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "original")
    return dest


def codemod_commits(repo: Path) -> list[str]:
    """The codemod's four step commits; returns their subjects."""
    from codemods.extract_kv_dtype.__main__ import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main([str(repo), "--commit"]) == 0
    return git(repo, "log", "--reverse", "--format=%s", "HEAD~4..HEAD").splitlines()


def commit_edit(repo: Path, edit: tuple[str, str, str], rel: str | None = None) -> str:
    """Apply one (old, new, subject) edit to the moved module and commit it; returns the sha."""
    old, new, subject = edit
    path = repo / (rel or _package_path(repo, KV_MODULE))
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new))
    git(repo, "commit", "-qam", subject)
    return git(repo, "rev-parse", "HEAD")


def _package_path(repo: Path, rel: str) -> str:
    return f"python/{rel}" if (repo / "python" / "sglang").is_dir() else rel


def repository_state(repo: Path) -> dict[str, str]:
    """What a command that only reads revisions must not change."""
    return {
        "status": git(repo, "status", "--porcelain", "--ignored"),
        "worktrees": git(repo, "worktree", "list", "--porcelain"),
        "stash": git(repo, "stash", "list"),
        "refs": git(repo, "for-each-ref"),
        "head": git(repo, "rev-parse", "HEAD"),
    }
