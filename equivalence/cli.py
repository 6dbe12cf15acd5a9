"""Check that an extraction changed no behaviour: any method (--method), or PR #31147's preset.

`python -m equivalence --method CLASS.METHOD BEFORE AFTER`, `--steps PATH --method ... --to MODULE`;
PR #31147's preset: `python -m equivalence BEFORE AFTER`, `--steps PATH`. Either one on revisions
of a git checkout, which is only read: `--git BASE..HEAD [PATH]` (two revisions), `--commits
BASE..HEAD [PATH]` (each commit against its parent; see versions/git_review.py).

Parses the command line into labelled trees and the pairs to check, hands them to
`check_trees` with the subject (a method, or the kv_dtype preset), writes the reports and maps
the verdict to the exit code.

Exit 0 equivalent, 1 divergent (wins over incomplete coverage), 2 inconclusive / input not
covered / could not load / bad usage (message names file and line); 130 (143 for SIGTERM)
interrupted, with every temporary file removed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from equivalence.engine.report.pr_comment import fit
from equivalence.versions.codemod_steps import CodemodFailed, CodemodMissing, Interrupted, temporary_workdir
from equivalence.versions.revisions import RevisionError

EPILOG = """\
with --method (any extraction):
  Imports the real modules holding CLASS.METHOD in each version (torch real, the rest of the
  package stubbed) and runs the call site on an instance built without __init__, in a world
  that answers every attribute, global, environment variable and call the code reads, from one
  choice per access path shared by both versions; what to vary (and which values) is derived
  from the code and from how it uses what it reads. Observed: calls with their arguments,
  writes, logs, the exception, the return value. Also compares the moved code with the old
  body statically (static check). See README "Reviewing any extraction".

without --method (PR #31147's preset, ModelRunner.configure_kv_cache_dtype):
  The same engine, with the inputs the review names given their values (the kv string, the
  model's quant config, the model dtype, _is_hip, fp8_dtype, torch with or without float4):
  every combination (finite part exhaustively, free text from hypothesis), and the findings
  that hold in every version but contradict what the code says (fp4-fallback-not-auto,
  kv-str-keyerror) with their count and smallest configuration. Inputs it does not name (a
  renamed attribute, a new global) are varied like any method's.

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
     an unintended fix delta or one that is not the fix its finding asks for, a mutant that
     survived --mutants); divergences win over an incomplete check, and both are reported
  2  incomplete: verdict "inconclusive" (no divergence, but a branch of either version was
     never run, or the code reached a value the harness only stubs); could not load a version
     (file and line named); bad usage; torch or hypothesis not installed (one line gives the
     install command); with --git/--commits: not a git checkout, an unknown revision, an empty
     range, a revision without the class or method
  130/143  interrupted (SIGINT / SIGTERM); nothing is left behind
"""


# pyproject's `equivalence` extra (numpy: torch warns at import without it); a test keeps them equal
INSTALL = "pip install 'torch==2.13.0' 'hypothesis>=6.100' numpy"


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


@dataclass
class Options:
    """What to check (a method, else the kv_dtype preset), how hard to look, and what to add to
    the pairwise check."""

    method: str | None = None  # CLASS.METHOD or MODULE.CLASS.METHOD
    function: str | None = None  # the extracted function's name, when not the method's
    seed: int | None = None
    examples: int = 150
    mutants: bool = False
    intended: dict[int, list[str]] = field(default_factory=dict)  # pair index -> findings that pair fixes


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m equivalence", description=__doc__.splitlines()[0],
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path,
                        help="BEFORE AFTER (two sglang trees); with --git/--commits: PATH, a git checkout "
                             "(default: the current folder)")
    parser.add_argument("--method", metavar="CLASS.METHOD",
                        help="check an extraction of this method (MODULE.CLASS.METHOD when several modules define CLASS)")
    parser.add_argument("--steps", type=Path, metavar="PATH", help="run the codemod step by step on PATH and check each pair")
    revisions = parser.add_mutually_exclusive_group()
    revisions.add_argument("--git", metavar="BASE..HEAD", help="check revision BASE against HEAD of the checkout PATH")
    revisions.add_argument("--commits", metavar="BASE..HEAD",
                           help="check each commit of BASE..HEAD (first-parent chain) against its parent")
    codemod = parser.add_argument_group("with --steps --method: codemods.extract_method's options")
    codemod.add_argument("--to", metavar="TARGET.MODULE", help="the module the function moves to")
    codemod.add_argument("--name", metavar="FUNCTION", help="the extracted function's name (default: the method's)")
    codemod.add_argument("--rename", action="append", default=[], metavar="ATTR=PARAM",
                         help="pass self.ATTR as parameter PARAM (repeatable)")
    codemod.add_argument("--narrow", action="append", default=[], metavar="PARAM",
                         help="a parameter only read as PARAM.Y becomes PARAM_Y (repeatable)")
    codemod.add_argument("--pass-self", metavar="NAME", help="pass the instance whole under this name")
    codemod.add_argument("--move-global", action="append", default=[], metavar="NAME",
                         help="move this module global with the function (repeatable)")
    parser.add_argument("--fix", action="append", default=[], metavar="NAME",
                        help="kv preset, with --steps: apply the codemod's fix NAME after step 4 (repeatable) and "
                             "require its delta to be exactly its finding's configurations")
    parser.add_argument("--intended", action="append", default=[], metavar="FINDING_ID",
                        help="kv preset, with BEFORE AFTER (or --git BASE..HEAD): AFTER fixes this finding of "
                             "BEFORE (repeatable); any other difference the extraction does not explain diverges")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON (the contract other tools read)")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the report as Markdown, ready for a PR comment")
    parser.add_argument("--mutants", action="store_true", help="self-check: mutate the after version, count the mutants caught")
    parser.add_argument("--seed", type=int, default=None, help="kv preset: hypothesis seed (default: derandomized)")
    parser.add_argument("--examples", type=int, default=150, help="kv preset: hypothesis examples per input set")
    args = parser.parse_args(argv)
    args.range = args.git or args.commits
    if args.range:
        if args.steps or len(args.trees) > 1:
            parser.error("--git/--commits BASE..HEAD take one PATH, a git checkout (default: the current folder)")
        if args.commits and args.intended:
            parser.error("--intended goes with BEFORE AFTER or --git BASE..HEAD (one pair)")
    elif bool(args.steps) == bool(args.trees) or (args.trees and len(args.trees) != 2):
        parser.error("give either BEFORE AFTER or --steps PATH, or --git/--commits BASE..HEAD [PATH]")
    if args.method is not None and len(args.method.split(".")) < 2:
        parser.error(f"--method wants CLASS.METHOD (or MODULE.CLASS.METHOD), got {args.method!r}")
    given = [o for o, v in (("--to", args.to), ("--rename", args.rename), ("--narrow", args.narrow),
                            ("--pass-self", args.pass_self), ("--move-global", args.move_global)) if v]
    if given and not (args.steps and args.method):
        parser.error(f"{given[0]} is a codemod option: it goes with --steps PATH --method CLASS.METHOD")
    if args.steps and args.method and not args.to:
        parser.error("--steps with --method needs --to TARGET.MODULE (where the function moves)")
    bad = [r for r in args.rename if "=" not in r]
    if bad:
        parser.error(f"--rename wants ATTR=PARAM, got {bad[0]!r}")
    if args.method and (args.fix or args.intended):
        parser.error("--fix and --intended belong to the kv preset (without --method)")
    if args.fix and not args.steps:
        parser.error("--fix goes with --steps PATH (for two trees, use --intended FINDING_ID)")
    if args.intended and args.steps:
        parser.error("--intended goes with BEFORE AFTER (with --steps, use --fix NAME)")
    if args.fix:
        from equivalence.presets.kv_dtype.fixes import known_fixes

        unknown = sorted(set(args.fix) - set(known_fixes()))
        if unknown:
            parser.error(f"unknown fix {unknown[0]!r}; known: {', '.join(known_fixes())}")
    require_harness()
    if args.intended:
        from equivalence.presets.kv_dtype.intended import FINDINGS  # imports torch: only when --intended is given

        unknown = [f for f in args.intended if f not in FINDINGS]
        if unknown:
            parser.error(f"unknown finding {unknown[0]!r}; known: {', '.join(FINDINGS)}")
    return args


def check_trees(trees: list[tuple[str, Path]], pairs: list[tuple[int, int]], options: Options) -> dict:
    """Load each labelled tree as a version and check each pair (indices into `trees`): the one
    entry point of every flow (two trees, codemod steps, ...). Returns the report dict; raises
    a LoadError naming file and line when a version cannot be loaded."""
    if options.method:
        from equivalence.engine.check import Method, Unloaded, check
        from equivalence.engine.load.version import CouldNotImport

        *module, class_name, method_name = options.method.split(".")
        versions = []
        for label, path in trees:
            root, source = find_source(path, class_name, ".".join(module) or None)
            method = Method(class_name, method_name, source, options.function)
            try:
                versions.append(method.load(root, label))
            except CouldNotImport as e:  # the tree is fine as input, its code cannot run here: reported
                versions.append(Unloaded(label, str(e)))
        with _frozen():
            return check(versions, [(versions[b], versions[a]) for b, a in pairs], method, options.mutants)
    from equivalence.presets.kv_dtype.check import check  # imports torch
    from equivalence.presets.kv_dtype.subject import load_version

    versions = [load_version(path, label) for label, path in trees]
    with _frozen():
        return check(versions, [(versions[b], versions[a]) for b, a in pairs], options.seed, options.examples,
                     options.mutants, options.intended)


@contextlib.contextmanager
def _frozen():
    """The loaded versions (parsed trees, modules) live through the check: the collector need not
    scan them on every collection of the many short-lived objects the runs make (gc.freeze);
    collectable again afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def find_source(path: Path, class_name: str, module: str | None):
    from equivalence.engine.load.version import find_source as find

    return find(path, class_name, module)


def method_steps_flow(args, work: Path) -> tuple[list[tuple[str, Path]], list[tuple[int, int]]]:
    """original -> step 1 -> ... -> step 4, then original -> the one-shot output, made by
    codemods.extract_method with the given options."""
    from equivalence.versions import codemod_steps as trees

    try:
        from codemods.extract_method import MethodSpec, refactor
    except ImportError as e:
        raise CodemodMissing(f"--steps --method needs codemods.extract_method, which is not importable here ({e})") from None
    *module, class_name, method_name = args.method.split(".")
    root, _ = find_source(args.steps, class_name, ".".join(module) or None)
    spec = MethodSpec(class_name, method_name, args.to, function_name=args.name,
                      renames=dict(r.split("=", 1) for r in args.rename), narrows=tuple(args.narrow),
                      pass_self=args.pass_self, moved_globals=tuple(args.move_global))
    run = lambda tree, steps: refactor(tree, spec, steps=steps)  # noqa: E731
    steps = trees.step_trees(root, work, run)
    one_shot = trees.one_shot_tree(root, work, run)
    return steps + [one_shot], [(i, i + 1) for i in range(len(steps) - 1)] + [(0, len(steps))]


def steps_flow(args, work: Path) -> tuple[list[tuple[str, Path]], list[tuple[int, int]], dict[int, str]]:
    """original -> step 1 -> ... -> step 4 (-> fixes), then original -> the one-shot output;
    trees in refactoring order (findings name the version a fix removed them in)."""
    from equivalence.presets.kv_dtype.fixes import fix_trees
    from equivalence.presets.kv_dtype.subject import find_root
    from equivalence.presets.kv_dtype.steps import one_shot_tree, step_trees

    root = find_root(args.steps)
    steps = step_trees(root, work)
    fixed = fix_trees(steps[-1][1], work, args.fix, steps[0][1]) if args.fix else []
    one_shot = one_shot_tree(root, work)
    trees = steps + [one_shot] + [(label, path) for label, path, _ in fixed]
    chain = list(range(len(steps))) + list(range(len(steps) + 1, len(trees)))
    pairs = list(zip(chain, chain[1:])) + [(0, len(steps))]
    intended = {len(steps) - 1 + i: [finding] for i, (_, _, finding) in enumerate(fixed)}
    return trees, pairs, intended


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    options = Options(args.method, args.name, args.seed, args.examples, args.mutants)
    from equivalence.engine.load.version import LoadError  # imports torch
    from equivalence.versions.git_review import Checker, review
    from equivalence.presets.kv_dtype.subject import KV_PATH, RUNNER_PATH

    try:
        with temporary_workdir() as work:
            if args.range:
                # the preset loads two files (the rest is stubbed); --method finds its class by scanning the package
                checker = Checker(None if args.method else (RUNNER_PATH, KV_PATH),
                                  lambda trees, pairs: check_trees(trees, pairs, options), (LoadError,))
                options.intended = {0: args.intended} if args.intended else {}
                report = review(args.trees[0] if args.trees else Path.cwd(), args.range, bool(args.commits), work,
                                checker)
            else:
                if args.steps and args.method:
                    trees, pairs = method_steps_flow(args, Path(work))
                elif args.steps:
                    trees, pairs, options.intended = steps_flow(args, Path(work))
                else:
                    trees, pairs = [(str(p), p) for p in args.trees], [(0, 1)]
                    options.intended = {0: args.intended} if args.intended else {}
                report = check_trees(trees, pairs, options)
    except (LoadError, CodemodMissing, CodemodFailed, RevisionError) as e:
        print(f"equivalence: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Interrupted) as e:
        print("equivalence: interrupted; temporary files removed", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)
    if args.method:
        from equivalence.engine.report.report import markdown, terminal
    else:
        from equivalence.presets.kv_dtype.report import markdown, terminal

    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if args.markdown:
        args.markdown.write_text(fit(markdown(report)))
    print(terminal(report))
    return exit_code(report)


def exit_code(report: dict) -> int:
    """1 when anything diverges (a real divergence, an unintended fix delta, a surviving mutant),
    even if some branches were also never run or some values not modelled (both are reported);
    else 2 when the check is incomplete (verdict "inconclusive"); else 0."""
    real = [d["kind"] for p in report["pairs"] for d in p["divergences"]]
    mutants = report.get("mutants")
    survived = mutants["total"] - mutants["killed"] if mutants else 0
    controls = len(mutants.get("controls", {}).get("killed", [])) if mutants else 0
    if controls:
        print(f"equivalence: self-check failed: {controls} control(s) that change nothing were called divergent, "
              "so this harness sees differences that are not there", file=sys.stderr)
    if any(p.get("not_modelled") for p in report["pairs"]):
        print("equivalence: the code reached values the harness only stubs (not modelled): those runs are "
              "not checked", file=sys.stderr)
    if any(c["missed"] for p in report["pairs"] for c in p["coverage"].values()):
        print("equivalence: inconclusive: some branches were never run by the configurations, so a "
              "difference there would not have been seen", file=sys.stderr)
    for p in report["pairs"]:
        if p.get("could_not_run"):
            print(f"equivalence: could not run: {p['could_not_run']}", file=sys.stderr)
    if survived:
        print(f"equivalence: self-check failed: {survived} mutant(s) survived, "
              "so this harness cannot be trusted to see such a change", file=sys.stderr)
    if real:
        print(f"equivalence: divergent: {len(real)} kind(s) of difference the extraction does not explain",
              file=sys.stderr)
    if real or survived or controls:
        return 1
    if report["verdict"] != "equivalent":
        return 2
    return 0
