"""Speed of `python -m equivalence --method` on a real release.

Makes the extraction of `ModelRunner.init_threads_binding` into `sglang.srt.utils.numa_utils`
(by `codemods.extract_method` when it is installed, else by moving the method's text the way
tests/method_trees.py does for the fixture) and times the whole proof, torch import and
loading included, against a bare `python -c "import torch"`, turn about in the same run, in the
children's CPU time (user + system: a shared machine's load does not skew it; both are
single-threaded), best of three each, with the ratio (target: <= 8x).

    python benchmarks/equivalence_method_speed.py [VERSION]     # default 0.5.15.post1
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import child_cpu  # noqa: E402
from tests.method_releases import extracted  # noqa: E402
from tests.releases import release_root  # noqa: E402

METHOD = "ModelRunner.init_threads_binding"




def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)
    with tempfile.TemporaryDirectory() as work:
        after = extracted(root, Path(work) / "after", "threads")
        proof = [sys.executable, "-m", "equivalence", "--method", METHOD, str(root), str(after)]
        times = {"torch": [], "proof": []}
        for _ in range(3):
            times["torch"].append(child_cpu([sys.executable, "-c", "import torch"]))
            times["proof"].append(child_cpu(proof))
        torch_s, proof_s = min(times["torch"]), min(times["proof"])
        shutil.rmtree(after)
    print(f"python -c 'import torch': {torch_s:.2f} s CPU")
    print(f"python -m equivalence --method {METHOD} ({version}): {proof_s:.2f} s CPU")
    print(f"ratio: {proof_s / torch_s:.1f}x (target <= 8x)")


if __name__ == "__main__":
    main()
