"""`--component CLASS.ATTR`: the check of a component extraction (equivalence/component/), with
codemods.extract_component for `--steps` and every .py file of a git revision."""

from __future__ import annotations


from equivalence.subjects.of_a_class import OfAClass
from equivalence.subjects.registration import Options, Registration, option
from equivalence.versions.codemod_steps import Codemod, CodemodMissing

HELP = """\
with --component CLASS.ATTR (a component extraction):
  Runs each moved method alone and every ordered pair of them on both versions through their
  public path (before: owner.m(...); after: owner.ATTR.m(...), or the delegation), in one world,
  the owner built by the statements of __init__ that build the component (or set up the state it
  takes over) and rebinding, between calls, what it rebinds elsewhere (a value captured where a
  getter was needed shows the old one). Observed: every event, each call's outcome, the owner's
  state but what moved, and the moved state where each version keeps it. Static check: each moved
  body against its origin, in the owner's terms. See docs/extract_component.md.
"""

NAMING = Options((
    option("--component", metavar="CLASS.ATTR", help="check a component extraction: CLASS's methods moved into the "
           "component it holds as ATTR (MODULE.CLASS.ATTR when several modules define CLASS)"),
    option("--methods", metavar="M1,M2,...",
           help="with --component: the methods the sequences call (with --steps: those the codemod moves)"),
))
CODEMOD = Options((
    option("--pass-owner", metavar="NAME", help="the component holds the owner whole as NAME"),
    option("--keep-wrappers", action="store_true", help="keep every delegating method"),
    option("--field", action="append", default=[], metavar="ATTR=NAME", help="rename a field"),
    option("--state", action="append", default=[], metavar="ATTR", help="move ATTR as state"),
), "with --steps --component: codemods.extract_component's options (and --to TARGET.MODULE.COMPONENT, --methods)")


class ComponentSubject(OfAClass):
    git_files = None
    codemod_name = "codemods.extract_component"
    option = ("--component", "ATTR")

    def __init__(self, args):
        super().__init__(args.component)
        self.args = args
        self.attr = self.member
        self.methods = tuple(m.strip() for m in (args.methods or "").split(",") if m.strip())

    def validate(self, args, error) -> None:
        self.validate_name(args.component, error)
        if args.method:
            error("--method and --component exclude each other")
        if args.steps and not (args.to and self.methods):
            error("--steps with --component needs --to TARGET.MODULE.COMPONENT and --methods M1,M2,...")
        given = CODEMOD.codemod_given(args)
        if given and not args.steps:
            error(f"{given[0]} is a codemod option: it goes with --steps PATH --component CLASS.ATTR")
        if args.fix or args.intended:
            error("--fix and --intended belong to the kv preset (without --method or --component)")
        for option in ("name", "pass_self", "move_global", "narrow", "rename", "no_wrapper", "positional"):
            if getattr(args, option):
                error(f"--{option.replace('_', '-')} is an option of --method's codemod, not --component's")

    def refactor(self):
        try:
            from codemods.extract_component import STEPS, ComponentSpec, refactor
        except ImportError as e:
            raise CodemodMissing(f"--steps --component needs codemods.extract_component, which is not importable "
                                 f"here ({e})") from None
        a = self.args
        spec = ComponentSpec(self.class_name, a.to, self.methods, self.attr, pass_owner=a.pass_owner,
                             keep_wrappers=a.keep_wrappers, fields=dict(f.split("=", 1) for f in a.field),
                             state=tuple(a.state), class_module=self.module)
        return Codemod(lambda tree, steps: refactor(tree, spec, steps=steps), STEPS.all)

    def check(self, trees, pairs, mutants, intended):
        from equivalence.component.check import Component, check

        versions = []
        subject = None
        for label, path in trees:
            root, source = self.find(path)
            subject = Component(self.class_name, self.attr, source, self.methods or None)
            versions.append(subject.load(root, label))
        return check(versions, [(versions[b], versions[a]) for b, a in pairs], subject, mutants)

    def markdown(self, report: dict) -> str:
        from equivalence.component.report import markdown

        return markdown(report)

    def terminal(self, report: dict) -> str:
        from equivalence.component.report import terminal

        return terminal(report)


REGISTRATION = Registration("component", ComponentSubject, chosen=lambda args: bool(args.component), priority=0,
                            help=HELP, options={"naming": NAMING, "codemod": CODEMOD})
