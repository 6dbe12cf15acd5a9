"""Run one (before, after) pair: explore the configurations, classify every difference, measure
branch coverage of both versions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from equivalence.engine.judge.compare import EQUAL, NOT_MODELLED, classify, is_divergence
from equivalence.engine.run.coverage import BranchTracer, Coverage, trace_until_done
from equivalence.engine.run.explore import explore, size
from equivalence.engine.load.inputs import target_defs
from equivalence.engine.load.version import Version
from equivalence.engine.run.observe import Observation, Session
from equivalence.engine.world.world import Domains, Hints

BUDGET = 4000  # configurations per pair, beyond a preset's own


@dataclass
class Difference:
    kind: str
    configs: list[dict] = field(default_factory=list)  # every key read -> the option it took
    identities: list[frozenset] = field(default_factory=list)  # the configuration as explored
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
    observations: dict[str, dict[frozenset, Observation]] = field(default_factory=dict)  # kept on request
    intended: list[dict] | None = None  # a fix's pair: its findings and delta counts (a preset's)

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
    """Both versions of a pair, run in the same world per configuration (the target module's
    functions one version imports are inputs in both: inputs.target_defs). `refine` names a
    divergence the way a preset's review does; `keep` keeps every observation (findings)."""

    def __init__(self, before: Version, after: Version, domains: Domains, hints: Hints | None = None,
                 refine: Callable[[str, Observation, Observation], str] | None = None, keep: bool = False):
        self.before, self.after = before, after
        self.domains = domains
        pools = (tuple(dict.fromkeys(before.inputs.strings + after.inputs.strings)),
                 tuple(dict.fromkeys(before.inputs.numbers + after.inputs.numbers)),
                 tuple(dict.fromkeys(before.inputs.keys + after.inputs.keys)))
        shared = {side: target_defs(v.ext.target_rel, v.ext.function and v.ext.function.name, v.inputs, v.ext.tree.parse,
                                    o.inputs)
                  for side, v, o in (("before", before, after), ("after", after, before))}
        self.sessions = {side: Session(v, domains, pools, hints, shared[side])
                         for side, v in (("before", before), ("after", after))}
        self.refine = refine
        self.observations = {"before": {}, "after": {}} if keep else {}
        self.differences: dict[str, Difference] = {}
        self.seen: set[frozenset] = set()

    def run(self, config: dict, identity: frozenset | None = None) -> tuple[dict, dict, set]:
        """Both versions on `config`: (the configuration as recorded, keys read -> option, keys
        looked into). `identity`: a seed's own choices (explore.py), else what the runs read."""
        ob, wb = self.sessions["before"].run(config)
        oa, wa = self.sessions["after"].run(config)
        read = {**wb.read, **wa.read}
        recorded = read if identity is None else {**config, **read}
        identity = identity or frozenset(read.items())
        if identity not in self.seen:
            self.seen.add(identity)
            self._record(identity, recorded, ob, oa, wa)
        return recorded, read, wb.touched | wa.touched

    def _record(self, identity: frozenset, config: dict, ob: Observation, oa: Observation, wa) -> None:
        if self.observations:
            self.observations["before"][identity], self.observations["after"][identity] = ob, oa
        kind = classify(ob, oa, self.after.caller, wa.read)
        if self.refine is not None and is_divergence(kind):
            kind = self.refine(kind, ob, oa)
        if kind != EQUAL:
            diff = self.differences.setdefault(kind, Difference(kind))
            diff.configs.append(config)
            diff.identities.append(identity)
            diff.observations.append((ob, oa))


def run_pair(pair: Pair, seeds: list[dict] | None = None, budget: int = BUDGET, coverage: bool = True,
             stop_at_divergence: bool = False) -> PairResult:
    """`stop_at_divergence`: a mutant's check, which needs one divergence, not all of them."""
    stop = (lambda: any(is_divergence(k) for k in pair.differences)) if stop_at_divergence else None
    explored = explore(pair.run, pair.domains, seeds or [{}], budget, stop)
    covered = {}
    if coverage:
        covered = {side: measure_coverage(pair.sessions[side], explored.configs) for side in ("before", "after")}
    return PairResult(pair.before, pair.after, explored.configs, pair.differences, covered, pair.domains,
                      explored.budget_reached, pair.observations)


def measure_coverage(session: Session, configs: list[dict]) -> Coverage:
    units = session.version.units
    tracer = BranchTracer({u.code: u.node for u in units}, {u.code: u.role for u in units})
    return trace_until_done(tracer, session.run, configs)


def smallest(diff: Difference, domains: Domains) -> int:
    """Index of the configuration with the fewest non-default choices (ties: first explored)."""
    return min(range(len(diff.configs)), key=lambda i: (size(diff.configs[i], domains.options), i))
