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
from typing import Callable

from equivalence import progress
from equivalence.engine.load.version import LoadError, Version, load
from equivalence.engine.selfcheck.mutate import mutants_of
from equivalence.engine.run.observe import capture_logs
from equivalence.engine.run.pairs import BUDGET, Pair, PairResult, run_pair
from equivalence.engine.report.report import build
from equivalence.engine.judge.static_check import StaticCheckError, StaticReport, static_check
from equivalence.engine.world.world import Domains

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
    """Each mutant of `result.after` against `result.before`, from the configurations the pair
    ran; killed when divergent."""
    after = result.after
    survivors, ids = [], []
    mutants = mutants_of(after.ext, MUTANTS)
    for mutant in progress.each("mutant", mutants, lambda m: m.id):
        ids.append(mutant.id)
        why = survives(result.before, lambda: method.load(after.root, f"{after.label}+{mutant.id}",
                                                          {**after.overrides, **mutant.overrides}),
                       lambda version: Pair(result.before, version, copy.deepcopy(result.domains)),
                       result.configs, budget)
        if why:
            survivors.append({"id": mutant.id, "description": mutant.description, "reason": why})
    return {"total": len(mutants), "killed": len(mutants) - len(survivors), "survivors": survivors, "ids": ids}


def survives(before: Version, load_mutant: Callable[[], Version], pair_for: Callable[[Version], Pair],
             seeds: list[dict], budget: int) -> str | None:
    """None when a mutant is killed (divergent by its static check or by running, which stops at
    its first divergence), else why it survived."""
    try:
        version = load_mutant()
    except LoadError as e:
        return f"does not load: {e}"
    restore = capture_logs([version])
    try:
        static = static_of(before, version)
        if isinstance(static, StaticReport) and static.divergent:
            return None
        outcome = run_pair(pair_for(version), seeds, budget, coverage=False, stop_at_divergence=True)
    finally:
        restore()
    if outcome.divergent:
        return None
    return ("no divergence found" + (" (a stub it reached is not modelled)" if outcome.verdict == "inconclusive" else "")
            + f" over {len(outcome.configs)} configurations")
