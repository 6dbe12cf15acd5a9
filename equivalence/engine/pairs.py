"""Run one (before, after) pair: explore the configurations, classify every difference, measure
branch coverage of both versions."""

from __future__ import annotations

from dataclasses import dataclass, field

from .compare import EQUAL, NOT_MODELLED, classify, is_divergence
from .coverage import BranchTracer, Coverage, trace_until_done
from .explore import explore, size
from .load import Version
from .observe import Observation, Session
from .world import ABSENT, Domains

BUDGET = 4000  # configurations per pair


@dataclass
class Difference:
    kind: str
    configs: list[dict] = field(default_factory=list)  # every key read -> the option it took
    observations: list[tuple[Observation, Observation]] = field(default_factory=list)


@dataclass
class PairResult:
    before: Version
    after: Version
    configs: list[dict]
    differences: dict[str, Difference]
    coverage: dict[str, Coverage]
    domains: Domains  # every key's options, as the exploration left them
    budget_reached: bool

    @property
    def inputs(self) -> dict[str, list[tuple]]:
        """What was varied: every key a run read, with its options (the default first)."""
        return {k: self.domains.options[k] for k in dict.fromkeys(k for c in self.configs for k in c)}

    @property
    def divergent(self) -> bool:
        return any(is_divergence(k) for k in self.differences)

    @property
    def verdict(self) -> str:
        """"inconclusive": no divergence, but a branch was never run or an input not modelled."""
        if self.divergent:
            return "divergent"
        if NOT_MODELLED in self.differences or any(not c.complete for c in self.coverage.values()):
            return "inconclusive"
        return "equivalent"


class Pair:
    """Both versions of a pair, run on the same world per configuration."""

    def __init__(self, before: Version, after: Version, domains: Domains, builders: dict | None = None):
        self.before, self.after = before, after
        self.domains = domains
        pools = (tuple(dict.fromkeys(before.inputs.strings + after.inputs.strings)),
                 tuple(dict.fromkeys(before.inputs.numbers + after.inputs.numbers)))
        self.sessions = {side: Session(v, domains, pools, builders) for side, v in (("before", before), ("after", after))}
        self.differences: dict[str, Difference] = {}
        self.seen: set[frozenset] = set()

    def run(self, config: dict) -> tuple[dict, set]:
        ob, wb = self.sessions["before"].run(config)
        oa, wa = self.sessions["after"].run(config)
        absent = {k for k, option in wa.read.items() if option == ABSENT}
        kind = classify(ob, oa, self.after.caller, absent)
        read = {**wb.read, **wa.read}
        if kind != EQUAL and frozenset(read.items()) not in self.seen:
            diff = self.differences.setdefault(kind, Difference(kind))
            diff.configs.append(read)
            diff.observations.append((ob, oa))
        self.seen.add(frozenset(read.items()))
        return read, wb.touched | wa.touched


def run_pair(before: Version, after: Version, seeds: list[dict] | None = None, domains: Domains | None = None,
             budget: int = BUDGET, builders: dict | None = None, coverage: bool = True,
             stop_at_divergence: bool = False) -> PairResult:
    """`stop_at_divergence`: a mutant's check, which needs one divergence, not all of them."""
    domains = domains if domains is not None else Domains()
    pair = Pair(before, after, domains, builders)
    stop = (lambda: any(is_divergence(k) for k in pair.differences)) if stop_at_divergence else None
    explored = explore(pair.run, domains, seeds or [{}], budget, stop)
    covered = {}
    if coverage:
        covered = {side: measure_coverage(pair.sessions[side], explored.configs) for side in ("before", "after")}
    return PairResult(before, after, explored.configs, pair.differences, covered, domains, explored.budget_reached)


def measure_coverage(session: Session, configs: list[dict]) -> Coverage:
    units = session.version.units
    tracer = BranchTracer({u.code: u.node for u in units}, {u.code: u.role for u in units})
    return trace_until_done(tracer, session.run, configs)


def smallest(diff: Difference, domains: Domains) -> int:
    """Index of the configuration with the fewest non-default choices (ties: first explored)."""
    return min(range(len(diff.configs)), key=lambda i: (size(diff.configs[i], domains.options), i))
