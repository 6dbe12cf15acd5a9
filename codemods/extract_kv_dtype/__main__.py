"""Command line: python -m codemods.extract_kv_dtype PATH [--steps A-B] [--dry-run] [--commit] [--no-format]."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from codemods.extract_kv_dtype import RECIPE, refactor, write_plan
from codemods.extract_kv_dtype.fixes import FIXES, FIXES_HELP, FixResult
from codemods.refactoring.errors import EXIT_BAD_INPUT, EXIT_OK, BadInput, CodemodError
from codemods.refactoring.gitops import check_clean_repo, commit
from codemods.refactoring.pipeline import locate
from codemods.refactoring.writer import JOURNAL, recover, write_files

EPILOG = """\
steps (sglang PR #31147):
  1  make ModelRunner.configure_kv_cache_dtype a keyword-only @staticmethod returning
     (resolved_kv_cache_dtype, kv_cache_dtype); the call site applies the results
  2  move it and TORCH_DTYPE_TO_KV_CACHE_STR to sglang/srt/mem_cache/kv_cache_dtype.py;
     the method leaves ModelRunner and the call site calls
     kv_cache_dtype.configure_kv_cache_dtype(...) directly
  3  put back a wrapper method; restore the call `self.configure_kv_cache_dtype()`.
     The wrapper goes where the method was when step 2 runs in the same invocation;
     on a tree where steps 1-2 are done (--steps 3-4) it goes right after
     ModelRunner._record_kv_cache_dtype if the class has it (where the method sat in
     every release that has it), else right after the method holding the call site
  4  take server_args_kv_cache_dtype instead of server_args; drop imports only the
     moved code used

exit codes:
  0  success (or, with --dry-run, the diff was printed)
  2  bad input: PATH missing / not a directory / not an sglang tree, syntax error,
     unreadable or read-only file, target module present with other content,
     --steps not starting where the tree is, --commit outside git or on a dirty tree
  3  refused: the method holds a construct the rewrite cannot carry (file:line: why)
     or another file reads TORCH_DTYPE_TO_KV_CACHE_STR as an attribute of model_runner
  4  no such method: the release predates ModelRunner.configure_kv_cache_dtype
  5  already applied: nothing to do
"""


def parse_steps(text: str) -> range:
    try:
        a, _, b = text.partition("-")
        start, stop = int(a), int(b or a)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A-B such as 1-4, got {text!r}") from None
    if not 1 <= start <= stop <= 4:
        raise argparse.ArgumentTypeError(f"steps must lie within 1-4 with A <= B, got {text!r}")
    return range(start, stop + 1)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m codemods.extract_kv_dtype",
        description="Extract ModelRunner.configure_kv_cache_dtype into sglang.srt.mem_cache.kv_cache_dtype "
                    "(sglang PR #31147), as four reviewable steps.",
        epilog=EPILOG + FIXES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, metavar="PATH",
                   help="a git checkout of sglang (holding python/sglang) or any folder holding the sglang package")
    p.add_argument("--steps", type=parse_steps, default=None, metavar="A-B",
                   help="contiguous range of steps to run (default 1-4); must start right after the "
                        "steps the tree already has, e.g. 3-4 on a tree where 1-2 are done; with "
                        "--fix the default is the steps the tree lacks (none on a refactored tree)")
    p.add_argument("--fix", action="append", choices=list(FIXES), default=[], metavar="NAME",
                   help=f"after step 4, also fix a review finding (repeatable): {', '.join(FIXES)}")
    p.add_argument("--dry-run", action="store_true", help="print a unified diff, write nothing")
    p.add_argument("--commit", action="store_true",
                   help="one git commit per step (refused outside a git repository or on a dirty tree)")
    p.add_argument("--no-format", action="store_true",
                   help="do not format touched code with black + isort (sglang's style)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except CodemodError as exc:
        print(f"error: {exc}" if exc.exit_code in (2, 3) else str(exc), file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # the write failed (disk full, I/O error): write_files rolled it back
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}cannot write: {exc.strerror or exc}; the files were restored as they were",
              file=sys.stderr)
        return EXIT_BAD_INPUT


def _run(args) -> int:
    root = locate(args.path, RECIPE)
    if not args.dry_run:
        done = recover(root)
        if done:
            print(done)
    elif (root / JOURNAL).exists():
        raise BadInput("an interrupted run left its journal here: run once without --dry-run to "
                       "finish it (or roll it back) first", root / JOURNAL)
    if args.commit and args.dry_run:
        raise BadInput("--commit and --dry-run exclude each other")
    if args.commit:
        check_clean_repo(root)
    steps = args.steps or (None if args.fix else range(1, 5))
    plan = refactor(args.path, steps, format=not args.no_format, fixes=args.fix)
    for msg in plan.messages:
        print(msg)
    if args.dry_run:
        for path, new in plan.changes.items():
            old = plan.originals.get(path) or ""
            rel = path.relative_to(plan.root)
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True),
                f"a/{rel}" if plan.originals.get(path) is not None else "/dev/null", f"b/{rel}"))
        return EXIT_OK
    if args.commit:
        originals = dict(plan.originals)
        for step in plan.steps:
            write_files(plan.root, step.changes, originals)
            commit(plan.root, list(step.changes), step.subject)
            originals.update(step.changes)
            what = f"fix {step.fix}" if isinstance(step, FixResult) else f"step {step.number}"
            print(f"committed {what}: {step.subject}")
        return EXIT_OK
    write_plan(plan)
    for path in plan.changes:
        print(f"wrote {path}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
