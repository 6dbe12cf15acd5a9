"""extract_method as a kind: python -m codemods.extract_method PATH CLASS.METHOD TARGET.MODULE [options]."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.errors import BadInput
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.extract_method import STEPS, MethodSpec, plan_spec
from codemods.extract_method.spec import context_for, parse_narrow

EPILOG = """\
steps (the way sglang PR #31147 extracted ModelRunner.configure_kv_cache_dtype):
  1  make CLASS.METHOD a keyword-only @staticmethod, in place; every call site in the class
     passes what the method read from self and applies what it wrote to self
  2  move it (named FUNCTION, default METHOD) and the --move-global module globals to
     TARGET.MODULE: a new module (new package folders get an empty __init__.py, each named;
     one a typo of an existing sibling is refused, exit 2, with a did-you-mean) or an
     existing one (the function appended, only the imports and globals it lacks added);
     the class imports the module (`from package import module`), never the function; the
     call sites call module.FUNCTION(...); other files importing a moved global from the
     class's module are updated
  3  put back a wrapper method with the original signature that calls module.FUNCTION(...),
     applies the results and returns what it returns; the call sites get back their text
     (in a run starting at step 3, they pass the method's own arguments by keyword, and the
     wrapper goes right after the method holding the first call site); with --no-wrapper no
     method goes back: the call sites keep calling module.FUNCTION(...); with --positional the
     function's parameters become positional-or-keyword and its calls pass them by position
  4  narrow the parameters named by --narrow (the new ones in the old one's place: with
     --positional, a call passing it by position passes the attributes there); drop from the
     class's module the imports and copied private globals (e.g. _use_aiter) only the moved
     code used. A step 4 with nothing to do says so (with --commit: an empty commit whose
     subject says so; run alone with --steps 4 it changes nothing, where a full run says
     already applied)

what the function takes and returns (inferred from the method body):
  - one keyword-only parameter per first-level attribute self.X the method reads (also
    when read as self.X.Y...), named X (--rename X=NEW), passed as self.X, in order of
    first read; the method's own parameters follow, keyword-only, defaults kept
  - a write to self.Y becomes a local Y, returned (several: a tuple in order of first
    write) and assigned back by every call site (`self.Y = self.METHOD(...)`); a read of
    self.Y before it is written makes Y a parameter too (the local starts from it)
  - return statements: without results the function returns what the method returned; with
    results a bare `return` returns them where all are written
  - --pass-self NAME: the function takes the instance whole as NAME instead (self -> NAME)

a @property (one decorator, no setter or deleter): its reads self.PROP are its call sites, and
step 3 puts back a property calling the function; steps 1-3 run together (a split is exit 2).
With --no-wrapper the reads call the function, also elsewhere (x.PROP -> module.PROP(x.X)), and
a subclass overriding the property is refused (it would no longer be read) unless
--leave-overrides; with the wrapper every override is listed and kept.

refused (exit 3, file:line: why, nothing written): a result written on some paths and not
others; an early return where a result is not written yet; a method that returns a value and
writes results; a call of another method of the class (use --pass-self); self used other than
through attributes (passed along, getattr(self, ...), super()); a nested function or lambda
using self; a decorator (but a plain @property), async, several definitions, *args/**kwargs; a call site passing
*args/**kwargs, or (with results) not a statement of its own; a use of the method that steps
1-2 would break, anywhere in the checkout (x.METHOD in any file, self.METHOD passed as a value,
a subclass overriding it, a patch of it: every place listed at once, since the tool cannot
tell x.METHOD apart from a same-named method of another class; but where the run writes step
3's wrapper, a use outside the class through an instance finds it: listed as a note, and only
--commit is refused, its commits before step 3 breaking it); a name the function needs that
the target module binds otherwise; a module global whose copy could differ.

exit codes:
  0  success (or, with --dry-run, the diff was printed)
  2  bad input: PATH missing / not a directory / no package there, TARGET.MODULE not a
     dotted name or outside the tree's package, the class not found (or in several files:
     MODULE.CLASS.METHOD or --source), neither the method nor the function exists (the
     closest method names are suggested), syntax error, unreadable or read-only file,
     --steps not starting where the tree is, --commit outside git or on a dirty tree, bad
     option values
  3  refused: a construct the rewrite cannot carry (file:line: why)
  5  already applied: nothing to do
  130  interrupted (Ctrl-C): one line; nothing written (with --commit: which steps are committed)
  141  stdout closed early (e.g. --dry-run | head): stops quietly

examples:
  python -m codemods.extract_method ~/sglang ModelRunner.init_threads_binding \\
      sglang.srt.utils.numa_utils --commit
  python -m codemods.extract_method ~/sglang ModelRunner.check_quantized_moe_compatibility \\
      sglang.srt.model_executor.model_runner_components.moe_ep_setup --dry-run
  python -m codemods.extract_method ~/sglang ModelRunner.get_pp_proxy_topk_size \\
      sglang.srt.model_executor.model_runner_components.misc_utils --name resolve_pp_proxy_topk_size
  python -m codemods.extract_method ~/sglang ModelRunner._get_attention_backend \\
      sglang.srt.model_executor.model_runner_components.attention_backend_setup \\
      --name get_attention_backend --pass-self model_runner
  python -m codemods.extract_method ~/sglang ModelRunner.maybe_recover,_healthy_src_rank \\
      sglang.srt.elastic.recovery --name _healthy_src_rank=healthy_src_rank

several methods (CLASS.M1,M2,...): each extracted as alone with the same options, one after the
other (four steps each), a method another of them calls first; step 3 leaves the calls in the
methods still to move calling the function, and their step 2 calls it by name in its module.
--steps, --narrow, --move-global and a plain --name FUNCTION are for one method (exit 2);
methods calling each other round are refused (exit 3).
"""


def _pair(text: str) -> tuple[str, str]:
    old, sep, new = text.partition("=")
    if not sep or not old or not new:
        raise argparse.ArgumentTypeError(f"expected X=NEW, got {text!r}")
    return old, new


def _method(text: str) -> tuple[str | None, str, str]:
    """(MODULE or None, CLASS, METHOD) from `[MODULE.]CLASS.METHOD`."""
    *module, cls, method = text.split(".") if "." in text else ["", ""]
    if not cls or not method or any(not part for part in module):
        raise argparse.ArgumentTypeError(f"expected CLASS.METHOD or MODULE.CLASS.METHOD, got {text!r}")
    return ".".join(module) or None, cls, method


def _narrow(text: str) -> str:
    try:
        parse_narrow(text)
    except BadInput as exc:
        raise argparse.ArgumentTypeError(exc.why) from None
    return text


class ExtractMethod(Kind[MethodSpec]):
    name = "extract_method"
    description = ("Extract CLASS.METHOD into a function of TARGET.MODULE as four reviewable steps "
                   "(static in place, move, wrapper, narrow), inferring its parameters and results.")
    epilog = EPILOG
    steps = STEPS
    default_steps = STEPS.all

    def add_args(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("method", type=_method, metavar="CLASS.METHOD",
                       help="e.g. ModelRunner.init_threads_binding; MODULE.CLASS.METHOD where several modules define "
                            "CLASS (sglang.srt.server_args.ServerArgs.reserve_for_graph_mb); CLASS.M1,M2,...: several "
                            "methods in one run, calls between them rewired to the functions")
        p.add_argument("target", metavar="TARGET.MODULE",
                       help="dotted module to move it to, e.g. sglang.srt.utils.numa_utils")
        p.add_argument("--name", action="append", default=[], metavar="FUNCTION",
                       help="the function's name in TARGET.MODULE (default: METHOD); with several methods "
                            "METHOD=FUNCTION, repeatable")
        p.add_argument("--rename", type=_pair, action="append", default=[], metavar="X=NEW",
                       help="name the parameter inferred from self.X NEW (repeatable)")
        p.add_argument("--narrow", type=_narrow, action="append", default=[], metavar="PARAM.ATTR[=NEW]",
                       help="step 4: a parameter read only as PARAM.ATTR becomes NEW (default PARAM_ATTR); PARAM "
                            "alone: each attribute the function reads of it; repeatable")
        p.add_argument("--pass-self", metavar="NAME", help="the function takes the instance whole as NAME")
        p.add_argument("--move-global", action="append", default=[], metavar="NAME",
                       help="also move this module global of the class's module (repeatable)")
        p.add_argument("--no-wrapper", action="store_true",
                       help="step 3 puts no wrapper back: the method is gone, its call sites call the function")
        p.add_argument("--positional", action="store_true",
                       help="step 3 makes the function's parameters positional-or-keyword (call sites pass them by "
                            "position), as upstream's ServerArgs hooks of 0.5.19")
        p.add_argument("--write-back", metavar="ATTR[=FLAG]",
                       help="self.ATTR, written on some paths only and last on each: the function returns whether it "
                            "wrote (True/False) and the callers write it (`if f(...): self.ATTR = VALUE`; with FLAG, "
                            "`FLAG = f(...)` first); with several methods, for those that write it")
        p.add_argument("--leave-overrides", action="store_true",
                       help="with --no-wrapper on a @property: go on past subclasses overriding it, listed; their "
                            "overrides stay, and callers no longer read them (refused without this option)")
        p.add_argument("--source", metavar="FILE",
                       help="the file defining CLASS, relative to the folder holding the package "
                            "(default: the one file that does)")
        self.add_steps(p, "contiguous range of steps to run (default 1-4); must start right after the "
                          "steps the tree already has, e.g. 3-4 on a tree where 1-2 are done")

    def spec(self, args: argparse.Namespace) -> MethodSpec:
        (module, cls, method) = args.method
        methods = tuple(method.split(","))
        plain = [n for n in args.name if "=" not in n]
        try:
            names = dict(_pair(n) for n in args.name if "=" in n)
        except argparse.ArgumentTypeError as exc:
            raise BadInput(f"--name: {exc}") from None
        name = plain[-1] if plain else None  # one method: the last --name, as ever
        if len(methods) == 1 and names:
            if set(names) != {method}:
                raise BadInput(f"--name {next(iter(set(names) - {method}))}=...: the method is {method}")
            name = names.pop(method)
        return MethodSpec(class_name=cls, method_name=methods[0], target_module=args.target, function_name=name,
                          renames=dict(args.rename), narrows=tuple(args.narrow), pass_self=args.pass_self,
                          moved_globals=tuple(args.move_global), source_file=args.source, class_module=module,
                          no_wrapper=args.no_wrapper, positional=args.positional, write_back=args.write_back,
                          leave_overrides=args.leave_overrides,
                          methods=methods if len(methods) > 1 else (), names=names)

    def context(self, path: Path, spec: MethodSpec, *, format: bool = True) -> Context:
        return context_for(path, spec, format=format)

    def plan(self, ctx: Context, spec: MethodSpec, steps: Optional[range]) -> Plan:
        return plan_spec(ctx, spec, steps)


KIND = ExtractMethod()
