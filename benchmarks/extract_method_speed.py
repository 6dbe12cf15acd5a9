"""How long one generic extraction takes on 0.5.15.post1, relative to one plain LibCST round trip.

    python benchmarks/extract_method_speed.py [VERSION]

Prints the time of `extract_method.refactor` for ModelRunner.init_threads_binding ->
sglang.srt.utils.numa_utils (all four steps, formatting on, the class's file found and the
package scanned for references by the run itself, nothing written), the time of
`libcst.parse_module(src).code` on the same model_runner.py, and their ratio (target: <= 2x, issue 15).
Each is the best CPU time of a few runs, the two taken turn about in this one process after a
warm-up (benchmarks/timing.py); the parse caches are emptied before every run, so that each pays
what a fresh command pays.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst  # noqa: E402

from codemods.extract_method import MethodSpec, refactor  # noqa: E402
from benchmarks.timing import interleaved  # noqa: E402
from tests.releases import release_root  # noqa: E402

SPEC = MethodSpec("ModelRunner", "init_threads_binding", "sglang.srt.utils.numa_utils")


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)  # read-only: refactor writes nothing
    src = (root / "sglang/srt/model_executor/model_runner.py").read_text()
    plan = refactor(root, SPEC)  # warm-up (imports, caches)
    assert [s.number for s in plan.steps] == [1, 2, 3, 4] and len(plan.changes) == 2
    codemod, plain = interleaved(lambda: refactor(root, SPEC), lambda: libcst.parse_module(src).code)
    print(f"sglang {version}: model_runner.py {src.count(chr(10))} lines")
    print(f"extract_method, steps 1-4:     {codemod:.3f} s")
    print(f"libcst.parse_module(src).code: {plain:.3f} s")
    print(f"ratio:                         {codemod / plain:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
