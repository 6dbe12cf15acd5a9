"""Speed of the equivalence harness on a real release.

Prints configuration pairs per second in the core loop (both versions run on one
configuration, then compared), and the whole default `--steps` run against a bare
`python -c "import torch"`, turn about in the same run, in the children's CPU time (user +
system: a shared machine's load does not skew it), best of two each, with the ratio (target:
<= 10x).

    python benchmarks/equivalence_speed.py [VERSION]     # default 0.5.15.post1
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import child_cpu  # noqa: E402
from tests.releases import release_root  # noqa: E402




def core_loop(root: Path) -> float:
    """Configuration pairs per second: the preset's configurations on original vs step 4."""
    from equivalence.engine.run.observe import capture_logs
    from equivalence.engine.run.pairs import Pair
    from equivalence.engine.world.world import Domains
    from equivalence.presets.kv_dtype import hints as presets
    from equivalence.presets.kv_dtype.check import dflash_inputs, literals
    from equivalence.presets.kv_dtype.preset import kv_codemod
    from equivalence.presets.kv_dtype.subject import load_version
    from equivalence.versions.codemod_steps import step_trees

    with tempfile.TemporaryDirectory() as work:
        trees = step_trees(root, Path(work), kv_codemod())
        before, after = load_version(trees[0][1], "original"), load_version(trees[-1][1], "step 4")
    versions = [before, after]
    hints = presets.hints(literals(versions), dflash_inputs(versions), None, 150)
    pair = Pair(before, after, Domains.from_hints(hints), hints)
    restore = capture_logs(versions)
    try:
        start = time.perf_counter()
        for config in hints.seeds:
            pair.run(config, frozenset(config.items()))
        elapsed = time.perf_counter() - start
    finally:
        restore()
    return len(hints.seeds) / elapsed


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)
    rate = core_loop(root)
    print(f"core loop: {rate:,.0f} configuration pairs/s")
    times = {"torch": [], "steps": []}
    for _ in range(2):
        times["torch"].append(child_cpu([sys.executable, "-c", "import torch"]))
        times["steps"].append(child_cpu([sys.executable, "-m", "equivalence", "--steps", str(root)], check=False))
    torch_s, steps_s = min(times["torch"]), min(times["steps"])
    print(f"python -c 'import torch': {torch_s:.2f} s CPU")
    print(f"python -m equivalence --steps {version}: {steps_s:.2f} s CPU")
    print(f"ratio: {steps_s / torch_s:.1f}x (target <= 10x)")


if __name__ == "__main__":
    main()
