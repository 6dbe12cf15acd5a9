"""How long the WeightExporter extraction takes on a real release, relative to one plain LibCST
round trip of its model_runner.py.

    python benchmarks/extract_component_speed.py [VERSION]     # default 0.5.15.post1

Times `extract_component.refactor` of ModelRunner's five weight-export methods into
`...model_runner_components.weight_exporter.WeightExporter` (all three steps, formatting on, the
class's file found, the checkout scanned for every use of the methods and their receivers typed,
the import cycles checked; nothing written) against `libcst.parse_module(src).code` of the same
model_runner.py (target: <= 3x). Best CPU time of a few runs each, turn about in one process after
a warm-up, the parse caches emptied before every run (benchmarks/timing.py). A third figure
runs the extraction with every parse (`ast` and LibCST) answered from the previous run's trees:
what is left is the scan of the files' bytes, the analysis and the steps, and the difference is
what parsing costs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst  # noqa: E402

from benchmarks.timing import interleaved  # noqa: E402
from codemods.extract_component import ComponentSpec, plan, refactor  # noqa: E402
from codemods.extract_component.spec import context_for  # noqa: E402
from pysource.parsing import Parses  # noqa: E402
from tests.releases import release_root  # noqa: E402

SPEC = ComponentSpec(
    "ModelRunner", "sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter",
    ("init_weights_send_group_for_remote_instance", "send_weights_to_remote_instance", "save_remote_model",
     "save_sharded_model", "get_weights_by_name"), "weight_exporter")


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.15.post1"
    root = release_root(version)
    src = (root / "sglang/srt/model_executor/model_runner.py").read_text()
    plan = refactor(root, SPEC)  # warm-up (imports)
    assert [s.number for s in plan.steps] == [1, 2, 3] and len(plan.changes) == 5
    codemod, plain = interleaved(lambda: refactor(root, SPEC), lambda: libcst.parse_module(src).code, repeat=3)
    print(f"sglang {version}: model_runner.py {src.count(chr(10))} lines")
    print(f"extract_component, steps 1-3:  {codemod:.3f} s")
    print(f"libcst.parse_module(src).code: {plain:.3f} s")
    print(f"ratio:                         {codemod / plain:.2f}x (target <= 3x)")
    warm = Parses()
    parsed, plain = interleaved(lambda: _with_parses(root, warm), lambda: libcst.parse_module(src).code, repeat=3)
    print(f"the same, every parse answered from the run before: {parsed:.3f} s, {parsed / plain:.2f}x "
          f"(parsing: {codemod - parsed:.3f} s of the {codemod:.3f} s)")


def _with_parses(root: Path, parses: Parses) -> None:
    ctx = context_for(root, SPEC)
    ctx.parses = parses
    with ctx:
        plan(ctx, SPEC)


if __name__ == "__main__":
    main()
