"""Speed of `python -m equivalence --method` on real releases.

Makes the extraction of `ModelRunner.init_threads_binding` into `sglang.srt.utils.numa_utils`
on 0.5.15.post1 (by `codemods.extract_method` when it is installed, else by moving the method's
text the way tests/method_trees.py does for the fixture), and the two ServerArgs extractions of
issue 17 on 0.5.18 (`reserve_for_graph_mb --pass-self server_args` into
`sglang.srt.arg_groups.memory_hook`, `validate_buckets_rule` into
`sglang.srt.arg_groups.validation_hook`, by the codemod), and times each whole proof, torch
import and loading included, against a bare `python -c "import torch"`, turn about in the same
run, in the children's CPU time (user + system: a shared machine's load does not skew it; both
are single-threaded), best of three each, with the ratio (target: <= 8x).

    python benchmarks/equivalence_method_speed.py [VERSION]     # default 0.5.15.post1 (threads)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import child_cpu  # noqa: E402
from tests.method_releases import extracted  # noqa: E402
from tests.releases import release_root  # noqa: E402

METHOD = "ModelRunner.init_threads_binding"
SERVER_ARGS = "0.5.18"  # ServerArgs's methods moved out to sglang/srt/arg_groups/ in 0.5.19
SERVER_ARGS_EXTRACTIONS = [  # (method, target module, codemod options)
    ("reserve_for_graph_mb", "sglang.srt.arg_groups.memory_hook", ["--pass-self", "server_args"]),
    ("validate_buckets_rule", "sglang.srt.arg_groups.validation_hook", []),
]
REPO = Path(__file__).resolve().parent.parent


def server_args_extraction(root: Path, dest: Path, method: str, target: str, options: list[str]) -> Path:
    """A copy of `root` with ServerArgs.METHOD moved to `target` by codemods.extract_method."""
    shutil.copytree(root, dest)
    subprocess.run([sys.executable, "-m", "codemods.extract_method", str(dest), f"ServerArgs.{method}", target,
                    "--source", "sglang/srt/server_args.py", *options], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return dest


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)
    with tempfile.TemporaryDirectory() as work:
        proofs = {f"{METHOD} ({version})": [sys.executable, "-m", "equivalence", "--method", METHOD, str(root),
                                             str(extracted(root, Path(work) / "after", "threads"))]}
        args_root = release_root(SERVER_ARGS)
        for method, target, options in SERVER_ARGS_EXTRACTIONS:
            after = server_args_extraction(args_root, Path(work) / method, method, target, options)
            proofs[f"ServerArgs.{method} ({SERVER_ARGS})"] = [
                sys.executable, "-m", "equivalence", "--method", f"sglang.srt.server_args.ServerArgs.{method}",
                str(args_root), str(after)]
        times = {"torch": [], **{name: [] for name in proofs}}
        for _ in range(3):
            times["torch"].append(child_cpu([sys.executable, "-c", "import torch"]))
            for name, proof in proofs.items():
                times[name].append(child_cpu(proof, check=False))  # exit 2 (inconclusive) is still a timing
    torch_s = min(times["torch"])
    print(f"python -c 'import torch': {torch_s:.2f} s CPU")
    for name in proofs:
        proof_s = min(times[name])
        print(f"python -m equivalence --method {name}: {proof_s:.2f} s CPU, ratio {proof_s / torch_s:.1f}x "
              f"(target <= 8x)")


if __name__ == "__main__":
    main()
