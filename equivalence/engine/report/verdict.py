"""A check's report: its one verdict (`verdict_of`: the pairs' verdicts, the self-check weighed
in), its pairs and the sections a check or the command line adds, and the exit status it means.
`Report.to_json()` is the JSON contract other tools read; the writers render from it."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from equivalence.engine.report.models import PairEntry
from equivalence.engine.run.time_limit import CUT, RUN_SECONDS

COULD_NOT_RUN = "could not run"
EXIT = {"divergent": 1, "equivalent": 0}  # anything else: 2


def not_modelled_names(entry: dict) -> list[str]:
    """What a not-modelled entry's runs reached: stubs' names, or time_limit.CUT for a run stopped."""
    return [n for side in ("before", "after") for n in (entry.get(side) or {}).get("not_modelled", [])]


def overall(verdicts: list[str]) -> str:
    for verdict in ("divergent", COULD_NOT_RUN, "inconclusive"):
        if verdict in verdicts:
            return verdict
    return "equivalent"


def self_check_failures(mutants: dict | None) -> list[str]:
    """What the self-check (--mutants) got wrong, in words: mutants it let through, controls (edits
    that change nothing) it called divergent. Empty when it passed or did not run."""
    if not mutants:
        return []
    out = []
    survived = mutants["total"] - mutants["killed"]
    if survived:
        out.append(f"let {survived} of {mutants['total']} mutants through")
    controls = mutants.get("controls") or {}
    if controls.get("killed"):
        out.append(f"called {len(controls['killed'])} of {controls['total']} controls (edits that change nothing) "
                   f"divergent")
    return out


def verdict_of(verdicts: list[str], mutants: dict | None) -> dict:
    """The report's one verdict, from its pairs' verdicts and the self-check: `verdict` (what the
    exit status says: equivalent 0, divergent 1, anything else 2) and `verdict_line` (the same in
    words). A self-check that failed leaves no pair equivalent proven: "equivalent, but the
    self-check let 3 of 16 mutants through: not proven" is inconclusive; a divergence stays one."""
    verdict = overall(verdicts)
    failed = self_check_failures(mutants)
    out = {"verdict": verdict, "verdict_line": verdict}
    if mutants is not None:
        out["self_check"] = {"passed": not failed, "failures": failed}
    if failed and verdict == "equivalent":
        out.update(verdict="inconclusive", verdict_line=f"equivalent, but the self-check {' and '.join(failed)}: "
                                                         f"not proven")
    elif failed:
        out["verdict_line"] = f"{verdict}, and the self-check {' and '.join(failed)}"
    return out


Sections = tuple[tuple[str, object], ...]  # (JSON key, its value), in the order written


@dataclass(frozen=True)
class Report:
    """`pairs`: each pair's entry; `leading`: sections written before the pairs (the moves
    found), `sections` after them (a preset's findings, the self-check's mutants, the revisions,
    what was compared)."""

    verdict: str
    verdict_line: str
    pairs: tuple[PairEntry, ...]
    self_check: dict | None = None
    leading: Sections = ()
    sections: Sections = ()

    @classmethod
    def of(cls, pairs: list[PairEntry], mutants: dict | None = None, sections: Sections = ()) -> Report:
        """The report of `pairs`, its verdict weighing in the self-check's `mutants`, written
        after the other `sections`."""
        verdict = verdict_of([p.verdict for p in pairs], mutants)
        return cls(verdict["verdict"], verdict["verdict_line"], tuple(pairs), verdict.get("self_check"),
                   sections=tuple(sections) + ((("mutants", mutants),) if mutants is not None else ()))

    @classmethod
    def from_json(cls, document: dict) -> Report:
        keys = list(document)
        at = keys.index("pairs")
        rest = [(k, document[k]) for k in keys if k not in ("verdict", "verdict_line", "self_check", "pairs")]
        pairs = tuple(PairEntry.from_json(p) for p in document["pairs"])
        return cls(document["verdict"], document.get("verdict_line", document["verdict"]), pairs,
                   document.get("self_check"), tuple((k, v) for k, v in rest if keys.index(k) < at),
                   tuple((k, v) for k, v in rest if keys.index(k) > at))

    def adding(self, key: str, value) -> Report:
        """This report with the section `key` written last."""
        return replace(self, sections=self.sections + ((key, value),))

    def section(self, key: str):
        return dict(self.leading + self.sections).get(key)

    @property
    def mutants(self) -> dict | None:
        return self.section("mutants")

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "verdict_line": self.verdict_line,
                **({"self_check": self.self_check} if self.self_check is not None else {}),
                **dict(self.leading), "pairs": [p.to_json() for p in self.pairs], **dict(self.sections)}

    def exit_code(self) -> int:
        """What the verdict says: 1 when divergent (a real divergence, an unintended fix delta),
        even if some branches were also never run or some values not modelled (both are
        reported); 0 when equivalent; else 2 (inconclusive, not proven by a failed self-check,
        could not run). Why, on stderr."""
        for line in self.why():
            print(f"equivalence: {line}", file=sys.stderr)
        return EXIT.get(self.verdict, 2)

    def why(self) -> list[str]:
        real = [d["kind"] for p in self.pairs for d in p.divergences]
        mutants = self.mutants
        survived = mutants["total"] - mutants["killed"] if mutants else 0
        controls = len(mutants.get("controls", {}).get("killed", [])) if mutants else 0
        out = []
        if controls:
            out.append(f"self-check failed: {controls} control(s) that change nothing were called divergent, "
                       "so this harness sees differences that are not there")
        stopped = {n for p in self.pairs for d in p.not_modelled for n in not_modelled_names(d)}
        if any(p.not_modelled for p in self.pairs) and stopped != {CUT}:
            out.append("the code reached values the harness only stubs (not modelled): those runs are not checked")
        if CUT in stopped:
            out.append(f"some runs went past the {RUN_SECONDS:g} s allowed to one run and were stopped: those runs "
                       "are not checked")
        if any(c["missed"] for p in self.pairs for c in p.coverage.values()):
            out.append("inconclusive: some branches were never run by the configurations, so a difference there "
                       "would not have been seen (the report says why, under 'why not hit')")
        out += [f"could not run: {p.could_not_run}" for p in self.pairs if p.could_not_run]
        if survived:
            out.append(f"self-check failed: {survived} mutant(s) survived, "
                       "so this harness cannot be trusted to see such a change")
        if real:
            out.append(f"divergent: {len(real)} kind(s) of difference the extraction does not explain")
        return out
