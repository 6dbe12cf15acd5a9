"""Check a component extraction: loaded versions -> pairs (sequences run in one world, static
check) -> mutants -> report (the `--method` report's JSON shape, so that its Markdown and
terminal renderings serve).

For each pair, what moved is read off the two versions: the methods the sequences call (those the
component of the later version holds that the owner of the earlier one defines, or `--methods`),
the helpers that moved along, the moved state (the component's fields its builder does not
pass), and what the owner rebinds (`shape.written_chains` of both versions, those the moved code
reads). Exploration, coverage and verdicts are the engine's (`engine.run.explore`,
`engine.run.coverage`): equivalent only with no divergence and every branch of every moved
method, delegation and builder of both versions run; a stub reached is "not modelled"; one of
them never called in a version is "could not run". Why a function was never called, and why
each branch was never taken, are the engine's reasons (`engine.run.why`), in the same report keys
(`could_not_run`, each side's `coverage.why_missed`).
"""

from __future__ import annotations

import ast
import copy
from typing import NamedTuple
from dataclasses import dataclass, field, replace

from equivalence import progress
from equivalence.component.run import MAX_CALLS, STOP, Session, Signature, seed_domains
from equivalence.component.shape import read_chains, written_chains
from equivalence.component.static import static_check
from equivalence.component.version import Loaded, Prepared, load, prepare
from equivalence.engine.judge.compare import (CLASSIFIED, EAGER, NOT_MODELLED, UNSET_STATE, is_divergence,
                                              kind_of_effects)
from equivalence.engine.load.errors import LoadError
from equivalence.engine.load.literals import fixed_names
from equivalence.engine.report.models import PairEntry, listed_inputs
from equivalence.engine.report.report import EXPLAIN
from equivalence.engine.report.verdict import COULD_NOT_RUN, Report
from equivalence.engine.results import Checked
from equivalence.engine.run import time_limit
from equivalence.engine.run.coverage import BranchTracer, trace_until_done
from equivalence.component.explore import explore
from equivalence.engine.run.explore import size
from equivalence.engine.run.pairs import ArcTracer, run_both
from equivalence.engine.run.solve import Concolic
from equivalence.engine.run.observe import Observation, capture_logs
from equivalence.engine.world.values import same
from equivalence.engine.world.world import ABSENT, Domains, describe, value

MUTANTS = 30
SEQUENCE_BUDGET = 8000  # configurations per pair, shared among the sequence shapes
MIN_SHARE = 100  # configurations per sequence shape at least
SATURATE = 1000  # a shape's exploration ends after this many runs in a row that reached no new code
# (MIN_SHARE for a sequence whose calls share no moved state: its first call changes nothing the second reads)
COUPLED = 6  # the weight of a sequence coupled through moved state (and of each method alone), others 1
EXPLAIN_COMPONENT = {
    **EXPLAIN,
    EAGER: "the component is built reading, up front, owner attributes the old methods read when called: with "
           "such an attribute missing, building fails where the old owner failed at the call (the codemod builds "
           "it where `__init__` has assigned them all)",
    UNSET_STATE: "a call reads moved state that nothing has set yet: both versions raise the same AttributeError, "
                 "naming the class that keeps the state (the owner before, the component after)",
    "different-construction": "building the owner (and its component) fails in one version only, or otherwise",
    "different-outcome": "a call raises in one version and not in the other, or another exception type",
    "different-exception-message": "a call raises the same exception type with different messages",
    "different-return": "a call returns different values",
    "different-state": "the owner (or the moved state, where each version keeps it) ends in a different state",
}


@dataclass(frozen=True)
class Component:
    """What to check: the owner CLASS in `owner_rel` and its attribute ATTR holding the component;
    `methods`: the sequence's methods (None: read off the versions)."""

    class_name: str
    attr: str
    owner_rel: str
    methods: tuple[str, ...] | None = None
    bases: tuple[str, ...] = ()  # base classes whose methods count as the owner's (a mixin the methods left)
    together: tuple[tuple[str, str], ...] = ()  # (owner method, function) moved along, when not of one name
    renames: tuple[tuple[str, str], ...] = ()  # (the component's method, the owner's before) renamed by the move
    before_rel: str | None = None  # where the before version keeps the owner, when the class moved to another file
    new_code_runs: bool = False  # a hand-written PR's new helpers beside the moved code: run, not changed globals

    def load(self, root, label: str, overrides: dict | None = None) -> Loaded:
        return load(root, label, self.owner_rel, self.class_name, self.attr, overrides, self.bases)

    def before(self) -> "Component":
        """The subject as the before version holds it (the owner in its old file)."""
        return replace(self, owner_rel=self.before_rel, before_rel=None) if self.before_rel else self


@dataclass
class Difference:
    kind: str
    configs: list = field(default_factory=list)
    observations: list = field(default_factory=list)


class ComponentPair:
    def __init__(self, before: Loaded, after: Loaded, subject: Component, domains: Domains | None = None,
                 like: "ComponentPair | None" = None):
        """`like`: a pair whose after version this one's is a mutant of: the same methods, state and
        rebindings (a mutant may no longer build the component at all)."""
        self.subject = subject
        shapes = [before.shape, after.shape]
        components = [s for s in shapes if s.component is not None]
        if like is not None:
            components = components or [like.after.loaded.shape]
        if not components:
            taken = next(((s, s.taken) for s in shapes if s.taken is not None), None)
            raise LoadError(f"{before.shape.where(before.shape.owner_rel, before.shape.owner)}: neither version "
                            f"builds self.{subject.attr}: nothing to compare" + (
                                f" ({taken[0].owner.name} takes it from `{ast.unparse(taken[1])}`, another object's: "
                                f"the check builds only what the owner builds)" if taken else ""))
        latest = components[-1]
        if subject.methods:
            self.methods = list(subject.methods)
        else:
            first = shapes[0].methods
            # a private method is a helper, but where the owner's code that stays calls it: then the
            # owner reaches it through the component too (`self.ATTR._m()`), a public path of its own
            staying = [fn for name, fn in first.items() if name not in latest.component_methods]
            reached = {n.attr for fn in staying for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
            self.methods = [m for m in latest.component_methods if m in first and (
                not m.startswith("_") or m in reached)] or [m for m in latest.component_methods if m in first]
        if not self.methods:
            raise LoadError(f"{latest.where(latest.component_rel, latest.component)}: {latest.component.name} holds no "
                            f"method the owner of {before.label} defines: nothing to compare (only the owner's own "
                            f"methods count, not those it inherits from a base or mixin: compare against a tree where "
                            f"the owner defines them)")
        moved = set(self.methods) | {m for s in components for m in s.component_methods}
        # a method the move renamed: each version calls it by its own name
        self.names = [_names(s, subject.renames) for s in shapes]
        for s, names in zip(shapes, self.names):  # a method moved into the factory: the owner's builder calls it
            if s.factory is not None and s.factory in self.methods and s.builder is not None:
                names[s.factory] = s.builder.name
        # owner methods the moved ones call that left the class too, not into the component (into
        # functions its code calls): they run for real where the owner still has them
        self.along = like.along if like is not None else _left_along(shapes, {self.names[0].get(m, m) for m in moved})
        moved |= self.along
        self.along_functions = self.along | {f for m, f in subject.together if m in self.along}
        if like is not None:  # a mutant's pair: what the owner rebinds is the original pair's (not read again)
            self.methods, self.state, self.rebound = like.methods, like.state, like.rebound
            moved |= set(like.before.real) | set(like.after.real) | {
                m for m in like.after.loaded.shape.component_methods}
        else:
            self.state = sorted({f for s in components for f in s.state})
            here = [moved | set(n.values()) for n in self.names]  # each version's names of the moved methods
            self.rebound = sorted({w for s, m in zip(shapes, here) for w in written_chains(s, m)
                                   if any(w == r[:len(w)] for t, n in zip(shapes, here) for r in read_chains(t, n))})
        sig_source = {}
        for s, names in zip(shapes, self.names):
            for m in self.methods:
                here = names.get(m, m)
                fn = s.methods.get(here) if here in s.methods and s.component is None else \
                    s.component_methods.get(m) or s.methods.get(here)
                if fn is not None and m not in sig_source:
                    sig_source[m] = fn
        missing = [m for m in self.methods if m not in sig_source]
        if missing:
            raise LoadError(f"{latest.where(latest.owner_rel, latest.owner)}: neither version defines "
                            f"{', '.join(missing)}")
        self.signatures = {m: Signature(m, fn) for m, fn in sig_source.items()}
        self.before, self.after = (prepare(before, moved, set(self.state), names=self.names[0]),
                                   prepare(after, moved, set(self.state), names=self.names[1]))
        self.domains = domains or Domains()
        seed_domains(self.domains, self.methods)
        pools = (tuple(dict.fromkeys(self.before.inputs.strings + self.after.inputs.strings)),
                 tuple(dict.fromkeys(self.before.inputs.numbers + self.after.inputs.numbers)),
                 tuple(dict.fromkeys(self.before.inputs.keys + self.after.inputs.keys)))
        self.sessions = {side: Session(v, self.domains, pools, self.signatures, self.rebound, self.state)
                         for side, v in (("before", self.before), ("after", self.after))}
        self.differences: dict[str, Difference] = {}
        self.seen: set = set()
        self.state_use = _state_use([before.shape, after.shape], self.methods, set(self.state), self.names)
        self.eager = {ast.unparse(v) for v in after.shape.passed.values() if not isinstance(v, ast.Lambda)
                      and isinstance(v, ast.Attribute)}
        # where each version keeps the moved state: the owner's class, or its component's
        self.keepers = [(v.component or v.cls).__name__ for v in (before, after)]
        self.unbuilt = f"{after.cls.__name__!r} object has no attribute {subject.attr!r}"  # (run.Session._call)
        # the exploration follows the runs that reach new code (explore.py)
        self.arcs = ArcTracer({u.code for session in self.sessions.values() for u in session.version.units})
        self.concolic = Concolic()  # the comparisons no run took both ways, solved for (engine.run.solve)
        self.returned: dict[frozenset, Observation] = {}  # a configuration whose first call returned -> before's run
        # the before version's run of each configuration (as recorded): a mutant's pair, whose before
        # version is this one's, runs only its after version on them
        self.before_runs: dict[frozenset, tuple] = like.before_runs if like is not None else {}
        self.reuse_before = like is not None and like.before.loaded is before

    def run(self, config: dict, identity=None):
        kept = self.before_runs.get(frozenset(config.items())) if self.reuse_before else None
        run = run_both(self.sessions, config, identity, self.arcs, kept)
        if not self.reuse_before:
            self.before_runs[frozenset(run.recorded.items())] = (run.before, KeptWorld(
                run.before_world.read, run.before_world.touched, run.before_world.path))
        self.concolic.feed({k: v for k, v in config.items() if k in run.read},
                           [run.before_world.path, run.after_world.path])
        if run.before.returned and run.before.returned[0][0] is None:  # what a second call may start from
            self.returned[frozenset(run.recorded.items())] = run.before
        if run.identity not in self.seen:
            self.seen.add(run.identity)
            kind = classify(run.before, run.after, self.eager, run.read, (self.keepers, self.state, self.unbuilt))
            if kind != "equal":
                d = self.differences.setdefault(kind, Difference(kind))
                d.configs.append(run.recorded)
                d.observations.append((run.before, run.after))
        return run.recorded, run.read, run.touched


def _names(shape, renames: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The renamed methods a version's owner holds under their old name (before the move, or a
    wrapper kept after it, which callers still call): the later name -> the old one."""
    return {new: old for new, old in renames if new not in shape.methods and old in shape.methods}


def _left_along(shapes_, moved: set[str]) -> set[str]:
    """The earlier version's owner methods that its moved methods call on `self` (and those these
    call, in turn) which no later version's owner or component defines."""
    first, rest = shapes_[0], shapes_[1:]
    methods = first.methods
    kept = {m for s in rest for m in (*s.methods, *s.component_methods)}
    out: set[str] = set()
    todo = [m for m in moved if m in methods]
    while todo:
        fn = methods[todo.pop()]
        me = fn.args.args[0].arg if fn.args.args else "self"
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                    and n.func.value.id == me and n.func.attr in methods and n.func.attr not in kept \
                    and n.func.attr not in moved and n.func.attr not in out:
                out.add(n.func.attr)
                todo.append(n.func.attr)
    return out


class KeptWorld(NamedTuple):
    """What a pair reads of a before version's world once its run is over."""
    read: dict
    touched: set
    path: list


def _state_use(shapes_, methods: list[str], state: set[str], names: list[dict[str, str]] = ()
               ) -> dict[str, tuple[set, set]]:
    """{method: (moved state it writes or changes, moved state it reads)}, from whichever version's
    body of it (and of the helpers it calls) says so (`names`: each version's name of a renamed one)."""
    out: dict[str, tuple[set, set]] = {}
    for m in methods:
        writes, reads = set(), set()
        for i, s in enumerate(shapes_):
            fns = [*s.methods.values(), *s.component_methods.values()]
            here = names[i].get(m, m) if i < len(names) else m
            for fn in (f for f in fns if f.name in (m, here)):
                for n in ast.walk(fn):
                    if isinstance(n, ast.Attribute) and n.attr in state:
                        reads.add(n.attr)
                        writes.add(n.attr)  # a use may change it (item set, del, a call on it): coupled
        out[m] = (writes, reads)
    return out


def classify(before: Observation, after: Observation, eager: set[str] = frozenset(), read: dict | None = None,
             kept: tuple = ((), ())) -> str:
    """`eager`: the owner attributes the later version's builder reads (`self.tp_rank`); `kept`:
    (the classes keeping the moved state in each version, its names)."""
    if before.not_modelled or after.not_modelled:
        return NOT_MODELLED
    if same(before, after):
        return "equal"
    if not same(before.exception, after.exception):
        if before.exception is None and after.exception is not None and after.exception[0] == "AttributeError" \
                and any((read or {}).get(k) == ABSENT for k in eager):
            return EAGER
        return "different-construction"
    unset = False
    for b, a in zip(before.returned, after.returned):
        if not same(b[0], a[0]):
            if b[0] is None or a[0] is None or b[0][0] != a[0][0]:
                return "different-outcome"
            if not _unset_state(b[0], a[0], *kept):
                return "different-exception-message"
            unset = True
            continue
        if not same(b[1], a[1]):
            return "different-return"
    if len(before.returned) != len(after.returned):
        return "different-outcome"
    if unset and same(before.events, after.events) and same(before.state, after.state):
        return UNSET_STATE
    return kind_of_effects(before, after)


def _unset_state(b: tuple, a: tuple, keepers, state, unbuilt: str = "") -> bool:
    """Both raised the AttributeError of one moved state attribute, each naming its keeper's class
    (or the later one's owner, `unbuilt`, naming the component it has not built yet)."""
    if b[0] != "AttributeError" or len(keepers) != 2 or keepers[0] == keepers[1]:
        return False
    return any(b[1] == f"{keepers[0]!r} object has no attribute {name!r}"
               and (a[1] == f"{keepers[1]!r} object has no attribute {name!r}" or unbuilt and a[1] == unbuilt)
               for name in state)


@dataclass
class Result:
    pair: ComponentPair
    configs: list
    budget_reached: bool
    coverage: dict
    could_not_run: str = ""  # why a function under test was never called in some version (nothing proven of it)

    @property
    def divergent(self) -> bool:
        return any(is_divergence(k) for k in self.pair.differences)

    @property
    def verdict(self) -> str:
        if self.divergent:
            return "divergent"
        if self.could_not_run:
            return COULD_NOT_RUN
        if NOT_MODELLED in self.pair.differences or any(not c.complete for c in self.coverage.values()):
            return "inconclusive"
        return "equivalent"


def shapes(methods: list[str], length: int = 2) -> list[dict]:
    """Each sequence of up to `length` calls (every method alone, then every ordered pair), as the
    call keys of a seed: the exploration varies everything else within it."""
    out = [[m] for m in methods]
    if length > 1:
        out += [[a, b] for a in methods for b in methods]
    return [{**{f"call[{i}]": value(m) for i, m in enumerate(seq)},
             **({f"call[{len(seq)}]": STOP} if len(seq) < MAX_CALLS else {})} for seq in out]


def _coupled(pair: ComponentPair, seed: dict) -> bool:
    """A sequence whose first call may change moved state a later one reads: it gets more of the budget."""
    calls = [seed[f"call[{i}]"][1] for i in range(MAX_CALLS) if seed.get(f"call[{i}]", STOP)[1] is not None]
    if len(calls) < 2:
        return True  # each method alone: every branch it has on its own
    writes, reads = pair.state_use.get(calls[0], (set(), set())), pair.state_use.get(calls[1], (set(), set()))
    return bool(writes[0] & reads[1])


def _completed(pair: ComponentPair, configs: list[dict], keep: int = 6) -> list[dict]:
    """Up to `keep` configurations of one call that returned (no exception): where a second call
    starts from (the state the first one left). First one of each kind of result and moved state
    left, told apart by the shape of the values (a group stored as None, as an object, none
    stored: strings alike), then others with different values."""
    left = []
    for c in configs:
        o = pair.returned.get(frozenset(c.items()))  # as the exploration ran it (else it raised)
        if o is not None:
            moved = next((v for k, v in o.state if k == "moved state"), ())
            left.append(({k: v for k, v in c.items() if not k.startswith("call[")}, (o.returned[0][1], moved)))
    out, seen = [], set()
    for mark in (lambda v: repr(_kind_of(v)), repr):
        for config, outcome in left:
            if len(out) >= keep:
                return out
            if mark(outcome) not in seen and config not in out:
                seen.add(mark(outcome))
                out.append(config)
    return out


def _kind_of(value):
    """A canonical value with every string alike (stand-ins print as strings)."""
    if isinstance(value, str):
        return "<str>"
    if isinstance(value, (tuple, list)):
        return tuple(_kind_of(v) for v in value)
    return value


def run_pair(pair: ComponentPair, seeds=None, budget: int = SEQUENCE_BUDGET, coverage: bool = True,
             stop_at_divergence: bool = False) -> Result:
    """Explore each sequence shape in turn (`shapes`), each with its share of `budget` (a check
    that starts from `seeds`, a mutant's, runs those); then measure coverage over them all."""
    too_long = time_limit.pair_clock()  # too many runs stopped, or too long spent: ends as at its budget
    divergent = (lambda: any(is_divergence(k) for k in pair.differences)) if stop_at_divergence else (lambda: False)
    stop = lambda: divergent() or too_long()  # noqa: E731
    configs, reached = [], False
    if seeds:
        explored = explore(pair.run, pair.domains, seeds, 0, stop)
        configs, reached = explored.configs, explored.budget_reached
    else:
        starts = shapes(pair.methods)
        weights = [COUPLED if _coupled(pair, seed) else 1 for seed in starts]
        unit = budget / sum(weights)
        completed: dict[str, list[dict]] = {}  # method -> configurations of it alone that returned
        for seed, weight in zip(starts, weights):
            first = seed["call[0]"][1]
            single = seed.get("call[1]", STOP) == STOP
            extended = [] if single else [
                {**c, **seed} for c in completed.get(first, [])]
            # a sequence whose calls share no moved state stops sooner once it reaches no new code
            explored = explore(pair.run, pair.domains, [seed, *extended], max(MIN_SHARE, int(unit * weight)), stop,
                               pair.arcs.novel, pair.concolic.proposals, SATURATE if weight == COUPLED else MIN_SHARE)
            configs += explored.configs
            reached |= explored.budget_reached
            if single:
                completed[first] = _completed(pair, explored.configs)
            if stop():
                break
    reached |= too_long()

    class explored:  # noqa: N801 - the shape `coverage` below reads
        pass

    explored.configs, explored.budget_reached = configs, reached
    covered, why = {}, []
    if coverage:
        for side in ("before", "after"):
            session = pair.sessions[side]
            units = session.version.units
            tree = session.version.loaded.shape.tree
            constants = {u.code: fixed_names(tree.parse(u.rel), u.node) for u in units}  # `if DEBUG:`, `range(128)`
            tracer = BranchTracer({u.code: u.node for u in units}, {u.code: u.role for u in units}, constants,
                                  session.files)
            covered[side] = trace_until_done(tracer, session.run, explored.configs)
            if covered[side].never_entered and explored.configs:
                why.append(f"{session.version.label}: " + _why_not_run(session, explored.configs,
                                                                         covered[side].never_entered))
    return Result(pair, explored.configs, explored.budget_reached, covered, "; ".join(why))


def _why_not_run(session: Session, configs: list[dict], never: list[str]) -> str:
    """Why the functions `never` were never called, from a configuration whose sequence calls the
    method each is part of (the first configuration for a builder or a helper)."""
    by_config: dict[int, list[str]] = {}
    for unit in never:
        name = unit.partition(" ")[2]
        i = next((n for n, c in enumerate(configs) if c.get("call[0]") == value(name)), None)
        by_config.setdefault(i, []).append(unit)
    return "; ".join(session.why_not_run(configs[i or 0], units, "the first configuration" if i is None else
                                         f"the first configuration calling {units[0].partition(' ')[2]}")
                     for i, units in by_config.items())


def summary(o: Observation) -> dict:
    from equivalence.engine.world.world import json_value

    return {
        "construction": None if o.exception is None else f"{o.exception[0]}: {o.exception[1]}",
        "calls": [{"exception": None if e is None else f"{e[0]}: {e[1]}", "returned": json_value(r)}
                  for e, r in o.returned],
        "events": [[json_value(x) for x in e] for e in o.events],
        **({"not_modelled": list(o.not_modelled)} if o.not_modelled else {}),
    }


def _entry(result: Result, d: Difference) -> dict:
    options = result.pair.domains.options
    i = min(range(len(d.configs)), key=lambda n: (size(d.configs[n], options), n))
    config = d.configs[i]
    before, after = d.observations[i]
    return {"kind": d.kind, "count": len(d.configs), "example": {k: describe(o) for k, o in config.items()},
            "choices": {k: describe(o) for k, o in config.items() if options.get(k, [o])[0] != o},
            "size": size(config, options)[0], "sequence": _sequence(config),
            "before": summary(before), "after": summary(after),
            **({"explanation": EXPLAIN_COMPONENT[d.kind]} if d.kind in EXPLAIN_COMPONENT else {})}


def _sequence(config: dict) -> list[str]:
    """The calls of a configuration, in order, with the rebindings before them."""
    out = []
    for i in range(MAX_CALLS):
        option = config.get(f"call[{i}]")
        if option is None or option[1] is None:
            break
        if config.get(f"rebind@{i}", ("value", False))[1]:
            out.append("rebind")
        out.append(option[1])
    return out


def pair_entry(result: Result, static) -> PairEntry:
    pair = result.pair
    diffs = pair.differences
    divergences = [_entry(result, diffs[k]) for k in sorted(diffs) if is_divergence(k)]
    classified = [_entry(result, diffs[k]) for k in sorted(diffs) if k in CLASSIFIED]
    not_modelled = [_entry(result, diffs[k]) for k in sorted(diffs) if k == NOT_MODELLED]
    verdict = result.verdict
    if static.divergent:
        changed = [c.to_json() for c in static.constants if not c.equal]
        divergences.append({"kind": "changed-module-global", "count": len(changed), "globals": changed,
                            "explanation": EXPLAIN["changed-module-global"]})
        verdict = "divergent"
    inputs = {k: pair.domains.options[k] for k in dict.fromkeys(k for c in result.configs for k in c)}
    listed = listed_inputs({k: [describe(o) for o in v] for k, v in inputs.items()})
    return PairEntry(
        before=pair.before.label, after=pair.after.label,
        shapes={"before": _shape(pair.before), "after": _shape(pair.after)},
        verdict=verdict, could_not_run=result.could_not_run or None,
        configs=len(result.configs), budget_reached=result.budget_reached,
        divergences=tuple(divergences), classified=tuple(classified), not_modelled=tuple(not_modelled),
        coverage={k: c.to_json() for k, c in result.coverage.items()},
        inputs=listed[0], inputs_left_out=listed[1],
        static=static.to_json(),
        component={"methods": pair.methods, "state": pair.state,
                   "rebound": [".".join(("self",) + c) for c in pair.rebound]},
    )


def _shape(v: Prepared) -> str:
    shape = v.loaded.shape
    if shape.component is None:
        return "owner methods"
    on_owner = sorted(v.on_owner)
    return "component, owner delegating" if on_owner and shape.component_methods else \
        "component introduced" if on_owner else "component"


def check(versions: list[Loaded], pairs: list[tuple[Loaded, Loaded]], subject: Component, mutants: bool = False,
          budget: int = SEQUENCE_BUDGET) -> Report:
    restore = capture_logs_of(versions)
    try:
        results: list[Checked[Result]] = []
        for b, a in progress.each("pair", pairs, lambda p: f"{p[0].label} -> {p[1].label}"):
            pair = ComponentPair(b, a, subject)
            results.append(Checked(run_pair(pair, budget=budget), static_check(pair)))
        mutant_report = run_mutants(results[-1].result, subject, budget) if mutants else None
    finally:
        restore()
    return Report.of([pair_entry(r.result, r.static) for r in results], mutant_report)


def capture_logs_of(versions: list[Loaded]):
    class _V:  # capture_logs reads `.modules` of each version
        def __init__(self, v):
            self.modules = v.modules

    return capture_logs([_V(v) for v in versions])


def run_mutants(result: Result, subject: Component, budget: int) -> dict:
    """Each mutant of the pair's after version against its before version, from the configurations
    the pair ran, and the controls (edits that change nothing, which must survive), judged in the
    same loop by the same `survives`: a check that counted mutants killed without running them
    would kill the controls too."""
    from equivalence.component.mutants import component_controls, component_mutants

    found = component_mutants(result.pair.after, MUTANTS)
    controls = component_controls(result.pair.after)
    survivors, killed_by, killed_controls = [], {"static": [], "run": []}, []
    for mutant in progress.each("mutant", [*found, *controls], lambda m: m.id):
        how: dict = {}
        why = survives(result, subject, mutant, budget, how)
        if mutant.kind.startswith("control-"):
            if why is None:
                killed_controls.append({"id": mutant.id, "description": mutant.description,
                                        "reason": f"the check called this change divergent ({how.get('how')}: "
                                                  f"{how.get('what')}), yet it changes nothing"})
        elif why is None:
            killed_by.setdefault(how.get("how", "unknown"), []).append(mutant.id)
        else:
            survivors.append({"id": mutant.id, "description": mutant.description, "reason": why})
    return {"total": len(found), "killed": len(found) - len(survivors), "survivors": survivors,
            "ids": [m.id for m in found], "killed_by": killed_by,
            "controls": {"total": len(controls), "survived": len(controls) - len(killed_controls),
                         "killed": killed_controls, "ids": [c.id for c in controls]}}


def _method_at(shape, mutant) -> str | None:
    """The method of the version (the owner's or the component's) holding the mutated line."""
    for rel, methods in ((shape.component_rel, shape.component_methods), (shape.owner_rel, shape.methods)):
        if rel == mutant.file_rel:
            for name, fn in methods.items():
                if fn.lineno <= mutant.line <= fn.end_lineno:
                    return name
    return None


def _calling_first(configs: list[dict], method: str | None) -> list[dict]:
    """The configurations whose sequence calls `method` first (a mutant of it can only show there,
    or through a helper it calls), the others after, each group in its order."""
    if method is None:
        return configs
    calls = value(method)
    hit = [c for c in configs if any(c.get(f"call[{i}]") == calls for i in range(MAX_CALLS))]
    return hit + [c for c in configs if not any(c.get(f"call[{i}]") == calls for i in range(MAX_CALLS))]


def survives(result: Result, subject: Component, mutant, budget: int, found: dict) -> str | None:
    """None when `mutant` (of the pair's after version) is killed: its static check finds a changed
    module global, or its sequences, from the configurations the pair ran, diverge from the before
    version's; `found` then says how ("static" or "run") and what showed it. Else why it survived."""
    pair = result.pair
    after = pair.after.loaded
    try:
        version = subject.load(after.root, f"{after.label}+{mutant.id}", {**after.overrides, **mutant.overrides})
    except LoadError as e:
        return f"does not load: {e}"
    restore = capture_logs_of([version])
    try:
        mp = ComponentPair(pair.before.loaded, version, subject, copy.deepcopy(pair.domains), like=pair)
        static = static_check(mp)
        if static.divergent:
            found.update(how="static", what=", ".join(c.name for c in static.constants if not c.equal))
            return None
        outcome = run_pair(mp, _calling_first(result.configs, _method_at(after.shape, mutant)), budget,
                           coverage=False, stop_at_divergence=True)
    finally:
        restore()
    if outcome.divergent:
        kinds = sorted(k for k in mp.differences if is_divergence(k))
        first = mp.differences[kinds[0]]
        found.update(how="run", what=f"{kinds[0]} in sequence {' -> '.join(_sequence(first.configs[0]))}")
        return None
    return ("no divergence found" + (" (a stub it reached is not modelled)" if NOT_MODELLED in mp.differences else "")
            + f" over {len(outcome.configs)} configurations")
