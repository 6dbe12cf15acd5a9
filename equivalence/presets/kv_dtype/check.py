"""PR #31147's check: loaded versions -> pairs over the preset's configurations -> fixes' deltas
-> findings -> mutants -> report dict.

All pairs run the same configurations (hints.py: one shared world, the preset's seeds, plus
whatever the exploration adds for keys the preset does not name), so that a finding's set is
comparable across versions and a fix's delta with its finding.
"""

from __future__ import annotations

import ast

from equivalence import progress
from equivalence.engine.check import static_of, survives
from equivalence.engine.load.inputs import skip_annotations
from equivalence.engine.load.literals import string_literals
from equivalence.engine.load.version import Version
from equivalence.engine.report.verdict import Report
from equivalence.engine.results import Checked
from equivalence.engine.run.observe import capture_logs
from equivalence.engine.run.pairs import BUDGET, Pair, PairResult, run_pair
from equivalence.engine.selfcheck.mutate import controls_of
from equivalence.engine.world.world import Domains
from equivalence.presets.kv_dtype import hints as presets
from equivalence.presets.kv_dtype.findings import FindingSets, Observed, collect
from equivalence.presets.kv_dtype.hints import BACKEND, DRAFT, SPEC
from equivalence.presets.kv_dtype.intended import apply_intended
from equivalence.presets.kv_dtype.mutants import MUTANTS, mutant_sources
from equivalence.presets.kv_dtype.observed import refine
from equivalence.presets.kv_dtype.report import build
from equivalence.presets.kv_dtype.subject import SUBJECT

DFLASH_ATTRIBUTES = {"is_draft_worker": DRAFT, "spec_algorithm": SPEC, "speculative_draft_attention_backend": BACKEND}


def literals(versions: list[Version]) -> list[str]:
    """The strings each version's decision (then its helpers) tests the kv string against."""
    out: list[str] = []
    for version in versions:
        code = [(u.rel, u.node) for u in version.units if u.role not in ("call site", "wrapper")]
        code += version.inputs.helpers
        for rel, node in code:
            out += string_literals([node], version.ext.files.parse(rel), skip_annotations)
    return list(dict.fromkeys(out))


ALGO_NAME = "kv_cache_quant_algo"
CASE_FOLDS = ("upper", "lower", "casefold")


def algo_values(versions: list[Version]) -> list[str]:
    """The quant algo strings that tell apart the tests each version's decision makes of the algo
    (read from every version: a test only the after version makes counts too): `== L` needs L (and,
    after `.upper()`/`.lower()`, L in another case), `.startswith(L)` an extension L + "x",
    `.endswith(L)` "x" + L, `in (a, b)` each of them."""
    out: list[str] = []
    for version in versions:
        code = [u.node for u in version.units if u.role not in ("call site", "wrapper")]
        code += [n for _, n in version.inputs.helpers]
        for node in (n for c in code for n in ast.walk(c)):
            if isinstance(node, ast.Compare):
                for side, other in ((node.left, node.comparators), *((c, [node.left]) for c in node.comparators)):
                    folded = _algo_receiver(side)
                    if folded is None:
                        continue
                    for o in other:
                        for lit in ([o.value] if isinstance(o, ast.Constant) else
                                    [e.value for e in getattr(o, "elts", []) if isinstance(e, ast.Constant)]):
                            if isinstance(lit, str):
                                out += [lit, lit.lower(), lit.swapcase()] if folded else [lit]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("startswith", "endswith") and node.args \
                    and _algo_receiver(node.func.value) is not None:
                for lit in (c.value for c in ast.walk(node.args[0]) if isinstance(c, ast.Constant)):
                    if isinstance(lit, str):
                        out.append(lit + "x" if node.func.attr == "startswith" else "x" + lit)
    return list(dict.fromkeys(out))


def _algo_receiver(node: ast.AST) -> bool | None:
    """Whether `node` is the algo (False), the algo with its case changed (True), else None."""
    folded = False
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        folded = folded or node.func.attr in CASE_FOLDS
        node = node.func.value
    if (isinstance(node, ast.Name) and node.id == ALGO_NAME) or (isinstance(node, ast.Attribute) and node.attr == ALGO_NAME):
        return folded
    return None


def dflash_inputs(versions: list[Version]) -> set[str]:
    """The DFLASH keys some version reads (their combinations join the configurations)."""
    nodes = [u.node for v in versions for u in v.units] + [n for v in versions for _, n in v.inputs.helpers]
    attrs = {n.attr for node in nodes for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    return {key for attr, key in DFLASH_ATTRIBUTES.items() if attr in attrs}


def check(versions: list[Version], pairs: list[tuple[Version, Version]], seed=None, examples=150,
          mutants: bool = False, intended: dict[int, list[str]] | None = None) -> Report:
    """`intended`: pair index -> the findings that pair (a fix) may change."""
    words = literals(versions)
    hints = presets.hints(words, dflash_inputs(versions), seed, examples, algo_values(versions))
    domains = Domains.from_hints(hints)
    restore = capture_logs(versions)
    try:
        observed: dict[int, Observed] = {}
        results: list[Checked[PairResult]] = []
        for before, after in progress.each("pair", pairs, lambda p: f"{p[0].label} -> {p[1].label}"):
            # findings read each version's observations from the first pair holding it
            keep = id(before) not in observed or id(after) not in observed
            pair = Pair(before, after, domains, hints, refine=refine, keep=keep)
            result = run_pair(pair, hints.seeds)
            results.append(Checked(result, static_of(before, after)))
            for side, version in (("before", before), ("after", after)):
                if keep:
                    observed.setdefault(id(version), Observed(version.label, pair.sessions[side].observe,
                                                              result.observations[side]))
        sets = FindingSets([frozenset(s.items()) for s in hints.seeds])
        for index, findings in (intended or {}).items():
            result = results[index].result
            apply_intended(result, findings, observed[id(result.before)], observed[id(result.after)], sets)
        findings = collect([observed[id(v)] for v in versions], sets, words)
        # the refactoring's last pair (a fix's pair differs on purpose)
        plain = [r.result for i, r in enumerate(results) if i not in (intended or {})] or [results[-1].result]
        mutant_report = run_mutants(plain[-1], domains, hints) if mutants else None
    finally:
        restore()
    return build(results, findings, mutant_report, words)


def run_mutants(result: PairResult, domains: Domains, hints) -> dict:
    """The preset's mutants of `result.after` against `result.before`, over its configurations, and
    the engine's controls of its moved logic (edits that change nothing, which must survive:
    `engine.selfcheck.mutate.controls_of`), judged in the same loop by the same `survives`: a check
    that counted mutants killed without running them would kill the controls too."""
    after = result.after
    survivors, not_applicable, ids, killed_controls = [], [], [], []
    controls = controls_of(after.ext)
    judged = [(m, False) for m in MUTANTS] + [(c, True) for c in controls]
    for mutant, control in progress.each("mutant", judged, lambda m: m[0].id):
        sources = mutant.overrides if control else mutant_sources(after, mutant)
        if sources is None:  # e.g. drop-record on a shape that records nothing: no such change to make
            not_applicable.append(mutant.id)
            continue
        found: dict = {}
        why = survives(result.before, lambda: SUBJECT.load(after.root, f"{after.label}+{mutant.id}",
                                                           {**after.overrides, **sources}),
                       lambda version: Pair(result.before, version, domains, hints, refine=refine), hints.seeds, BUDGET,
                       found=found)
        if control:
            if why is None:
                killed_controls.append({"id": mutant.id, "description": mutant.description,
                                        "reason": f"the check called this change divergent ({found.get('how')}: "
                                                  f"{found.get('what')}), yet it changes nothing"})
            continue
        ids.append(mutant.id)
        if why:
            survivors.append({"id": mutant.id, "description": mutant.description, "reason": why})
    return {"total": len(ids), "killed": len(ids) - len(survivors), "survivors": survivors,
            "not_applicable": not_applicable, "ids": ids,
            "controls": {"total": len(controls), "survived": len(controls) - len(killed_controls),
                         "killed": killed_controls, "ids": [c.id for c in controls]}}
