"""Check an extraction of CLASS.METHOD: loaded versions -> pairs (run + static) -> mutants -> report.

Each pair is explored in a world of its own (its keys and domains); the static check compares
the two versions' code modulo the substitution map (static_check.py). With `mutants`, the
generic mutants of the last pair's after version (mutate.py) are each loaded as a version and
checked against that pair's before version, starting from the configurations the pair ran:
a mutant is killed when the pair is divergent.
"""

from __future__ import annotations

import ast
import copy
import types
from dataclasses import dataclass, field
from typing import Callable

from equivalence import progress
from pysource.names import global_reads
from equivalence.engine.load.version import LoadError, Unit, Version, load
from equivalence.engine.selfcheck.mutate import controls_of, mutants_of
from equivalence.engine.run.observe import capture_logs
from equivalence.engine.judge.compare import ALREADY_DIVERGENT, is_divergence
from equivalence.engine.run.pairs import BUDGET, Baseline, Pair, PairResult, run_pair
from equivalence.engine.report.report import build
from equivalence.engine.report.verdict import Report
from equivalence.engine.results import Checked, NotRun, PairOutcome
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
    # methods of the class moved in the same change, each -> the function of the target module it
    # became: run for real in both versions (the method before, the function after), not inputs
    together: tuple[tuple[str, str], ...] = ()
    # methods of the class the moved code calls that moved in the same change to a function of
    # another module (`self.get_config()` -> `config_of(args)`), each -> that function's
    # `MODULE.function`: a call of either is the same call, one answer (their own check is theirs)
    co_moved: tuple[tuple[str, str], ...] = ()
    direct: bool = False  # each version's method called directly (not through a call site in the class)
    bases: bool = False  # the modules of the class's bases in the checkout run for real (load.version.load)
    new_code_runs: bool = False  # a hand-written PR's new helpers beside the moved code: run, not changed globals

    def load(self, root, label: str, overrides: dict | None = None) -> Version:
        version = load(root, label, self.source_rel, self.class_name, self.method_name, self.function_name, overrides,
                       self.real_inputs, self.direct, self.bases)
        version.together = self.together
        version.co_moved = self.co_moved
        version.new_code_runs = self.new_code_runs
        version.units += _moved_along_units(version, self.together)
        return version


def _moved_along_units(version: Version, together) -> list[Unit]:
    """The methods moved along (before) or the functions they became (after), measured for branch
    coverage like the method itself: run for real, their branches count."""
    out = []
    ext = version.ext
    core, _ = ext.core
    calls_bare = global_reads(core) if core is not None and ext.function is not None else set()
    for method, function in together:
        # the moved code calling the function by name (a wrapper of the method kept beside it,
        # never called from there): the function is what runs
        fn = None if function in calls_bare else version.cls.__dict__.get(method)
        fn = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
        node = next((n for n in ext.class_node.body if isinstance(n, ast.FunctionDef) and n.name == method), None)
        if isinstance(fn, types.FunctionType) and node is not None:
            out.append(Unit(f"moved along {method}", fn.__code__, node, ext.source_rel))
            continue
        if ext.target_rel is None or ext.target_rel not in version.modules:
            continue
        fn = version.modules[ext.target_rel].__dict__.get(function)
        node = next((n for n in ext.files.parse(ext.target_rel).body if isinstance(n, ast.FunctionDef)
                     and n.name == function), None)
        if isinstance(fn, types.FunctionType) and node is not None:
            out.append(Unit(f"moved along {function}", fn.__code__, node, ext.target_rel))
    return out


@dataclass(frozen=True)
class Unloaded:
    """A version whose modules could not be imported here (load.CouldNotImport): its pairs end in
    "could not run", with the reason, in every report format."""

    label: str
    reason: str


def check(versions: list[Version | Unloaded], pairs: list[tuple[Version | Unloaded, Version | Unloaded]],
          method: Method, mutants: bool = False, budget: int = BUDGET) -> Report:
    restore = capture_logs([v for v in versions if isinstance(v, Version)])
    try:
        results: list[PairOutcome] = []
        for b, a in progress.each("pair", pairs, lambda p: f"{p[0].label} -> {p[1].label}"):
            unloaded = [v for v in (b, a) if isinstance(v, Unloaded)]
            if unloaded:
                results.append(NotRun(b.label, a.label, "; ".join(f"{v.label}: {v.reason}" for v in unloaded)))
            else:
                results.append(Checked(run_pair(Pair(b, a, Domains()), budget=budget), static_of(b, a)))
        last = results[-1]
        mutant_report = None
        if mutants and isinstance(last, Checked):
            mutant_report = run_mutants(last.result, method, budget)
    finally:
        restore()
    return build(results, mutant_report)


def static_of(before: Version, after: Version) -> StaticReport | str:
    """The static check of a pair, or why it could not be done."""
    try:
        # a method moved elsewhere in the same change reads as the function it became, as one moved along
        co_moved = tuple((method, function.rpartition(".")[2]) for method, function in after.co_moved)
        return static_check(before.ext, after.ext, after.together + co_moved, getattr(after, "new_code_runs", False))
    except StaticCheckError as e:
        return str(e)


def run_mutants(result: PairResult, method: Method, budget: int) -> dict:
    """Each mutant of `result.after` against `result.before`, from the configurations the pair
    ran; killed when divergent where the unmutated pair is not (on a divergent pair, its own
    divergences are no kill, and the report says so)."""
    after = result.after
    survivors, ids = [], []
    mutants = mutants_of(after.ext, MUTANTS)
    unmutated = static_of(result.before, after)
    def pair_for(version):
        pair = Pair(result.before, version, copy.deepcopy(result.domains))
        if result.divergent:
            pair.baseline = Baseline(result, Pair(result.before, after, pair.domains))
        return pair

    killed_by: dict[str, list[str]] = {"static": [], "run": []}
    for mutant in progress.each("mutant", mutants, lambda m: m.id):
        ids.append(mutant.id)
        found: dict = {}
        why = survives(result.before, lambda: method.load(after.root, f"{after.label}+{mutant.id}",
                                                          {**after.overrides, **mutant.overrides}),
                       pair_for, result.configs, budget, unmutated, found)
        if why is None:
            killed_by.setdefault(found.get("how", "unknown"), []).append(mutant.id)
        else:
            survivors.append({"id": mutant.id, "description": mutant.description, "reason": why})
    out = {"total": len(mutants), "killed": len(mutants) - len(survivors), "survivors": survivors, "ids": ids,
           "killed_by": killed_by}
    # controls: edits that change nothing, which must survive (else the check sees what is not there)
    controls = controls_of(after.ext)
    killed = []
    for control in progress.each("control", controls, lambda m: m.id):
        load = (lambda c: lambda: method.load(after.root, f"{after.label}+{c.id}", {**after.overrides, **c.overrides}))(control)
        found = {}
        if survives(result.before, load, pair_for, result.configs, budget, unmutated, found) is None:
            shown = f" ({found['how']}: {found['what']})" if found else ""
            killed.append({"id": control.id, "description": control.description,
                           "reason": f"the check called this change divergent{shown}, yet it changes nothing"})
    out["controls"] = {"total": len(controls), "survived": len(controls) - len(killed), "killed": killed,
                       "ids": [c.id for c in controls]}
    if result.divergent or (isinstance(unmutated, StaticReport) and unmutated.divergent):
        already = sum(len(d.configs) for k, d in result.differences.items() if is_divergence(k))
        out["note"] = (f"the unmutated pair is divergent itself ({already} configurations"
                       + (", and a changed module global" if isinstance(unmutated, StaticReport) and unmutated.divergent
                          else "")
                       + "): a mutant counts as killed only by a divergence the unmutated pair does not show "
                         "(another configuration, or another changed global); the score says how well the "
                         "check sees changes beyond the pair's own difference, not that the pair is sound")
    return out


def survives(before: Version, load_mutant: Callable[[], Version], pair_for: Callable[[Version], Pair],
             seeds: list[dict], budget: int, unmutated: StaticReport | str | None = None,
             found: dict | None = None) -> str | None:
    """None when a mutant is killed (divergent by its static check, with a changed global the
    unmutated version's check does not show, or by running, which stops at its first divergence
    the unmutated pair does not show: Pair.baseline), else why it survived. `found`, when given,
    gets how it was killed ("static" or "run") and what showed it."""
    how, why = _judge(before, load_mutant, pair_for, seeds, budget, unmutated)
    if found is not None and how:
        found.update(how=how, what=why)
    return None if how else why


def _new_call_site_residuals(static: StaticReport | str, unmutated: StaticReport | str | None) -> str:
    """The call sites the mutant's static check finds rewritten otherwise than the first, which
    the unmutated version's does not: such a mutant is never called equivalent (report.py)."""
    if not isinstance(static, StaticReport):
        return ""
    # by their text, not their lines: an edit of a static method above them shifts those
    already = {(r.before, r.after) for r in unmutated.residuals} if isinstance(unmutated, StaticReport) else set()
    return "; ".join(r.note for r in static.residuals if r.kind == "call-site" and (r.before, r.after) not in already)


def _judge(before: Version, load_mutant: Callable[[], Version], pair_for: Callable[[Version], Pair],
           seeds: list[dict], budget: int, unmutated: StaticReport | str | None = None) -> tuple[str, str]:
    """("static" or "run", what found it) when the mutant is killed, else ("", why it survived)."""
    try:
        version = load_mutant()
    except LoadError as e:
        return "", f"does not load: {e}"
    restore = capture_logs([version])
    try:
        static = static_of(before, version)
        if isinstance(static, StaticReport) and static.divergent:
            already = {(c.name, c.after) for c in unmutated.constants if not c.equal} \
                if isinstance(unmutated, StaticReport) else set()
            new = [c.name for c in static.constants if not c.equal and (c.name, c.after) not in already]
            if new:
                return "static", f"changed module global {', '.join(new)}"
        sites = _new_call_site_residuals(static, unmutated)
        if sites:
            return "static", sites
        outcome = run_pair(pair_for(version), seeds, budget, coverage=False, stop_at_divergence=True)
    finally:
        restore()
    if outcome.divergent:
        return "run", ", ".join(k for k in outcome.differences if is_divergence(k))
    already = outcome.differences.get(ALREADY_DIVERGENT)
    return "", (
        "no divergence found" + (" (a stub it reached is not modelled)" if outcome.verdict == "inconclusive" else "")
        + (f" beyond the unmutated pair's own ({len(already.configs)} configurations)" if already else "")
        + f" over {len(outcome.configs)} configurations")
