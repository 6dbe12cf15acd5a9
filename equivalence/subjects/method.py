"""`--method CLASS.METHOD`: the generic engine's check of any extraction (engine/check.py), with
codemods.extract_method for `--steps` and every .py file of a git revision."""

from __future__ import annotations


from equivalence.engine.load.errors import LoadError
from equivalence.subjects.of_a_class import OfAClass
from equivalence.subjects.registration import Options, Registration, option
from equivalence.versions.codemod_steps import Codemod, CodemodMissing
from pysource.extraction import LocateError, locate

HELP = """\
with --method (any extraction):
  Imports the real modules holding CLASS.METHOD in each version (torch real, the rest of the
  package stubbed) and runs the call site on an instance built without __init__, in a world
  that answers every attribute, global, environment variable and call the code reads, from one
  choice per access path shared by both versions; what to vary (and which values) is derived
  from the code and from how it uses what it reads. Observed: calls with their arguments,
  writes, logs, the exception, the return value. Also compares the moved code with the old
  body statically (static check). See docs/proof.md.
"""

NAMING = Options((option("--method", metavar="CLASS.METHOD", help="check an extraction of this method "
                         "(MODULE.CLASS.METHOD when several modules define CLASS)"),))
CODEMOD = Options((
    option("--to", metavar="TARGET.MODULE", help="the module the function moves to"),
    option("--name", codemod=False, metavar="FUNCTION",
           help="the extracted function's name (default: the method's); also with --method BEFORE "
                "AFTER, where AFTER's function has another name and no wrapper names it"),
    option("--rename", action="append", default=[], metavar="ATTR=PARAM",
           help="pass self.ATTR as parameter PARAM (repeatable)"),
    option("--narrow", action="append", default=[], metavar="PARAM",
           help="a parameter only read as PARAM.Y becomes PARAM_Y (repeatable)"),
    option("--pass-self", metavar="NAME", help="pass the instance whole under this name"),
    option("--move-global", action="append", default=[], metavar="NAME",
           help="move this module global with the function (repeatable)"),
    option("--no-wrapper", action="store_true", help="no wrapper: the call sites call the function"),
    option("--positional", action="store_true", help="the function's parameters positional-or-keyword"),
), "with --steps --method: codemods.extract_method's options")


class MethodSubject(OfAClass):
    git_files = None  # the class is found by scanning the package
    codemod_name = "codemods.extract_method"

    def __init__(self, args):
        super().__init__(args.method)
        self.args = args
        self.method_name = self.member

    def validate(self, args, error) -> None:
        self.validate_name(args.method, error)
        given = CODEMOD.codemod_given(args)
        if given and not args.steps:
            error(f"{given[0]} is a codemod option: it goes with --steps PATH --method CLASS.METHOD")
        if args.steps and not args.to:
            error("--steps with --method needs --to TARGET.MODULE (where the function moves)")
        bad = [r for r in args.rename if "=" not in r]
        if bad:
            error(f"--rename wants ATTR=PARAM, got {bad[0]!r}")
        if args.fix or args.intended:
            error("--fix and --intended belong to the kv preset (without --method)")

    def check_tree(self, path) -> None:
        """The method (or its extraction) is there, found by `ast` alone as the loader will find it:
        a typo is answered at once, with the class's closest method names."""
        root, source = self.find(path)
        try:
            locate(root, source, self.class_name, self.method_name, self.args.name)
        except LocateError as e:
            raise LoadError(str(e)) from None

    def inherited(self, trees) -> bool:
        """Whether some version's CLASS inherits the method (`pysource.inheritance`): then each
        version's is called directly on an instance of CLASS, the bases' modules real (a call site
        in one class's body would not be the other's), and construction (`__init__`) follows
        `super().__init__(...)` into the bases' real code."""
        for _, path in trees:
            root, source = self.find(path)
            try:
                if locate(root, source, self.class_name, self.method_name, self.args.name).inherited is not None:
                    return True
            except LocateError:
                continue  # the version's own load reports it
        return False

    def refactor(self):
        try:
            from codemods.extract_method import STEPS, MethodSpec, refactor
        except ImportError as e:
            raise CodemodMissing(f"--steps --method needs codemods.extract_method, which is not importable here ({e})") \
                from None
        a = self.args
        spec = MethodSpec(self.class_name, self.method_name, a.to, function_name=a.name,
                          renames=dict(r.split("=", 1) for r in a.rename), narrows=tuple(a.narrow),
                          pass_self=a.pass_self, moved_globals=tuple(a.move_global), class_module=self.module,
                          no_wrapper=a.no_wrapper, positional=a.positional)
        return Codemod(lambda tree, steps: refactor(tree, spec, steps=steps), STEPS.all)

    def check(self, trees, pairs, mutants, intended):
        from equivalence.engine.check import Method, Unloaded, check
        from equivalence.engine.load.version import CouldNotImport
        from equivalence.engine.run.frozen import frozen

        versions = []
        inherited = self.inherited(trees)
        for label, path in trees:
            root, source = self.find(path)
            # a version inherits it (pulled up): the subject is the method on both sides, never a
            # function one side's body happens to call (`return mhc.post(self.hc_cfg, x, ...)` read
            # as a wrapper of an extracted `post`)
            name = self.args.name or (self.method_name if inherited else None)
            method = Method(self.class_name, self.method_name, source, name, direct=inherited,
                            bases=inherited or self.method_name == "__init__")
            try:
                versions.append(method.load(root, label))
            except CouldNotImport as e:  # the tree is fine as input, its code cannot run here: reported
                versions.append(Unloaded(label, str(e)))
        with frozen():
            return check(versions, [(versions[b], versions[a]) for b, a in pairs], method, mutants)

    def markdown(self, report: dict) -> str:
        from equivalence.engine.report.report import markdown

        return markdown(report)

    def terminal(self, report: dict) -> str:
        from equivalence.engine.report.report import terminal

        return terminal(report)


REGISTRATION = Registration("method", MethodSubject, chosen=lambda args: bool(args.method), priority=1,
                            help=HELP, options={"naming": NAMING, "codemod": CODEMOD})
