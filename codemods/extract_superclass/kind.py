"""extract_superclass as a kind: python -m codemods.extract_superclass PATH CLASS TARGET.MODULE.BASE
--methods M1,M2,... [--state A,B]."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.extract_superclass import STEPS, SuperclassSpec, plan
from codemods.extract_superclass.spec import context_for

EPILOG = """\
steps (one commit each with --commit):
  1  extract the base: class BASE(<CLASS's bases>) in TARGET.MODULE (right above CLASS when it is
     CLASS's module) takes the members asked for (methods, properties) and, as its __init__, the
     statements of CLASS.__init__ from the first to the last that sets the state, in their order;
     CLASS inherits from BASE alone and calls super().__init__(...) where those statements were (its
     __init__ goes when nothing else is left in it); a method of CLASS the moved code calls on self
     becomes a hook BASE declares (def m(...): ...); super().X of a member BASE now defines, in
     CLASS, reads super(BASE, self).X. The state: --state, or the attributes the moved members use
     that CLASS.__init__ sets.

refused (exit 3, file:line: why, nothing written): statements setting the state that return,
yield, declare global/nonlocal or read locals(); a local they bind that the rest of __init__ reads;
a change to *args/**kwargs the rest reads; moved code using __class__ or a mangled name (__x); a
decorated class, class keywords other than metaclass=ABCMeta, an ancestor defining
__init_subclass__; super(CLASS, ...).X of a moved X anywhere in the checkout; BASE already bound;
an import cycle (another module); with --rebase, a member CLASS keeps that the subclass does not
override, super() of one or super(CLASS, ...) in it, an isinstance of CLASS not imported by name;
every problem listed at once.

exit codes:
  0  success (or, with --dry-run, the diff was printed)
  2  bad input (PATH, names, --state naming an attribute twice, --commit outside git, ...)
  3  refused: a construct the rewrite cannot carry (file:line: why)
  4  CLASS has none of the methods and BASE does not hold them
  5  already applied: nothing to do
  130  interrupted (Ctrl-C): one line; nothing written
  141  stdout closed early (e.g. --dry-run | head): stops quietly

example (sglang 0.5.20 -> 0.5.21, the unified SWA allocator's base):
  python -m codemods.extract_superclass ~/sglang UnifiedSWATokenToKVPoolAllocator \\
      sglang.srt.mem_cache.allocator.unified_hybrid_swa.UnifiedSWAAllocatorBase \\
      --methods size,available_size,debug_print,... --dry-run
"""


def _class(text: str) -> tuple[str | None, str]:
    module, _, cls = text.rpartition(".")
    if not cls or (module and any(not p for p in module.split("."))):
        raise argparse.ArgumentTypeError(f"expected CLASS or MODULE.CLASS, got {text!r}")
    return module or None, cls


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("expected N1,N2,...")
    return names


class ExtractSuperclass(Kind[SuperclassSpec]):
    name = "extract_superclass"
    description = ("Pull members of CLASS, and the state they use, up into a new base class CLASS then inherits "
                   "from, keeping the order of every effect of construction.")
    epilog = EPILOG
    steps = STEPS

    def add_args(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("cls", type=_class, metavar="CLASS",
                       help="the class the members leave; MODULE.CLASS where several modules define it")
        p.add_argument("target", metavar="TARGET.MODULE.BASE",
                       help="the new base class and its module (CLASS's own module puts it right above CLASS)")
        p.add_argument("--methods", type=_names, required=True, metavar="M1,M2,...",
                       help="the members to move (methods and properties)")
        p.add_argument("--state", type=_names, metavar="A,B,...",
                       help="the attributes the base's __init__ sets (default: those the moved members use that "
                            "CLASS.__init__ sets)")
        p.add_argument("--rebase", type=_names, default=(), metavar="S1,S2,...",
                       help="step 2: these subclasses of CLASS inherit from BASE instead (each must override every "
                            "member CLASS keeps); isinstance/issubclass of CLASS across the checkout read BASE")
        p.add_argument("--all-init", action="store_true",
                       help="the base's __init__ is all of CLASS.__init__ (every attribute it sets is state; "
                            "CLASS's __init__ goes)")
        p.add_argument("--source", metavar="FILE", help="the file defining CLASS, relative to the folder holding the "
                                                        "package (default: the one file that does)")
        self.add_steps(p, "contiguous range of steps to run (default: those the tree lacks; step 2 only with "
                          "--rebase)")

    def spec(self, args: argparse.Namespace) -> SuperclassSpec:
        module, cls = args.cls
        return SuperclassSpec(class_name=cls, target=args.target, methods=args.methods,
                              state=args.state, rebase=args.rebase, all_init=args.all_init, source_file=args.source,
                              class_module=module)

    def context(self, path: Path, spec: SuperclassSpec, *, format: bool = True) -> Context:
        return context_for(path, spec, format=format)

    def plan(self, ctx: Context, spec: SuperclassSpec, steps: Optional[range]) -> Plan:
        return plan(ctx, spec, steps)


KIND = ExtractSuperclass()
