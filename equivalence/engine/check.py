"""Check an extraction of CLASS.METHOD: loaded versions -> pairs (run + static) -> mutants -> report.

Each pair is explored in a world of its own (its keys and domains); the static check compares
the two versions' code modulo the substitution map (static_check.py). With `mutants`, the
generic mutants of the last pair's after version (mutate.py) are each loaded as a version and
checked against that pair's before version, starting from the configurations the pair ran:
a mutant is killed when the pair is divergent.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .. import progress
from .load import LoadError, Version, load
from .mutate import mutants_of
from .observe import capture_logs
from .pairs import BUDGET, Pair, PairResult, run_pair
from .report import build
from .static_check import StaticCheckError, StaticReport, static_check
from .world import Domains

MUTANTS = 30  # generated per check (mutate.py selects them spread across kinds)


@dataclass(frozen=True)
class Method:
    """What to check: CLASS.METHOD in the file `source_rel` of each tree (and the extracted
    function's name when it differs from the method's); `real_inputs`: real modules a preset
    makes inputs (`{"torch": "torch"}`)."""

    class_name: str
    method_name: str
    source_rel: str
    function_name: str | None = None
    real_inputs: dict = field(default_factory=dict, hash=False)

    def load(self, root, label: str, overrides: dict | None = None) -> Version:
        return load(root, label, self.source_rel, self.class_name, self.method_name, self.function_name, overrides,
                    self.real_inputs)


def check(versions: list[Version], pairs: list[tuple[Version, Version]], method: Method, mutants: bool = False,
          budget: int = BUDGET) -> dict:
    restore = capture_logs(versions)
    try:
        results = [(run_pair(Pair(b, a, Domains()), budget=budget), static_of(b, a))
                   for b, a in progress.each("pair", pairs, lambda p: f"{p[0].label} -> {p[1].label}")]
        mutant_report = run_mutants(results[-1][0], method, budget) if mutants else None
    finally:
        restore()
    return build(results, mutant_report)


def static_of(before: Version, after: Version) -> StaticReport | str:
    """The static check of a pair, or why it could not be done."""
    try:
        return static_check(before.ext, after.ext)
    except StaticCheckError as e:
        return str(e)


def run_mutants(result: PairResult, method: Method, budget: int) -> dict:
    """Each mutant of `result.after` against `result.before`; killed when divergent."""
    before, after = result.before, result.after
    killed, survivors, ids = 0, [], []
    mutants = mutants_of(after.ext, MUTANTS)
    for mutant in progress.each("mutant", mutants, lambda m: m.id):
        ids.append(mutant.id)
        try:
            version = method.load(after.root, f"{after.label}+{mutant.id}", {**after.overrides, **mutant.overrides})
        except LoadError as e:
            survivors.append({"id": mutant.id, "description": mutant.description, "reason": f"does not load: {e}"})
            continue
        restore = capture_logs([version])
        try:
            static = static_of(before, version)
            if isinstance(static, StaticReport) and static.divergent:
                killed += 1
                continue
            pair = Pair(before, version, copy.deepcopy(result.domains))
            outcome = run_pair(pair, result.configs, budget, coverage=False, stop_at_divergence=True)
        finally:
            restore()
        if outcome.divergent:
            killed += 1
        else:
            why = "no divergence found" + (" (a stub it reached is not modelled)"
                                           if outcome.verdict == "inconclusive" else "")
            survivors.append({"id": mutant.id, "description": mutant.description,
                              "reason": f"{why} over {len(outcome.configs)} configurations"})
    return {"total": len(mutants), "killed": killed, "survivors": survivors, "ids": ids}
