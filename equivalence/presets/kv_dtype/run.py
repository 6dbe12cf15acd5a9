"""Orchestration: loaded versions -> pair results -> findings -> mutants -> report dict."""

from __future__ import annotations

from ... import progress
from .findings import FindingSets, collect
from .intended import apply_intended
from .loader import Version
from .mutants import NOT_APPLICABLE, load_mutants
from .observe import install_log_capture
from .pairs import ConfigSpace, run_pair
from .report import build


def check(versions: list[Version], pairs: list[tuple[Version, Version]], seed=None, examples=150,
          mutants: bool = False, intended: dict[int, str] | None = None) -> dict:
    """`intended`: pair index -> the finding id whose configurations that pair (a fix) may change."""
    space = ConfigSpace(seed, examples)
    sessions: dict = {}
    sets = FindingSets()
    restore = install_log_capture(versions)
    try:
        results = [run_pair(b, a, space, sessions) for b, a in progress.each("pair", pairs, pair_label)]
        for index, finding in (intended or {}).items():
            apply_intended(results[index], finding, sessions, sets)
        first = results[0]
        per_version = []
        for version in versions:
            observations = next(
                (r.observations[side] for r in results for side, v in (("before", r.before), ("after", r.after))
                 if v is version and r.configs is first.configs),
                {},
            )
            per_version.append((version.label, sessions[id(version)], observations))
        findings = collect(per_version, first.configs, first.literals, first.active, sets)
        # the refactoring's last pair (a fix's pair differs on purpose)
        plain = [p for i, p in enumerate(pairs) if i not in (intended or {})] or pairs
        mutant_report = run_mutants(*plain[-1], space, sessions) if mutants else None
    finally:
        restore()
    return build(results, findings, mutant_report)


def pair_label(pair: tuple[Version, Version]) -> str:
    return f"{pair[0].label} -> {pair[1].label}"


def run_mutants(before: Version, after: Version, space: ConfigSpace, sessions: dict) -> dict:
    loaded = load_mutants(after)
    restore = install_log_capture([v for _, v, _ in loaded if v is not None])
    try:
        survivors, not_applicable, rejected, killed = [], [], [], 0
        for mutant, version, problem in progress.each("mutant", loaded, lambda m: m[0].id):
            if problem == NOT_APPLICABLE:
                # e.g. drop-record on a shape that records nothing: no such change to make
                not_applicable.append(mutant.id)
                continue
            if version is None and mutant.rejected_at_load:
                # a platform global not bound the sglang way: refused at load (exit 2), see mutants.py
                killed += 1
                rejected.append({"id": mutant.id, "message": problem})
                continue
            if version is None:
                survivors.append({"id": mutant.id, "description": mutant.description, "reason": problem})
                continue
            result = run_pair(before, version, space, sessions, stop_at_first=True, observe_all=False)
            if result.divergent:
                killed += 1
            else:
                survivors.append({"id": mutant.id, "description": mutant.description, "reason": "no divergence found"})
    finally:
        restore()
    return {"total": len(loaded) - len(not_applicable), "killed": killed, "survivors": survivors,
            "not_applicable": not_applicable, "rejected_at_load": rejected}
