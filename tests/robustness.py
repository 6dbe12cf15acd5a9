"""Codemod + harness on one variant of the method: the outcome the robustness test checks.

Every variant (tests/variants.py) must end in one of two ways:
- "equivalent": the codemod (all four steps, in process) produced output, and the harness (in
  process, original variant tree against that output) says equivalent with full branch
  coverage in both versions, every input it reads varied (the preset's by name, any other by
  the generic world), nothing reached that only a stub stands for;
- "refused": the codemod raised `Refusal`, whose message names the runner file, a line inside
  the method (decorators included) and every construct the variant's edits put there.
Anything else is "divergent": a harness divergence or a value it could not model after the
codemod produced output, a load error, a codemod crash, a refusal that does not say where
and what.  A cosmetic variant must come out equivalent.

`Run` evaluates the variants a test session needs once, in one pool of worker processes
(torch is imported once per worker), in the order the tests will ask for them; tests/conftest.py
starts it as soon as the tests are collected, so that it runs while the other tests do. Under
pytest-xdist (the suite's command: each test file runs whole in one of its workers) there is no
pool: each worker evaluates a variant when its test asks. The robustness tests are split by shape
(tests/test_robustness_<shape>.py, the shape as a whole last in its file) and each waits for its
own variants only. `evaluate_all` evaluates a list at once.
"""

from __future__ import annotations

import ast
import io
import multiprocessing
import os
import tempfile
import time
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.variants import RUNNER, Variant, variants

# The open-ended (hypothesis) part of the configurations, per input set.  The finite part
# is enumerated exhaustively whatever this is; 150 is the harness default.
EXAMPLES = int(os.environ.get("ROBUSTNESS_EXAMPLES", "150"))
METHOD = "configure_kv_cache_dtype"

EQUIVALENT, REFUSED, DIVERGENT = "equivalent", "refused", "divergent"

# Outcomes evaluated in this session, by variant id (for the terminal summary).
RESULTS: dict = {}


@dataclass
class Outcome:
    id: str
    kind: str  # EQUIVALENT | REFUSED | DIVERGENT
    detail: str = ""  # why, for a failure message; the refusal text for REFUSED
    cosmetic: bool = True
    # comments of the touched files, before and after (a comment may move between files);
    # only when the codemod produced output
    comments_before: list[str] = field(default_factory=list)
    comments_after: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    seconds: float = 0.0


def comments_of(text: str) -> list[str]:
    """Every comment in `text`, as written (tokenize: never mistakes a '#' inside a string)."""
    return [t.string.strip() for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


def method_lines(source: str) -> set[int]:
    """Lines of every `ModelRunner.configure_kv_cache_dtype` definition, decorators included."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "ModelRunner":
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == METHOD:
                    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
                    lines |= set(range(first, fn.end_lineno + 1))
    return lines


def check_refusal(variant: Variant, root: Path, error) -> str | None:
    """None when the refusal names file, a line in the method and each construct; else why not."""
    message = str(error)
    runner = root / RUNNER
    problems = []
    if error.path is None or Path(error.path).resolve() != runner.resolve() or str(runner) not in message:
        problems.append(f"does not name {runner}")
    if not error.line or error.line not in method_lines(variant.source):
        problems.append(f"line {error.line} is not inside {METHOD}")
    missing = [c for c in variant.constructs if c not in message]
    if missing:
        problems.append(f"does not name {missing}")
    if not variant.constructs:
        problems.append("refused a cosmetic variant")
    return "; ".join(problems) + f" (message: {message})" if problems else None


def programs(variant: Variant, changes: dict, before: Path, after: Path) -> tuple:
    """What the proof of a variant's output depends on: the shape (its other files), and the
    syntax trees (no positions, no comments) of the variant's runner and of every file the
    codemod changed (under `after`), before and after. Two variants with the same programs are
    the same proof: the harness imports and runs the code, and neither a comment nor a line
    number is one of its inputs (logs are captured without the caller's line)."""
    touched = []
    for path, text in sorted(changes.items()):
        old = before / Path(path).relative_to(after)
        touched.append((old.relative_to(before).as_posix(), ast.dump(ast.parse(old.read_text())) if old.is_file()
                        else None, ast.dump(ast.parse(text))))
    return variant.shape, ast.dump(ast.parse(variant.source)), tuple(touched)


class Evaluator:
    """Evaluates variants with `examples` open-ended configurations per input set (the preset's
    hints are computed once per set and process). A variant whose programs (`programs`) an
    earlier variant of this evaluator already had takes that proof's verdict: the codemod and
    the comment checks still run on it, the proof does not run twice (a comment or a
    quote-style edit yields the programs of the variant without it)."""

    def __init__(self, examples: int = EXAMPLES):
        self.examples = examples
        self.proofs: dict[tuple, tuple[str, str, str]] = {}  # programs -> (kind, detail, variant id)

    def evaluate(self, variant: Variant) -> Outcome:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="robustness-") as work:
            outcome = self._evaluate(variant, Path(work))
        outcome.cosmetic = not variant.constructs
        outcome.seconds = time.perf_counter() - start
        return outcome

    def _evaluate(self, variant: Variant, work: Path) -> Outcome:
        from codemods.extract_kv_dtype import Refusal, refactor

        work = work.resolve()
        before = variant.write(work / "before")
        after = variant.write(work / "after")
        try:
            plan = refactor(after, range(1, 5))
        except Refusal as e:
            why = check_refusal(variant, after, e)
            return Outcome(variant.id, DIVERGENT if why else REFUSED, why or str(e).replace(str(after), "ROOT"))
        except Exception as e:  # a crash is never an acceptable end
            return Outcome(variant.id, DIVERGENT, f"codemod crashed: {type(e).__name__}: {e}")
        comments = {"comments_before": [], "comments_after": [], "touched": []}
        for path, text in sorted(plan.changes.items()):
            original = plan.originals.get(path)
            comments["touched"].append(str(Path(path).relative_to(after)))
            comments["comments_before"] += comments_of(original) if original is not None else []
            comments["comments_after"] += comments_of(text)
        key = programs(variant, plan.changes, before, after)
        if key in self.proofs:
            kind, detail, first = self.proofs[key]
            return Outcome(variant.id, kind, f"{detail} (the programs of {first}, proven there)", **comments)
        outcome = self._prove(variant, plan, before, after, comments)
        self.proofs[key] = (outcome.kind, outcome.detail, variant.id)
        return outcome

    def _prove(self, variant: Variant, plan, before: Path, after: Path, comments: dict) -> Outcome:
        from codemods.extract_kv_dtype import write_plan
        from equivalence.engine.load.version import LoadError
        from equivalence.presets.kv_dtype.check import check
        from equivalence.presets.kv_dtype.subject import load_version

        try:
            write_plan(plan)
            v_before = load_version(before, "original")
            v_after = load_version(after, "codemod")
        except (LoadError, OSError) as e:
            return Outcome(variant.id, DIVERGENT, f"harness could not load: {e}", **comments)
        report = check([v_before, v_after], [(v_before, v_after)], examples=self.examples).to_json()["pairs"][0]
        problems = []
        for d in report["divergences"] + report["not_modelled"]:
            problems.append(f"{d['kind']} x{d['count']}: {d.get('example', d.get('globals'))} "
                            f"before={d.get('before')} after={d.get('after')}")
        for side, cov in report["coverage"].items():
            if cov["hit"] != cov["branches"] or cov["missed"]:
                problems.append(f"{side} branch coverage {cov['hit']}/{cov['branches']}, missed {cov['missed']}")
        if set(report["coverage"]) != {"before", "after"}:
            problems.append("no branch coverage measured")
        if problems:
            return Outcome(variant.id, DIVERGENT, "; ".join(problems), **comments)
        return Outcome(variant.id, EQUIVALENT, f"{report['configs']} configs", **comments)


_WORKER: Evaluator | None = None
_VARIANTS: dict[str, Variant] | None = None


def _by_id() -> dict[str, Variant]:
    global _VARIANTS
    if _VARIANTS is None:
        _VARIANTS = {v.id: v for v in variants()}
    return _VARIANTS


def _work(variant_id: str) -> Outcome:
    global _WORKER
    if _WORKER is None:
        _WORKER = Evaluator()
    return _WORKER.evaluate(_by_id()[variant_id])


def pool_size(other_tests: bool) -> int:
    """The session run's workers: ROBUSTNESS_WORKERS if set, else the CPUs (up to 4), less the one
    this process needs when the session has other tests to run meanwhile; 0 (in this process)
    for ROBUSTNESS_WORKERS=1 or a single CPU."""
    n = workers()
    if n == 1:
        return 0
    return n if "ROBUSTNESS_WORKERS" in os.environ or not other_tests else n - 1


def workers() -> int:
    if "ROBUSTNESS_WORKERS" in os.environ:
        return max(1, int(os.environ["ROBUSTNESS_WORKERS"]))
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def evaluate_all(ids: list[str], processes: int | None = None) -> dict[str, Outcome]:
    """Outcome per variant id; in `processes` spawned workers (1: in this process)."""
    processes = workers() if processes is None else processes
    if processes <= 1 or len(ids) <= 1:
        return {i: _work(i) for i in ids}
    # spawn, not fork: a forked copy of a process that has imported torch is not safe.
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        return {o.id: o for o in pool.imap_unordered(_work, ids)}


class Run:
    """Outcomes of `ids`, evaluated once in `processes` spawned workers, in the background and in
    the order given (0: in this process, as they are asked for); `outcome(id)` waits for that
    one only."""

    def __init__(self, ids: list[str], processes: int):
        self.ids = list(ids)
        self.done: dict[str, Outcome] = {}
        self._pool = None
        if processes <= 0:
            self._results = None  # each evaluated when asked for
        else:
            # spawn, not fork: a forked copy of a process that has imported torch is not safe.
            self._pool = multiprocessing.get_context("spawn").Pool(processes)
            self._results = self._pool.imap_unordered(_work, self.ids)

    def outcome(self, variant_id: str) -> Outcome:
        if variant_id not in self.ids:
            raise KeyError(f"{variant_id} is not among the variants this run evaluates")
        while variant_id not in self.done:
            outcome = _work(variant_id) if self._results is None else next(self._results)
            self.done[outcome.id] = outcome
            RESULTS[outcome.id] = outcome
        return self.done[variant_id]

    def outcomes(self) -> dict[str, Outcome]:
        """Every outcome of the run, by variant id (waits for all)."""
        return {i: self.outcome(i) for i in self.ids}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


# The test of a shape as a whole (last in each tests/test_robustness_<shape>.py): a session that
# runs it evaluates every variant of the shape.
WHOLE_SHAPE = "test_the_shape_as_a_whole"


def variant_ids(shape: str) -> list[str]:
    """The ids of the variants of one shape, in the order variants() makes them."""
    return [v.id for v in _by_id().values() if v.shape == shape]


def wanted(items) -> list[str]:
    """The variant ids a session's selected test items need, in the order they run (a shape's
    whole-shape test: every variant of the shape not asked for before it)."""
    ids: list[str] = []
    for item in items:
        module = getattr(getattr(item, "module", None), "__name__", "") or ""
        if not module.startswith("tests.test_robustness_"):
            continue
        name = getattr(item, "originalname", item.name)
        if name == "test_variant":
            ids.append(item.callspec.params["variant"])
        elif name == WHOLE_SHAPE:
            ids += variant_ids(module.removeprefix("tests.test_robustness_"))
    return list(dict.fromkeys(ids))


def check_outcome(outcome: Outcome) -> None:
    """What every variant's outcome must be: never divergent; a cosmetic variant equivalent; and
    where the codemod produced output, the touched files' comments are the same before and after."""
    variant = outcome.id
    assert outcome.kind != DIVERGENT, f"{variant}: {outcome.detail}"
    if outcome.cosmetic:
        assert outcome.kind == EQUIVALENT, f"{variant} is cosmetic but was {outcome.kind}: {outcome.detail}"
    if outcome.kind == EQUIVALENT:
        before, after = Counter(outcome.comments_before), Counter(outcome.comments_after)
        assert before == after, (f"{variant}: comments lost {dict(before - after)}, "
                                 f"gained {dict(after - before)} in {outcome.touched}")


# comments the edits put in odd places (tests/variants.py), to be carried over by the codemod
ODD_PLACE_COMMENTS = ("# picks the KV cache dtype", "# may be a bare nn.Module")


def check_shape(outcomes: list[Outcome]) -> None:
    """What the variants of one shape must give together: none divergent; output for at least as
    many as are cosmetic; over all the output, the touched files' comments before == after, the
    odd-place comments among them."""
    divergent = [f"{o.id}: {o.detail}" for o in outcomes if o.kind == DIVERGENT]
    assert not divergent, divergent
    produced = [o for o in outcomes if o.touched]
    assert len(produced) >= sum(o.cosmetic for o in outcomes)
    before = sum((Counter(o.comments_before) for o in produced), Counter())
    after = sum((Counter(o.comments_after) for o in produced), Counter())
    assert all(before[c] > 0 for c in ODD_PLACE_COMMENTS), [c for c in ODD_PLACE_COMMENTS if not before[c]]
    assert before == after, f"lost {dict(before - after)}, gained {dict(after - before)}"
