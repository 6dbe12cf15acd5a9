"""The kv_dtype preset's command as a kind: python -m codemods.extract_kv_dtype PATH [--steps A-B] [--fix NAME]
[--dry-run] [--commit] [--no-format]. Its spec is the fixes asked for: the recipe is the preset's."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.extract_method.presets.kv_dtype import RECIPE, STEPS, plan
from codemods.extract_method.presets.kv_dtype.fixes import FIXES, FIXES_HELP

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
     or places elsewhere in the checkout that step 2 cannot update (all listed)
  4  no such method: the release predates ModelRunner.configure_kv_cache_dtype
  5  already applied: nothing to do
  130  interrupted (Ctrl-C): one line; nothing written (with --commit: which steps are committed)
  141  stdout closed early (e.g. --dry-run | head): stops quietly, like a command killed by SIGPIPE
"""


class ExtractKvDtype(Kind[tuple]):
    name = "extract_kv_dtype"
    description = ("Extract ModelRunner.configure_kv_cache_dtype into sglang.srt.mem_cache.kv_cache_dtype "
                   "(sglang PR #31147), as four reviewable steps.")
    epilog = EPILOG + FIXES_HELP
    steps = STEPS
    path_help = "a git checkout of sglang (holding python/sglang) or any folder holding the sglang package"

    def add_args(self, p: argparse.ArgumentParser) -> None:
        self.add_steps(p, "contiguous range of steps to run (default 1-4); must start right after the "
                          "steps the tree already has, e.g. 3-4 on a tree where 1-2 are done; with "
                          "--fix the default is the steps the tree lacks (none on a refactored tree)")
        p.add_argument("--fix", action="append", choices=list(FIXES), default=[], metavar="NAME",
                       help=f"after step 4, also fix a review finding (repeatable): {', '.join(FIXES)}")

    def spec(self, args: argparse.Namespace) -> tuple:
        """The fixes asked for (--fix), in the order given."""
        return tuple(args.fix)

    def context(self, path: Path, spec: tuple, *, format: bool = True) -> Context:
        return Context.open(path, RECIPE.source_file, format=format)

    def plan(self, ctx: Context, spec: tuple, steps: Optional[range]) -> Plan:
        return plan(ctx, steps or (None if spec else STEPS.all), list(spec))


KIND = ExtractKvDtype()
