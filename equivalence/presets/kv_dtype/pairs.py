"""Run one (before, after) pair over its configurations: comparison, coverage, observations."""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import progress
from .compare import CLASSIFIED, EQUAL, absent_attributes, classify
from .configs import Config, active_fields, enumerate_configs, hypothesis_configs, size_key, uncovered_inputs
from ...engine.coverage import BranchTracer, Coverage, trace_until_done
from .loader import Version
from .observe import Observation, Session


@dataclass
class Difference:
    kind: str
    configs: list[Config] = field(default_factory=list)
    observations: dict = field(default_factory=dict)  # config -> (before, after)


@dataclass
class PairResult:
    before: Version
    after: Version
    configs: list[Config]
    literals: list[str]
    active: set[str]
    uncovered: list[str]
    differences: dict[str, Difference]
    coverage: dict[str, Coverage]
    observations: dict[str, dict[Config, Observation]]  # "before"/"after" -> config -> observation
    intended: dict | None = None  # a fix's pair: its finding and delta counts (intended.py)

    @property
    def divergent(self) -> bool:
        return bool(self.uncovered) or any(k not in CLASSIFIED for k in self.differences)

    @property
    def verdict(self) -> str:
        """"inconclusive": no divergence, but a branch of either version was never run, so the
        configurations may have missed a difference there."""
        if self.divergent:
            return "divergent"
        if any(not c.complete for c in self.coverage.values()):
            return "inconclusive"
        return "equivalent"

    def smallest(self, kind: str) -> Config:
        return min(self.differences[kind].configs, key=lambda c: size_key(c, self.literals))


class ConfigSpace:
    """Configurations per set of active inputs, built once and shared by every pair."""

    def __init__(self, seed: int | None = None, examples: int = 150):
        self.seed = seed
        self.examples = examples
        self._cache: dict = {}

    def configs(self, literals: list[str], active: set[str]) -> list[Config]:
        key = (tuple(literals), frozenset(active))
        if key not in self._cache:
            finite = enumerate_configs(literals, active)
            extra = hypothesis_configs(active, self.seed, self.examples)
            self._cache[key] = list(dict.fromkeys(finite + extra))
        return self._cache[key]


def run_pair(before: Version, after: Version, space: ConfigSpace, sessions: dict | None = None,
             stop_at_first: bool = False, observe_all: bool = True) -> PairResult:
    sessions = sessions if sessions is not None else {}
    literals = list(dict.fromkeys(before.shape.literals + after.shape.literals))
    reads = before.shape.self_reads | after.shape.self_reads
    active = active_fields(reads)
    uncovered = sorted(
        set(uncovered_inputs(before.shape.self_reads, before.shape.globals_read))
        | set(uncovered_inputs(after.shape.self_reads, after.shape.globals_read))
    )
    configs = space.configs(literals, active)
    sb = sessions.setdefault(id(before), Session(before))
    sa = sessions.setdefault(id(after), Session(after))
    eager = after.shape.eager_self_reads
    differences: dict[str, Difference] = {}
    obs_before, obs_after = {}, {}
    for config in progress.each("configurations", configs):
        ob, oa = sb.run(config), sa.run(config)
        if observe_all:
            obs_before[config], obs_after[config] = ob, oa
        kind = classify(ob, oa, config.kv_cache_dtype, absent_attributes(config), eager)
        if kind != EQUAL:
            diff = differences.setdefault(kind, Difference(kind))
            diff.configs.append(config)
            diff.observations[config] = (ob, oa)
            if stop_at_first and kind not in CLASSIFIED:
                break
    coverage = {}
    if not stop_at_first:
        coverage = {"before": measure_coverage(sb, configs), "after": measure_coverage(sa, configs)}
    return PairResult(before, after, configs, literals, active, uncovered, differences, coverage,
                      {"before": obs_before, "after": obs_after})


def measure_coverage(session: Session, configs: list[Config]) -> Coverage:
    """Trace configurations (a fixed shuffle, so that varied ones come first) until every
    branch is hit; if some never are, every configuration has been traced."""
    version = session.version
    units = {}
    codes = version.code_objects()
    for unit in version.shape.units:
        code = codes["core" if unit.role == "core" else unit.role]
        units[code] = unit.node
    return trace_until_done(BranchTracer(units), session.run, configs)
