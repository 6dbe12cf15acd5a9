"""How long the full four-step codemod takes on 0.5.15.post1, relative to one plain LibCST round trip.

    python benchmarks/codemod_speed.py [VERSION]

Prints the time of `refactor(root)` (all four steps, formatting on, nothing written), the time of
`libcst.parse_module(src).code` on the same model_runner.py, and their ratio (target: <= 8x).
Each is the best of a few runs, measured in this one process after a warm-up.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst  # noqa: E402

from codemods.extract_kv_dtype import refactor  # noqa: E402
from tests.releases import release_root  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)  # read-only: refactor writes nothing
    src = (root / "sglang/srt/model_executor/model_runner.py").read_text()
    refactor(root)  # warm-up (imports, caches)
    codemod = best(lambda: refactor(root))
    plain = best(lambda: libcst.parse_module(src).code)
    print(f"sglang {version}: model_runner.py {src.count(chr(10))} lines")
    print(f"codemod, steps 1-4:            {codemod:.3f} s")
    print(f"libcst.parse_module(src).code: {plain:.3f} s")
    print(f"ratio:                         {codemod / plain:.2f}x (target <= 8x)")


if __name__ == "__main__":
    main()
