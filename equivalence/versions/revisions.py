"""Revisions of a git checkout, read with git itself: `--git BASE..HEAD`, `--commits BASE..HEAD`.

The checkout is never touched (no worktree, no checkout, no index write): the layout comes
from `git ls-tree`, the files the harness needs from `git cat-file --batch`, written into the
run's temporary folder (`engine.trees.temporary_workdir`, removed also on SIGINT/SIGTERM).
Imports nothing heavy (no torch).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "sglang"
LAYOUTS = ("python/", "")  # sglang's own checkout first, then a repository whose root holds sglang/


class RevisionError(Exception):
    """Bad input about the checkout or the range: a one-line message, exit 2."""


@dataclass(frozen=True)
class Revision:
    sha: str
    subject: str

    @property
    def short(self) -> str:
        """How the report names the revision (its subject is in the report's `revisions`)."""
        return self.sha[:7]

    def to_json(self) -> dict:
        return {"sha": self.sha, "short": self.short, "subject": self.subject}


@dataclass(frozen=True)
class Series:
    """The revisions to load, oldest first, and which consecutive ones form the checked pairs."""

    repo: Path  # the checkout's top level
    spec: str  # the range as typed
    mode: str  # "git": BASE against HEAD; "commits": each commit against its first parent
    revisions: tuple[Revision, ...]


def git(repo: Path, *args: str, stdin: bytes | None = None, text: bool = True) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, text=text)
    except FileNotFoundError:
        raise RevisionError("git is not installed (needed to read revisions)") from None


def checkout_root(path: Path) -> Path:
    if not path.is_dir():
        raise RevisionError(f"{path}: no such folder" if not path.exists() else f"{path}: not a folder")
    top = git(path, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise RevisionError(f"{path}: not a git checkout (git finds no repository here or above)")
    return Path(top.stdout.strip())


def resolve(repo: Path, rev: str) -> str:
    out = git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if out.returncode != 0 or not rev or rev.startswith("-"):
        raise RevisionError(f"{repo}: unknown revision {rev!r}")
    return out.stdout.strip()


def describe(repo: Path, sha: str) -> Revision:
    return Revision(sha, git(repo, "log", "-1", "--format=%s", sha).stdout.strip())


def parse_range(spec: str) -> tuple[str, str]:
    base, sep, head = spec.partition("..")
    if not sep or head.startswith(".") or not base or not head:
        raise RevisionError(f"expected a range BASE..HEAD (e.g. main..HEAD), got {spec!r}")
    return base, head


def series(path: Path, spec: str, each_commit: bool) -> Series:
    """Resolve `spec` in the checkout at `path`: for `--git` [BASE, HEAD]; for `--commits` the
    first-parent chain of BASE..HEAD, oldest first, preceded by the parent of its oldest commit."""
    repo = checkout_root(path)
    base_name, head_name = parse_range(spec)
    base, head = resolve(repo, base_name), resolve(repo, head_name)
    chain = git(repo, "rev-list", "--first-parent", "--reverse", f"{base}..{head}").stdout.split()
    if not chain:
        raise RevisionError(f"{repo}: empty range {spec}: {head_name} has no commit that {base_name} lacks")
    if not each_commit:
        shas = [base, head]
    else:
        parent = git(repo, "rev-parse", "--verify", "--quiet", f"{chain[0]}^1")
        if parent.returncode != 0:
            raise RevisionError(f"{repo}: commit {chain[0][:7]} in {spec} has no parent to compare it with")
        shas = [parent.stdout.strip(), *chain]
    return Series(repo, spec, "commits" if each_commit else "git", tuple(describe(repo, s) for s in shas))


def uncommitted_changes(repo: Path) -> bool:
    return bool(git(repo, "status", "--porcelain", "--untracked-files=no").stdout.strip())


def package_prefix(repo: Path, revision: Revision) -> str:
    """Where the package sits in this revision: `python/` (sglang's layout) or the root."""
    for prefix in LAYOUTS:
        found = git(repo, "ls-tree", "--name-only", revision.sha, "--", f"{prefix}{PACKAGE}")
        if found.stdout.strip():
            return prefix
    raise RevisionError(f"no python/{PACKAGE}/ nor {PACKAGE}/ folder in it")


def _blobs(repo: Path, revision: Revision, prefix: str) -> dict[str, str]:
    """Path inside the folder holding the package -> blob id, for every regular file."""
    listing = git(repo, "ls-tree", "-r", "-z", revision.sha, "--", f"{prefix}{PACKAGE}").stdout
    blobs = {}
    for entry in filter(None, listing.split("\0")):
        meta, _, path = entry.partition("\t")
        mode, kind, blob = meta.split()
        if kind == "blob" and mode in ("100644", "100755"):
            blobs[path[len(prefix):]] = blob
    return blobs


def write_revision(repo: Path, revision: Revision, dest: Path, needs: tuple[str, ...] | None) -> Path:
    """Write the files `needs` names (paths inside the folder holding the package; None: every
    `.py` file of the package) of `revision` under `dest`, laid out as in the checkout; the first
    one named must exist in the revision. Returns the folder holding the package. A
    RevisionError says what is missing, without naming the revision (the caller does)."""
    prefix = package_prefix(repo, revision)
    blobs = _blobs(repo, revision, prefix)
    if needs is not None and needs[0] not in blobs:
        raise RevisionError(f"{prefix}{needs[0]} does not exist")
    wanted = [p for p in blobs if p.endswith(".py")] if needs is None else [p for p in needs if p in blobs]
    read = git(repo, "cat-file", "--batch", stdin="".join(f"{blobs[p]}\n" for p in wanted).encode(), text=False)
    if read.returncode != 0:
        raise RevisionError(f"git cat-file failed: {read.stderr.decode().strip()}")
    data = read.stdout
    root = dest / prefix if prefix else dest
    offset = 0
    for rel in wanted:
        header_end = data.index(b"\n", offset)
        size = int(data[offset:header_end].split()[2])
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[header_end + 1 : header_end + 1 + size])
        offset = header_end + 1 + size + 1  # the content is followed by a newline
    return root


def in_repository_terms(message: str, dest: Path) -> str:
    """A loader's message about the temporary copy at `dest`, with paths relative to the checkout."""
    return message.replace(f"{dest}{os.sep}", "").replace(str(dest), ".")


def read_file(repo: Path, revision: Revision, rel: str) -> str | None:
    """The text of `rel` (inside the folder holding the package) in `revision`, None if absent."""
    out = git(repo, "cat-file", "-p", f"{revision.sha}:{package_prefix(repo, revision)}{rel}")
    return out.stdout if out.returncode == 0 else None
