"""Speed of `python -m equivalence --component` on a real release, for a Scheduler component.

Makes the SchedulerInternalStateController extraction of 0.5.21 (upstream's of a later release:
Scheduler's `get_internal_state` and `set_internal_state` into
`sglang.srt.managers.scheduler_components.internal_state`, `--attr internal_state --pass-owner
scheduler --keep-wrappers`; codemods.extract_component, into a temporary copy) and times the whole
proof (torch import, loading both versions, the sequences, coverage, static check), once without
and once with `--mutants`, against a bare `python -c "import torch"`, turn about in the same run,
in the children's CPU time (benchmarks/timing.child_cpu), best of two each (targets: the proof
<= 10x the torch import, `--mutants` <= 3x the plain proof).

    python benchmarks/equivalence_scheduler_component_speed.py [VERSION]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.equivalence_component_speed import measure  # noqa: E402
from codemods.extract_component import ComponentSpec  # noqa: E402

OWNER = "sglang.srt.managers.scheduler.Scheduler"  # multimodal_gen defines a Scheduler too
SPEC = ComponentSpec(
    "Scheduler", "sglang.srt.managers.scheduler_components.internal_state.SchedulerInternalStateController",
    ("get_internal_state", "set_internal_state"), "internal_state", pass_owner="scheduler",
    keep_wrappers=True, class_module="sglang.srt.managers.scheduler")


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else "0.5.21"
    # exit 2 where a mutant survives (or coverage is short): the time still counts
    torch_s, proof_s, mutants_s = measure(version, SPEC, f"{OWNER}.internal_state", mutants_may_fail=True)
    print(f"python -c 'import torch': {torch_s:.2f} s CPU")
    print(f"python -m equivalence --component Scheduler.internal_state ({version}): {proof_s:.2f} s CPU, "
          f"ratio {proof_s / torch_s:.1f}x (target <= 10x)")
    print(f"  with --mutants: {mutants_s:.2f} s CPU, ratio {mutants_s / torch_s:.1f}x the torch import, "
          f"{mutants_s / proof_s:.1f}x the proof (target <= 3x)")


if __name__ == "__main__":
    main()
