"""Run one (before, after) pair: explore the configurations, classify every difference, measure
branch coverage of both versions."""

from __future__ import annotations

import ast
import contextlib
import copy
import sys
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from equivalence.engine.judge.compare import (ALREADY_DIVERGENT, EAGER, EAGER_RAISES, EQUAL, NOT_MODELLED, classify,
                                              is_divergence, kind_of_difference)
from equivalence.engine.run.coverage import BranchTracer, Coverage, trace_until_done
from equivalence.engine.run import time_limit
from equivalence.engine.run.explore import explore, size
from equivalence.engine.run.solve import Concolic
from equivalence.engine.load.inputs import target_defs
from equivalence.engine.load.literals import fixed_names
from equivalence.engine.load.version import Version
from equivalence.engine.run.observe import DIRECT, DIRECT_OPTIONS, Observation, Session
from equivalence.engine.load.moved_functions import moved_functions
from equivalence.engine.world.world import Domains, Hints, World

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
    could_not_run: str = ""  # why the code under test never ran in some version (then nothing is proven)

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
        if self.could_not_run:
            return "could not run"
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
                 tuple(dict.fromkeys(before.inputs.keys + after.inputs.keys)),
                 tuple(dict.fromkeys(before.inputs.lengths + after.inputs.lengths)),
                 tuple(dict.fromkeys(before.inputs.items + after.inputs.items))[:8])
        shared = {side: target_defs(v.ext.target_rel, v.ext.function and v.ext.function.name, v.inputs, v.ext.files.parse,
                                    o.inputs)
                  for side, v, o in (("before", before, after), ("after", after, before))}
        # the method called directly too, when both versions' call sites call it on some paths only
        self.direct = before.direct is not None and after.direct is not None and hints is None
        renamed = {"before": {}, "after": moved_functions(before, after)}
        self.sessions = {side: Session(v, domains, pools, hints, shared[side], self.direct, renamed[side])
                         for side, v in (("before", before), ("after", after))}
        self.refine = refine
        self.lazy = lazy_arguments(before, after)
        # the generic exploration follows new code (explore.py); a preset's configurations are an exact set
        self.arcs = ArcTracer({u.code for v in (before, after) for u in v.units}) if hints is None else None
        # ... and solves for the comparisons no run has taken both ways (solve.py)
        self.concolic = Concolic() if hints is None else None
        self.observations = {"before": {}, "after": {}} if keep else {}
        self.differences: dict[str, Difference] = {}
        self.seen: set[frozenset] = set()
        self.before_raised: set[tuple] = set()  # (type, message) of every exception the before version raised
        # a mutant's check: the unmutated pair, which tells whether a configuration already diverged
        # there (its known identities first, else by running it); such a difference is no kill
        self.baseline: "Baseline | None" = None

    def run(self, config: dict, identity: frozenset | None = None) -> tuple[dict, dict, set]:
        """Both versions on `config`: (the configuration as recorded, keys read -> option, keys
        looked into). `identity`: a seed's own choices (explore.py), else what the runs read."""
        run = run_both(self.sessions, config, identity, self.arcs)
        if self.concolic is not None:
            self.concolic.feed({k: v for k, v in config.items() if k in run.read},
                               [run.before_world.path, run.after_world.path])
        if run.identity not in self.seen:
            self.seen.add(run.identity)
            self._record(run.identity, run.recorded, run.before, run.after, run.after_world)
        return run.recorded, run.read, run.touched

    def settle(self) -> None:
        """The up-front raises still unsettled: an eager read where the before version was seen to
        raise the same (type and message) somewhere, else what differs (a divergence)."""
        pending = self.differences.pop(EAGER_RAISES, None)
        if pending is None:
            return
        for config, identity, (ob, oa) in zip(pending.configs, pending.identities, pending.observations):
            kind = EAGER if oa.exception[:2] in self.before_raised else kind_of_difference(ob, oa)
            if self.refine is not None and is_divergence(kind):
                kind = self.refine(kind, ob, oa)
            if self.baseline is not None and is_divergence(kind) and self.baseline.divergent(identity, config):
                kind = ALREADY_DIVERGENT
            diff = self.differences.setdefault(kind, Difference(kind))
            diff.configs.append(config)
            diff.identities.append(identity)
            diff.observations.append((ob, oa))

    def _record(self, identity: frozenset, config: dict, ob: Observation, oa: Observation, wa) -> None:
        if self.observations:
            self.observations["before"][identity], self.observations["after"][identity] = ob, oa
        kind = classify(ob, oa, self.after.caller, wa.read, self.lazy)
        if self.refine is not None and is_divergence(kind):
            kind = self.refine(kind, ob, oa)
        if ob.exception is not None:
            self.before_raised.add(ob.exception[:2])
        if kind == EAGER_RAISES and oa.exception[:2] in self.before_raised:
            kind = EAGER
        if self.baseline is not None and is_divergence(kind) and self.baseline.divergent(identity, config):
            kind = ALREADY_DIVERGENT
        if kind != EQUAL:
            diff = self.differences.setdefault(kind, Difference(kind))
            diff.configs.append(config)
            diff.identities.append(identity)
            diff.observations.append((ob, oa))


def _normal(node: ast.AST, self_name: str | None, bound: dict[str, ast.expr] | None = None) -> str:
    """An expression's dump with the instance's name spelled `self` (positions left out), and each
    parameter in `bound` read as what the call passed it (`server_args.x` is `self.server_args.x`
    in a function given `self.server_args`)."""
    bound = bound or {}

    class Spelled(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.AST:
            if n.id in bound:
                return copy.deepcopy(bound[n.id])
            if self_name and n.id == self_name:
                n.id = "self"
            return n

    return ast.dump(Spelled().visit(copy.deepcopy(node)))


def _passed(ext, function: ast.FunctionDef) -> dict[str, ast.expr]:
    """The function's parameters the version's call of it passes an instance chain (`self.x.y`),
    each -> that chain, the instance spelled `self`."""
    call = ext.call
    caller_self = _self_name(ext.wrapper) if ext.wrapper is not None else "self"
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    given = {**dict(zip(params, call.positional)), **call.keyword_nodes}
    out = {}
    for name, arg in given.items():
        root = arg
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id == caller_self and root is not arg:
            out[name] = copy.deepcopy(arg)
            for n in ast.walk(out[name]):
                if isinstance(n, ast.Name) and n.id == caller_self:
                    n.id = "self"
    return out


def lazy_arguments(before: Version, after: Version) -> frozenset:
    """The arguments of the after version's call of the extracted function whose expression the
    before version evaluates too (in the code that runs: its method, function, wrapper), so that
    raising up front is an eager read of it; an argument the before version never evaluates (a
    wrong one, `torch.bfloat16` where `torch` is not imported) raising is a divergence."""
    call = after.ext.call
    if call is None:
        return frozenset()
    after_self = _self_name(after.ext.wrapper) if after.ext.wrapper is not None else "self"
    seen: set[str] = set()
    for unit in before.units:
        own = _self_name(unit.node) if isinstance(unit.node, ast.FunctionDef) else "self"
        bound = {}
        if unit.role == "function" and before.ext.call is not None:
            own = next((k for k, v in before.ext.call.keyword_nodes.items()
                        if isinstance(v, ast.Name) and v.id == "self"), own)
            if isinstance(unit.node, ast.FunctionDef):
                bound = _passed(before.ext, unit.node)
        seen |= {_normal(n, own, bound) for n in ast.walk(unit.node) if isinstance(n, ast.expr)}
    named = [(f"#{i}", a) for i, a in enumerate(call.positional)] + list(call.keyword_nodes.items())
    return frozenset(name for name, node in named if _normal(node, after_self) in seen)


def _self_name(fn: ast.FunctionDef | None) -> str | None:
    args = fn.args.posonlyargs + fn.args.args if fn is not None else []
    return args[0].arg if args else None


class Baseline:
    """The unmutated pair of a mutant's check: in which configurations it diverges already."""

    def __init__(self, result: "PairResult", pair: "Pair"):
        self.known = {identity: is_divergence(kind) for kind, diff in result.differences.items()
                      for identity in diff.identities}
        self.explored = {frozenset(c.items()) for c in result.configs}
        self.pair = pair  # the unmutated versions, run in the mutant pair's world for new configurations

    def divergent(self, identity: frozenset, config: dict) -> bool:
        if identity in self.known:
            return self.known[identity]
        if identity in self.explored:
            return False
        self.pair.differences.clear()
        self.pair.seen.clear()
        self.pair.run(config, identity)
        found = any(is_divergence(k) for k in self.pair.differences)
        self.known[identity] = found
        return found


class BothRuns(NamedTuple):
    before: Observation
    after: Observation
    before_world: World
    after_world: World
    read: dict  # keys either version read -> the option it took
    recorded: dict  # the configuration as recorded
    identity: frozenset
    touched: set  # keys either version looked into


def run_both(sessions: dict, config: dict, identity: frozenset | None, arcs: "ArcTracer | None" = None,
             before: tuple | None = None) -> BothRuns:
    """Both sessions on `config`, traced for new code by `arcs` when given. `identity`: a seed's
    own choices (explore.py), else what the runs read. `before`: the before version's run of this
    very configuration, kept from an earlier pair on the same before version (a mutant's: its
    before version is the original's), so only the after version runs."""
    with arcs if arcs is not None else contextlib.nullcontext():
        ob, wb = before if before is not None else sessions["before"].run(config)
        oa, wa = sessions["after"].run(config)
    read = {**wb.read, **wa.read}
    recorded = read if identity is None else {**config, **read}
    return BothRuns(ob, oa, wb, wa, read, recorded, identity or frozenset(read.items()), wb.touched | wa.touched)


class ArcTracer:
    """Which arcs (line to line, per function) of the code under test the runs took: `novel()`
    says whether the last traced run took one no run took before (explore.py follows those)."""

    def __init__(self, codes: set):
        self.codes = codes
        self.seen: set[tuple] = set()
        self.new = False

    def __enter__(self):
        self.saved = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc):
        sys.settrace(self.saved)
        return False

    def _call(self, frame, event, arg):
        if frame.f_code not in self.codes:
            return None
        code, last = frame.f_code, [frame.f_lineno]

        def line(frame, event, arg):
            if event == "line":
                arc = (code, last[0], frame.f_lineno)
                if arc not in self.seen:
                    self.seen.add(arc)
                    self.new = True
                last[0] = frame.f_lineno
            elif event in ("return", "exception"):
                arc = (code, last[0], event)
                if arc not in self.seen:
                    self.seen.add(arc)
                    self.new = True
            return line

        return line

    def novel(self) -> bool:
        out, self.new = self.new, False
        return out


def run_pair(pair: Pair, seeds: list[dict] | None = None, budget: int = BUDGET, coverage: bool = True,
             stop_at_divergence: bool = False) -> PairResult:
    """`stop_at_divergence`: a mutant's check, which needs one divergence, not all of them."""
    too_long = time_limit.pair_clock()  # too many runs stopped, or too long spent: ends as at its budget
    divergent = (lambda: any(is_divergence(k) for k in pair.differences)) if stop_at_divergence else (lambda: False)
    stop = lambda: divergent() or too_long()  # noqa: E731
    novel = pair.arcs.novel if pair.arcs is not None else None
    propose = pair.concolic.proposals if pair.concolic is not None else None
    seeds = seeds or ([{}, {DIRECT: DIRECT_OPTIONS[1]}] if pair.direct else [{}])
    explored = explore(pair.run, pair.domains, seeds, budget, stop, novel, propose=propose)
    cut_short = too_long()
    pair.settle()
    covered, why = {}, []
    if coverage:
        covered = {side: measure_coverage(pair.sessions[side], explored.configs) for side in ("before", "after")}
        for side, cov in covered.items():
            never = [unit for unit in cov.never_entered if unit != "call site"]
            if never:
                version = pair.sessions[side].version
                why.append(f"{version.label}: " + pair.sessions[side].why_not_run(explored.configs[0], never))
    return PairResult(pair.before, pair.after, explored.configs, pair.differences, covered, pair.domains,
                      explored.budget_reached or cut_short, pair.observations, could_not_run="; ".join(why))


def measure_coverage(session: Session, configs: list[dict]) -> Coverage:
    units = session.version.units
    constants = {u.code: fixed_names(session.version.ext.files.parse(u.rel), u.node) for u in units}
    tracer = BranchTracer({u.code: u.node for u in units}, {u.code: u.role for u in units}, constants, session.files)
    return trace_until_done(tracer, session.run, configs)


def smallest(diff: Difference, domains: Domains) -> int:
    """Index of the configuration with the fewest non-default choices (ties: first explored)."""
    return min(range(len(diff.configs)), key=lambda i: (size(diff.configs[i], domains.options), i))
