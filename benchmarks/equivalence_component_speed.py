"""Speed of `python -m equivalence --component` on a real release.

Makes the WeightExporter extraction of 0.5.15.post1 (codemods.extract_component, into a temporary
copy) and times the whole proof (torch import, loading both versions, the sequences, coverage,
static check), once without and once with `--mutants`, against a bare `python -c "import torch"`,
turn about in the same run, in the children's CPU time (benchmarks/timing.child_cpu), best of
two each (target: the proof <= 10x).

    python benchmarks/equivalence_component_speed.py [VERSION]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.extract_component_speed import SPEC  # noqa: E402
from benchmarks.timing import child_cpu  # noqa: E402
from codemods.extract_component import refactor, write_plan  # noqa: E402
from tests.releases import release_root  # noqa: E402


def measure(version: str, spec, component: str, mutants_may_fail: bool = False) -> tuple[float, float, float]:
    """(the torch import, the proof, the proof with --mutants), CPU seconds, best of two taken turn
    about: `spec` extracted into a copy of release `version`, proven with `--component COMPONENT`.
    `mutants_may_fail`: the --mutants run's exit status is not checked (a surviving mutant)."""
    root = release_root(version)
    with tempfile.TemporaryDirectory() as work:
        after = Path(work) / "after"
        shutil.copytree(root, after)
        write_plan(refactor(after, spec))
        proof = [sys.executable, "-m", "equivalence", "--component", component, str(root), str(after)]
        times = {"torch": [], "proof": [], "mutants": []}
        for _ in range(2):
            times["torch"].append(child_cpu([sys.executable, "-c", "import torch"]))
            times["proof"].append(child_cpu(proof))
            times["mutants"].append(child_cpu(proof + ["--mutants"], check=not mutants_may_fail))
    torch_s, proof_s, mutants_s = (min(times[k]) for k in ("torch", "proof", "mutants"))
    return torch_s, proof_s, mutants_s


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    torch_s, proof_s, mutants_s = measure(version, SPEC, "ModelRunner.weight_exporter")
    print(f"python -c 'import torch': {torch_s:.2f} s CPU")
    print(f"python -m equivalence --component ModelRunner.weight_exporter ({version}): {proof_s:.2f} s CPU, "
          f"ratio {proof_s / torch_s:.1f}x (target <= 10x)")
    print(f"  with --mutants: {mutants_s:.2f} s CPU, ratio {mutants_s / torch_s:.1f}x")


if __name__ == "__main__":
    main()
