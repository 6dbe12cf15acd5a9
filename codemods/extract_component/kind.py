"""extract_component as a kind: python -m codemods.extract_component PATH CLASS TARGET.MODULE.COMPONENT
--methods M1,M2,... --attr ATTR [options]."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from codemods.core.context import Context
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.extract_component import STEPS, ComponentSpec, plan
from codemods.extract_component.spec import context_for

EPILOG = """\
steps (one commit each with --commit):
  1  introduce the component: a keyword-only dataclass in TARGET.MODULE (frozen where nothing in it
     is reassigned) with a field per owner value the moved methods read that is never rebound
     once it is built (named as the attribute; --field ATTR=NAME renames it), a getter
     get_X = lambda: self.X for a value the owner rebinds later (a chain read is one getter named
     after its last attribute), a callback per owner method they call, and the state only they use
     with its default (field(default_factory=dict)); the owner builds it in init_ATTR(), called
     from __init__ at the first point where every source is assigned (where the moved state was
     initialised, when that point qualifies); the owner's code reaches the moved state through it
  2  move the methods (and the private helpers only they use) into the component; each owner
     method becomes a one-line delegation
  3  rewrite every caller in the checkout (runner.m(...) -> runner.ATTR.m(...), mock.patch targets
     included) and drop the delegations, except where the owner hands a moved method around as a
     value (or all of them are kept, with --keep-wrappers)

refused (exit 3, file:line: why, nothing written): a moved method writing an owner attribute
the component does not own (without --pass-owner); moved state written by code that stays;
overrides or super() of a moved method; access by string (getattr(self, name)); a receiver
that cannot be told apart from another class's method of the same name (all listed); no point
in __init__ where every field's source is assigned before the first use of the component; a
name clash; an import cycle.

exit codes:
  0  success (or, with --dry-run, the diff was printed)
  2  bad input (PATH, names, a new package a typo of its sibling, --steps not starting where the tree is,
     --commit outside git, ...)
  3  refused: a construct the rewrite cannot carry (file:line: why)
  4  neither the methods nor the component exist
  5  already applied: nothing to do
  130  interrupted (Ctrl-C): one line; nothing written (with --commit: which steps are committed)
  141  stdout closed early (e.g. --dry-run | head): stops quietly

example (sglang 0.5.15.post1):
  python -m codemods.extract_component ~/sglang ModelRunner \\
      sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter \\
      --methods init_weights_send_group_for_remote_instance,send_weights_to_remote_instance,\\
save_remote_model,save_sharded_model,get_weights_by_name --attr weight_exporter --commit
"""


def _pair(text: str) -> tuple[str, str]:
    old, sep, new = text.partition("=")
    if not sep or not old or not new:
        raise argparse.ArgumentTypeError(f"expected ATTR=NAME, got {text!r}")
    return old, new


def _class(text: str) -> tuple[str | None, str]:
    module, _, cls = text.rpartition(".")
    if not cls or (module and any(not p for p in module.split("."))):
        raise argparse.ArgumentTypeError(f"expected CLASS or MODULE.CLASS, got {text!r}")
    return module or None, cls


def _methods(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("expected M1,M2,...")
    return names


class ExtractComponent(Kind[ComponentSpec]):
    name = "extract_component"
    description = ("Move several methods of CLASS, and the state only they use, into a component class the owner "
                   "holds, as three reviewable steps (introduce, move, rewrite the callers).")
    epilog = EPILOG
    steps = STEPS

    def add_args(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("cls", type=_class, metavar="CLASS",
                       help="the owner, e.g. ModelRunner; MODULE.CLASS where several modules define it")
        p.add_argument("target", metavar="TARGET.MODULE.COMPONENT",
                       help="the component class and its module, e.g. "
                            "sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter")
        p.add_argument("--methods", type=_methods, required=True, metavar="M1,M2,...", help="the methods to move")
        p.add_argument("--attr", required=True, metavar="ATTR", help="the owner's attribute holding the component")
        p.add_argument("--pass-owner", metavar="NAME", help="the component holds the owner whole, as NAME")
        p.add_argument("--keep-wrappers", action="store_true",
                       help="step 3 keeps every delegating method (the callers still go through ATTR)")
        p.add_argument("--field", type=_pair, action="append", default=[], metavar="ATTR=NAME",
                       help="name the field (or getter) for the owner's ATTR (or chain A.B) NAME (repeatable)")
        p.add_argument("--state", action="append", default=[], metavar="ATTR",
                       help="move ATTR into the component as state, although staying code reads it (repeatable)")
        p.add_argument("--source", metavar="FILE", help="the file defining CLASS, relative to the folder holding the "
                                                        "package (default: the one file that does)")
        self.add_steps(p, "contiguous range of steps to run (default: those the tree lacks); must start right after "
                          "the steps the tree already has")

    def spec(self, args: argparse.Namespace) -> ComponentSpec:
        module, cls = args.cls
        return ComponentSpec(class_name=cls, target=args.target, methods=args.methods, attr=args.attr,
                             pass_owner=args.pass_owner, keep_wrappers=args.keep_wrappers, fields=dict(args.field),
                             state=tuple(args.state), source_file=args.source, class_module=module)

    def context(self, path: Path, spec: ComponentSpec, *, format: bool = True) -> Context:
        return context_for(path, spec, format=format)

    def plan(self, ctx: Context, spec: ComponentSpec, steps: Optional[range]) -> Plan:
        return plan(ctx, spec, steps)


KIND = ExtractComponent()
