"""How `--git` / `--commits` read a revision, on a git checkout made from a real release.

Builds `CHECKOUT/python/sglang/` from the release, commits it, then times (best of 5, measured
in this run) three ways to get one revision's files into a temporary folder:
- what the harness does: the layout from `git ls-tree`, the two files it loads from
  `git cat-file --batch` (`equivalence.versions.revisions.write_revision`);
- the whole package: `git archive REV -- python/sglang | tar -x`;
- a worktree: `git worktree add --detach` + `git worktree remove --force`.
Then the whole `--git HEAD~4..HEAD` run on the codemod's four commits against
`python -c "import torch"`.

    python benchmarks/git_revisions.py [VERSION]     # default 0.5.15.post1
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from equivalence.versions import revisions  # noqa: E402
from equivalence.presets.kv_dtype.subject import KV_PATH, RUNNER_PATH  # noqa: E402
from tests.git_series import codemod_commits, make_checkout  # noqa: E402
from tests.releases import release_root  # noqa: E402


def best(action, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            action(Path(tmp))
            times.append(time.perf_counter() - start)
    return min(times)


def shell(cmd: str, cwd: Path) -> None:
    subprocess.run(cmd, shell=True, cwd=cwd, check=True, capture_output=True)


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    with tempfile.TemporaryDirectory() as work:
        repo = make_checkout(Path(work) / "checkout", release_root(version))
        files = sum(1 for _ in (repo / "python" / "sglang").rglob("*.py"))
        head = revisions.describe(repo, revisions.resolve(repo, "HEAD"))
        needed = best(lambda tmp: revisions.write_revision(repo, head, tmp, (RUNNER_PATH, KV_PATH)))
        whole = best(lambda tmp: shell(f"git archive HEAD -- python/sglang | tar -x -C {tmp}", repo))
        worktree = best(lambda tmp: shell(f"git worktree add -q --detach {tmp}/w HEAD && "
                                          f"git worktree remove --force {tmp}/w", repo))
        print(f"one revision of {version} ({files} .py files):")
        print(f"  the harness's files (ls-tree + cat-file): {needed * 1000:7.1f} ms")
        print(f"  the whole package (git archive | tar):    {whole * 1000:7.1f} ms  ({whole / needed:,.0f}x)")
        print(f"  a worktree (add + remove):                {worktree * 1000:7.1f} ms  ({worktree / needed:,.0f}x)")
        codemod_commits(repo)
        torch_s = best(lambda tmp: subprocess.run([sys.executable, "-c", "import torch"], check=True), 2)
        run_s = best(lambda tmp: subprocess.run([sys.executable, "-m", "equivalence", "--commits", "HEAD~4..HEAD",
                                                 str(repo)], check=True, capture_output=True), 1)
        print(f"--commits over the codemod's 4 commits: {run_s:.1f} s; import torch {torch_s:.1f} s "
              f"({run_s / torch_s:.1f}x)")


if __name__ == "__main__":
    main()
