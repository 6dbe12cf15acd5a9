"""Git: the work tree holding a path; one commit per step, refusing outside a repository or on a dirty tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codemods.core.errors import BadInput


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def check_clean_repo(root: Path) -> Path:
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise BadInput("--commit needs a git repository, and this is not inside one", root)
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    if status.returncode != 0 or status.stdout.strip():
        raise BadInput("--commit needs a clean working tree; commit or stash your changes first", root)
    return Path(top.stdout.strip())


def commit(root: Path, paths: list[Path], subject: str) -> None:
    rel = [str(p) for p in paths]
    # --allow-empty: a step with nothing to do is still committed, its subject saying so
    for args in (["add", "--", *rel], ["commit", "-q", "--allow-empty", "-m", subject, "--", *rel]):
        res = _git(root, *args)
        if res.returncode != 0:
            raise BadInput(f"git {args[0]} failed: {res.stderr.strip()}", root)
