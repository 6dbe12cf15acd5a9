"""`--git BASE..HEAD` / `--commits BASE..HEAD`: check revisions of a git checkout.

Each revision's files are read from git into the run's temporary folder (versions/revisions.py), the
consecutive revisions are checked as pairs by the subject's check (`Subject.check`), and the
report gains a `revisions` section saying which commit introduced a divergence. A revision
that cannot be loaded is bad input (exit 2), named by its short hash and subject.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from equivalence.engine.report.verdict import Report, overall
from equivalence.versions import revisions
from equivalence.versions.revisions import Revision, RevisionError, Series


@dataclass(frozen=True)
class Checker:
    """What the check needs from each revision, and the check itself."""

    # paths inside the folder holding the package, the first one required; None: every .py file
    files: tuple[str, ...] | None
    # (trees [(label, folder holding the package)], pairs [(before, after) indices]) -> report
    check: Callable[[list[tuple[str, Path]], list[tuple[int, int]]], Report]
    load_errors: tuple[type[Exception], ...]  # what `check` raises when a tree cannot be loaded


def review(series: Series, work: Path, checker: Checker) -> Report:
    """The report of `checker` on the revisions of `series` (`revisions.series`), each
    consecutive pair checked, read into `work`; bad input raises RevisionError (one line)."""
    if revisions.uncommitted_changes(series.repo):
        print(f"equivalence: note: {series.repo} has uncommitted changes; they are not checked, "
              f"only the revisions of {series.spec} are read", file=sys.stderr)
    folders = [work / f"{index}-{rev.short}" for index, rev in enumerate(series.revisions)]
    trees = [(rev.short, _write(series, index, folder, checker.files))
             for index, (rev, folder) in enumerate(zip(series.revisions, folders))]
    try:
        report = checker.check(trees, [(i, i + 1) for i in range(len(trees) - 1)])
    except checker.load_errors as e:
        index = next((i for i, folder in enumerate(folders) if str(folder) in str(e)), None)
        if index is None:
            raise
        raise RevisionError(f"{_named(series, index)}: {revisions.in_repository_terms(str(e), folders[index])}") \
            from None
    return report.adding("revisions", summary(series, report))


def _named(series: Series, index: int) -> str:
    rev: Revision = series.revisions[index]
    return f"revision {rev.short} '{rev.subject}'" + (" (the range's base)" if index == 0 else "")


def _write(series: Series, index: int, folder: Path, files: tuple[str, ...] | None) -> Path:
    try:
        return revisions.write_revision(series.repo, series.revisions[index], folder, files)
    except RevisionError as e:
        raise RevisionError(f"{_named(series, index)}: {e}") from None


NOTHING_CHECKED = "nothing checked"  # a revision in which no check had anything (no method moved there)


def summary(series: Series, report: Report) -> dict:
    """The JSON contract: the range, the base, each revision checked against its parent with the
    verdict of the pairs ending at it (a pair's after version is named by the revision's short
    hash: one pair for a named method; with nothing named, one per move found there, or none),
    the first divergent one (the commit that introduced the divergence) and any later ones."""
    ending: dict[str, list[str]] = {}
    for pair in report.pairs:
        ending.setdefault(str(pair.after), []).append(pair.verdict)
    checked = [{**rev.to_json(), "verdict": overall(ending[rev.short]) if rev.short in ending else NOTHING_CHECKED}
               for rev in series.revisions[1:]]
    divergent = [c["short"] for c in checked if c["verdict"] == "divergent"]
    return {
        "mode": series.mode,
        "range": series.spec,
        "repository": str(series.repo),
        "base": series.revisions[0].to_json(),
        "checked": checked,
        "introduced_by": divergent[0] if divergent else None,
        "also_divergent": divergent[1:],
    }
