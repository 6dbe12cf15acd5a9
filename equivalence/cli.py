"""`python -m equivalence BEFORE AFTER` / `python -m equivalence --steps PATH`.

Exit 0 equivalent, 1 divergent, 2 could not load / bad usage (message names file and line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .loader import LoadError, find_root, load_version
from .steps import CodemodMissing, step_trees, temporary_workdir


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m equivalence", description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="BEFORE AFTER (two sglang trees)")
    parser.add_argument("--steps", type=Path, metavar="PATH", help="run the codemod step by step on PATH and check each pair")
    parser.add_argument("--json", type=Path, metavar="FILE")
    parser.add_argument("--markdown", type=Path, metavar="FILE")
    parser.add_argument("--mutants", action="store_true", help="self-check: mutate the after version, count the mutants caught")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: derandomized)")
    parser.add_argument("--examples", type=int, default=150, help="hypothesis examples per input set")
    args = parser.parse_args(argv)
    if bool(args.steps) == bool(args.trees) or (args.trees and len(args.trees) != 2):
        parser.error("give either BEFORE AFTER or --steps PATH")
    return args


def main(argv=None) -> int:
    from .run import check  # imports torch

    try:
        args = parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        if args.steps:
            with temporary_workdir() as work:
                trees = step_trees(find_root(args.steps), Path(work))
                versions = [load_version(path, label) for label, path in trees]
                pairs = list(zip(versions, versions[1:])) + [(versions[0], versions[-1])]
                report = check(versions, pairs, args.seed, args.examples, args.mutants)
        else:
            before, after = (load_version(p, str(p)) for p in args.trees)
            report = check([before, after], [(before, after)], args.seed, args.examples, args.mutants)
    except (LoadError, CodemodMissing) as e:
        print(f"equivalence: {e}", file=sys.stderr)
        return 2
    from .report import markdown, terminal

    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if args.markdown:
        args.markdown.write_text(markdown(report))
    print(terminal(report))
    uncovered = any(d["kind"] == "input-not-covered" for p in report["pairs"] for d in p["divergences"])
    if uncovered:
        print("equivalence: some inputs the code reads are not covered by the configurations", file=sys.stderr)
        return 2
    return 0 if report["verdict"] == "equivalent" else 1
