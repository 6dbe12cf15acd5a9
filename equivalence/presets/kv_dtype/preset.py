"""PR #31147's preset as the command line's subject (no `--method`): its own check (check.py)
and report (report.py), codemods.extract_kv_dtype and its fixes for `--steps`, the two files a
git revision needs; `--fix`, `--intended`, `--seed`, `--examples` are its options."""

from __future__ import annotations

from pathlib import Path

from equivalence.presets.kv_dtype.finding_ids import FINDINGS
from equivalence.presets.kv_dtype.files import KV_PATH, RUNNER_PATH, find_root
from equivalence.presets.kv_dtype.fixes import known_fixes
from equivalence.subject import Subject
from equivalence.subjects import method
from equivalence.subjects.registration import Options, Registration, option
from equivalence.versions.codemod_steps import Codemod, CodemodMissing, Fix

HELP = """\
without --method (PR #31147's preset, ModelRunner.configure_kv_cache_dtype):
  The same engine, with the inputs the review names given their values (the kv string, the
  model's quant config, the model dtype, _is_hip, fp8_dtype, torch with or without float4):
  every combination (finite part exhaustively, free text from hypothesis), and the findings
  that hold in every version but contradict what the code says (fp4-fallback-not-auto,
  kv-str-keyerror) with their count and smallest configuration. Inputs it does not name (a
  renamed attribute, a new global) are varied like any method's.
"""

NAMING = Options((option("--preset", choices=["kv-dtype"], help="run PR #31147's preset "
                         "(ModelRunner.configure_kv_cache_dtype) whatever moved; without --method, --component or "
                         "--preset, BEFORE AFTER checks every method found to have left its class (the preset only "
                         "when its method is among them)"),))
CHECK = Options((
    option("--fix", action="append", default=[], metavar="NAME",
           help="kv preset, with --steps: apply the codemod's fix NAME after step 4 (repeatable) and "
                "require its delta to be exactly its finding's configurations"),
    option("--intended", action="append", default=[], metavar="FINDING_ID",
           help="kv preset, with BEFORE AFTER (or --git BASE..HEAD): AFTER fixes this finding of "
                "BEFORE (repeatable); any other difference the extraction does not explain diverges"),
))
TUNING = Options((
    option("--seed", type=int, default=None, help="kv preset: hypothesis seed (default: derandomized)"),
    option("--examples", type=int, default=150, help="kv preset: hypothesis examples per input set"),
))


def kv_codemod() -> Codemod:
    """codemods.extract_kv_dtype's `refactor(tree, steps, fixes=...)`, and its steps."""
    try:
        from codemods.extract_kv_dtype import STEPS, refactor
    except ImportError as e:
        raise CodemodMissing(
            f"--steps needs codemods.extract_kv_dtype.refactor, which is not importable here ({e})"
        ) from None
    return Codemod(refactor, STEPS.all)


class KvPreset(Subject):
    git_files = (RUNNER_PATH, KV_PATH)  # the preset loads these two (the rest is stubbed)
    codemod_name = "codemods.extract_kv_dtype"

    def __init__(self, args):
        self.args = args

    def validate(self, args, error) -> None:
        given = method.CODEMOD.codemod_given(args)
        if given:
            error(f"{given[0]} is a codemod option: it goes with --steps PATH --method CLASS.METHOD")
        if args.fix and not args.steps:
            error("--fix goes with --steps PATH (for two trees, use --intended FINDING_ID)")
        if args.intended and args.steps:
            error("--intended goes with BEFORE AFTER (with --steps, use --fix NAME)")
        if args.fix:
            unknown = sorted(set(args.fix) - set(known_fixes()))
            if unknown:
                error(f"unknown fix {unknown[0]!r}; known: {', '.join(known_fixes())}")
        unknown = [f for f in args.intended if f not in FINDINGS]
        if unknown:
            error(f"unknown finding {unknown[0]!r}; known: {', '.join(FINDINGS)}")

    def root(self, path: Path) -> Path:
        return find_root(path)

    def refactor(self):
        return kv_codemod()

    def fixes(self) -> list[Fix]:
        refactor = kv_codemod().run
        return [Fix(name, finding, lambda tree, name=name: refactor(tree, None, fixes=[name]))
                for name, finding in known_fixes().items() if name in self.args.fix]

    def intended(self) -> dict[int, list[str]]:
        return {0: self.args.intended} if self.args.intended else {}

    def check(self, trees, pairs, mutants, intended):
        from equivalence.presets.kv_dtype.check import check  # imports torch
        from equivalence.presets.kv_dtype.subject import load_version

        from equivalence.engine.run.frozen import frozen

        versions = [load_version(path, label) for label, path in trees]
        with frozen():
            return check(versions, [(versions[b], versions[a]) for b, a in pairs], self.args.seed,
                         self.args.examples, mutants, intended)

    def markdown(self, report: dict) -> str:
        from equivalence.presets.kv_dtype.report import markdown

        return markdown(report)

    def terminal(self, report: dict) -> str:
        from equivalence.presets.kv_dtype.report import terminal

        return terminal(report)


REGISTRATION = Registration("kv-dtype preset", KvPreset, priority=2,
                            chosen=lambda args: bool(args.preset or args.steps or args.fix or args.intended),
                            help=HELP, options={"naming": NAMING, "check": CHECK, "tuning": TUNING})
