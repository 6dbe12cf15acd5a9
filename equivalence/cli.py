"""Check that an extraction changed no behaviour: any method (--method), or PR #31147's preset.

`python -m equivalence --method CLASS.METHOD BEFORE AFTER`, `--steps PATH --method ... --to MODULE`;
PR #31147's preset: `python -m equivalence BEFORE AFTER`, `--steps PATH`. Either one on revisions
of a git checkout, which is only read: `--git BASE..HEAD [PATH]` (two revisions), `--commits
BASE..HEAD [PATH]` (each commit against its parent; see versions/git_review.py).

Parses the command line into the subject (`subjects.choose`; each subject adds its own options),
labelled trees and the pairs to check, has the subject check them and write its reports, and
maps the verdict to the exit code.

Exit 0 equivalent, 1 divergent (wins over incomplete coverage), 2 inconclusive / input not
covered / could not load / bad usage (message names file and line); 130 (143 for SIGTERM)
interrupted, with every temporary file removed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import signal
import sys
from pathlib import Path

from equivalence import subjects
from equivalence.engine.load.errors import LoadError
from equivalence.engine.report.verdict import Report
from equivalence.engine.report.pr_comment import fit
from pysource.parsing import Parses
from equivalence.subject import Subject
from equivalence.versions import compared, revisions
from equivalence.versions.codemod_steps import CodemodFailed, CodemodMissing, Interrupted, step_versions, temporary_workdir
from equivalence.versions.revisions import RevisionError, Series

EPILOG = """\
Expected consequences of an extraction are classified, never hidden: deferred-writes (results
applied by the caller after the function returns) and eager-read (the wrapper reads a runner
attribute the old body read lazily).

examples:
  python -m equivalence --method ModelRunner.init_threads_binding before/ after/ --mutants
  python -m equivalence --steps ~/sglang --method ModelRunner.init_threads_binding --to sglang.srt.utils.numa_utils
  python -m equivalence --steps ~/sglang --markdown report.md      original->1->2->3->4, original->one-shot
  python -m equivalence --steps ~/sglang --fix fp4-fallback          + the fix's exact delta
  python -m equivalence orig/ fixed/ --intended kv-str-keyerror --intended fp4-fallback-not-auto
  python -m equivalence --commits main..HEAD --markdown pr.md       each commit of a PR against its parent
  python -m equivalence --git main..HEAD ~/sglang                   the PR's base against its head
  python -m equivalence --method ModelRunner.init_threads_binding --commits main..HEAD

exit codes:
  0  equivalent (every difference classified, every branch of both versions run)
  1  divergent (a difference the extraction does not explain, a changed moved module global,
     an unintended fix delta or one that is not the fix its finding asks for); divergences win
     over an incomplete check, and both are reported
  2  incomplete: verdict "inconclusive" (no divergence, but a branch of either version was
     never run, or the code reached a value the harness only stubs, or the --mutants self-check
     let a mutant through or called a control divergent: "equivalent, but the self-check let
     3 of 16 mutants through: not proven"); could not load a version
     (file and line named); bad usage; torch or hypothesis not installed (one line gives the
     install command); with --git/--commits: not a git checkout, an unknown revision, an empty
     range, a revision without the class or method
  130/143  interrupted (SIGINT / SIGTERM); nothing is left behind
"""


# pyproject's `equivalence` extra (numpy: torch warns at import without it; z3-solver: engine/run/solve.py); a test keeps them equal
INSTALL = "pip install 'torch==2.13.0' 'hypothesis>=6.100' numpy 'z3-solver>=4.12'"


def require_harness() -> None:
    """Exit 2 with one line naming the install command when torch or hypothesis is missing
    (this package installed without its `equivalence` extra)."""
    for module in ("torch", "hypothesis"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            print(f"equivalence: the harness needs torch and hypothesis, and {module} is not installed: {INSTALL} "
                  "(or pip install -e '.[equivalence]' in a checkout of sglang-refactor)", file=sys.stderr)
            raise SystemExit(2) from None


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m equivalence", description=__doc__.splitlines()[0],
        epilog=subjects.help_text() + EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path,
                        help="BEFORE AFTER (two sglang trees); with --git/--commits: PATH, a git checkout "
                             "(default: the current folder)")
    subjects.add_options(parser, "naming")
    parser.add_argument("--steps", type=Path, metavar="PATH", help="run the codemod step by step on PATH and check each pair")
    revisions = parser.add_mutually_exclusive_group()
    revisions.add_argument("--git", metavar="BASE..HEAD", help="check revision BASE against HEAD of the checkout PATH")
    revisions.add_argument("--commits", metavar="BASE..HEAD",
                           help="check each commit of BASE..HEAD (first-parent chain) against its parent")
    subjects.add_options(parser, "codemod")
    subjects.add_options(parser, "check")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON (the contract other tools read)")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the report as Markdown, ready for a PR comment")
    parser.add_argument("--mutants", action="store_true", help="self-check: mutate the after version, count the mutants caught")
    subjects.add_options(parser, "tuning")
    args = parser.parse_args(argv)
    args.range = args.git or args.commits
    if args.range:
        if args.steps or len(args.trees) > 1:
            parser.error("--git/--commits BASE..HEAD take one PATH, a git checkout (default: the current folder)")
        if args.commits and args.intended:
            parser.error("--intended goes with BEFORE AFTER or --git BASE..HEAD (one pair)")
    elif bool(args.steps) == bool(args.trees) or (args.trees and len(args.trees) != 2):
        parser.error("give either BEFORE AFTER or --steps PATH, or --git/--commits BASE..HEAD [PATH]")
    subject = subjects.choose(args)
    subject.validate(args, parser.error)
    return args, subject


def check_paths(args, subject: Subject) -> Series | None:
    """Each PATH's folder holding the package, or with --git/--commits the revisions, and what each
    tree must hold (`Subject.check_tree`): found (or refused, in one line) before torch is imported."""
    if args.range:
        return revisions.series(args.trees[0] if args.trees else Path.cwd(), args.range, bool(args.commits))
    for path in [args.steps] if args.steps else args.trees:
        subject.root(path)
    for path in [args.steps] if args.steps else args.trees:
        subject.check_tree(path)
    return None


def main(argv=None) -> int:
    parses = Parses()  # each text parsed once in the run, from the first look at the trees on
    try:
        args, subject = parse_args(argv)
        with parses:
            series = check_paths(args, subject)
        require_harness()
    except SystemExit as e:
        return 2 if e.code else 0
    except (LoadError, RevisionError) as e:
        print(f"equivalence: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # reading the trees, importing torch: nothing made yet
        print("equivalence: interrupted; nothing was written", file=sys.stderr)
        return 128 + signal.SIGINT
    try:
        with temporary_workdir() as work, parses:
            report = run(args, subject, series, work)
    except (LoadError, CodemodMissing, CodemodFailed, RevisionError) as e:
        print(f"equivalence: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Interrupted) as e:
        print("equivalence: interrupted; temporary files removed", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)
    document = report.to_json()
    if args.json:
        args.json.write_text(json.dumps(document, indent=1))
    if args.markdown:
        args.markdown.write_text(fit(subject.markdown(document)))
    print(subject.terminal(document))
    return report.exit_code()


def run(args, subject: Subject, series: Series | None, work: Path) -> Report:
    """The report of the versions the command line names: revisions of a git checkout, the
    codemod's steps on a tree, or two trees."""
    from equivalence.versions.git_review import Checker, review

    if series:
        intended = subject.intended()
        checker = Checker(subject.git_files, lambda trees, pairs: subject.check(trees, pairs, args.mutants, intended),
                          (LoadError,))
        return review(series, work, checker).adding("compared", compared.of_revisions(series))
    if args.steps:
        fixes = subject.fixes()
        versions = step_versions(subject.root(args.steps), work, subject.refactor(), fixes)
        report = subject.check(versions.trees, versions.pairs, args.mutants, versions.intended)
        return report.adding("compared", compared.of_steps(args.steps, versions, subject.codemod_name,
                                                           [f.name for f in fixes]))
    report = subject.check([(str(p), p) for p in args.trees], [(0, 1)], args.mutants, subject.intended())
    return report.adding("compared", compared.of_trees(args.trees, [subject.root(p) for p in args.trees]))

