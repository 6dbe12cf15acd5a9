"""What every codemod command does around its plan, so that all of them behave the same.

Before planning (`prepare`): finish or roll back a run a kill interrupted (the writer's
journal), refuse `--dry-run` while a journal is there, check `--commit`'s repository. After
(`apply_plan`): status lines on stderr, then the diff alone on stdout (`--dry-run`), one
commit per step (`--commit`; a failure says which steps are committed and which are not), or
an all-or-nothing write. `add_output_options` adds the options that choose among them (a kind's
`core.steps.Steps.parse` reads `--steps A-B`); `core.kind.Kind.main` calls them all.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from codemods.core.output import print_diff, status
from codemods.core.errors import EXIT_OK, BadInput, Conflicts, Interrupted
from codemods.core.gitops import check_clean_repo, commit
from codemods.core.plan import Plan
from codemods.core.writer import JOURNAL, recover, write_files


PATH_HELP = "a git checkout (holding python/sglang) or any folder holding the package"


def add_output_options(p: argparse.ArgumentParser) -> None:
    """--dry-run, --commit, --no-format: what a command does with its plan."""
    p.add_argument("--dry-run", action="store_true",
                   help="print the unified diff alone on stdout, write nothing; its paths are relative to "
                        "the git checkout holding PATH (else to PATH), so `--dry-run | git apply` run "
                        "there writes what a run would. Status lines always go to stderr")
    p.add_argument("--commit", action="store_true",
                   help="one git commit per step (refused outside a git repository or on a dirty tree)")
    p.add_argument("--no-format", action="store_true",
                   help="do not format touched code with black + isort (the tree's own settings, else sglang's)")


class WriteFailed(BadInput):
    """A write failed part way (disk full, I/O error); `write_files` restored the files."""


def _write(root: Path, changes: dict, originals: dict, what: str = "") -> None:
    try:
        write_files(root, changes, originals)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise WriteFailed(f"{where}cannot write{what}: {exc.strerror or exc}; "
                          f"the files were restored as they were") from None


def _label(step) -> str:
    return f"fix {step.fix}" if getattr(step, "fix", "") else f"step {step.number}"


def commit_steps(plan: Plan) -> None:
    """One commit per step; a failure, or a Ctrl-C, says exactly which steps are committed and
    which are not."""
    originals = dict(plan.originals)
    done: list[str] = []
    for i, step in enumerate(plan.steps):
        what = _label(step)
        later = [_label(s) for s in plan.steps[i + 1:]]
        state = (f" Committed before it: {', '.join(done)}." if done else " Nothing was committed.") + \
                (f" Not written: {', '.join(later)}." if later else "")
        try:
            _write(plan.root, step.changes, originals, f" {what}")
        except WriteFailed as exc:
            raise BadInput(exc.why + "." + state) from None
        except KeyboardInterrupt:  # the write restored its files
            if not done:
                raise  # nothing written: run_command's one line
            raise Interrupted(f"interrupted before {what} was written." + state) from None
        try:
            commit(plan.root, list(step.changes), step.subject)
        except BadInput as exc:
            raise BadInput(f"{exc.why}: {what}'s changes are written to the working tree but not committed."
                           + state, exc.path) from None
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted while committing {what}: its changes are written to the working tree "
                              "(`git log -1` says whether they were committed)." + state) from None
        originals.update(step.changes)
        done.append(what)
        status(f"committed {what}: {step.subject}")


def prepare(args, root: Path) -> Path:
    """Before planning: finish (or roll back) an interrupted run under `root` (the folder holding
    the package), check --commit's repository."""
    if not args.dry_run:
        done = recover(root)
        if done:
            status(done)
    elif (root / JOURNAL).exists():
        raise BadInput("an interrupted run left its journal here: run once without --dry-run to "
                       "finish it (or roll it back) first", root / JOURNAL)
    if args.commit and args.dry_run:
        raise BadInput("--commit and --dry-run exclude each other")
    if args.commit:
        check_clean_repo(root)
    return root


def apply_plan(args, plan: Plan) -> int:
    """Status lines, then the diff (--dry-run), the commits (--commit) or the write."""
    if args.commit and plan.broken_between_steps:
        raise Conflicts(plan.broken_between_steps, note=(
            "With --commit each step is a commit, and the commits before the last would break these places (the "
            "last step mends them): run without --commit to write the steps together, or update those places first."))
    for msg in plan.messages:
        status(msg)
    if args.dry_run:
        print_diff(args.path, plan.changes, plan.originals)
        return EXIT_OK
    if args.commit:
        commit_steps(plan)
        return EXIT_OK
    _write(plan.root, plan.changes, plan.originals)  # a Ctrl-C in it restores every file
    for path in plan.changes:
        status(f"wrote {path}")
    return EXIT_OK
