"""Mutants made by an independent tool, run through the equivalence harness.

    python scripts/independent_mutants.py BEFORE AFTER --method CLASS.METHOD \
        --file sglang/srt/utils/numa_utils.py --function init_threads_binding [--json out.json]

AFTER is an extraction of CLASS.METHOD out of BEFORE (made by `codemods.extract_method`, say);
FILE (relative to AFTER) holds the moved function FUNCTION (`NAME`, or `CLASS.NAME` for a
method). The mutants are not the harness's own (`--mutants`, equivalence/engine/judge): they are
made by **cosmic-ray**'s operators (https://github.com/sixty-north/cosmic-ray, 8.x), used
programmatically the way `cosmic-ray init` and its workers use them: every operator of
`cosmic_ray.plugins.operator_names()` that takes no arguments (binary, comparison and unary
operator replacement, AddNot, True/False, and/or, break/continue, ExceptionReplacer,
NumberReplacer, RemoveDecorator, ZeroIterationForLoop; not VariableReplacer/VariableInserter,
which need a variable named and draw random numbers), each occurrence counted over the whole
parso tree of FILE as cosmic-ray counts it, kept when it starts on a line of the moved function
(its decorators to its last line), and applied with `cosmic_ray.mutating.mutate_code`. The tool's
text is used as it comes: `ExceptionReplacer` names `CosmicRayTestingException`, which the
mutant does not define (under cosmic-ray neither), so a handler that is reached raises
NameError instead of catching.

For each mutant a copy of AFTER is made in a temporary folder (hard links, the mutated file a new
file; a plain copy where links cannot be made), and

    python -m equivalence --method CLASS.METHOD BEFORE MUTANT_TREE --json ...

classifies it by its exit: 1 (divergent) killed, 0 (equivalent) survived, anything else (2:
inconclusive, could not run; or a timeout) not proven, with the harness's reason (a changed line
no configuration told apart, a branch not run, ...). A mutant whose text does not compile is
`incompetent` and not run (cosmic-ray's binary-operator replacement also rewrites the `*` of a
keyword-only signature, `def f(*, a)`: `def f(+, a)`); one that leaves the text unchanged, or
repeats another's text, is dropped. The unmutated pair is checked first (`--no-baseline` skips
it): unless it is equivalent, a mutant's verdict says nothing about the mutant, and the script
stops (exit 2).

Output: a table (operator, line, the mutated line, result, exit) and the totals; with `--json
FILE`, the same as JSON (each mutant with its diff, exit code, the harness's reason and seconds);
`--keep-reports DIR` keeps each run's harness JSON and stderr. `--equivalent TEXT` (repeatable)
names a mutant known to change no behaviour by its mutated line (stripped): its result is shown
`... (equivalent)` and counted apart. Exit: 1 when a mutant that is not named equivalent survived
(a change the harness called equivalent) or one named equivalent was killed (a change that is none
called divergent); else 2 when a mutant not named equivalent was not proven; else 0.

At most 2 harness runs at a time (`--jobs`, default 1: the machine is shared). `--harness DIR`
runs `python -m equivalence` from another checkout of this project (a snapshot of a commit, while
the working tree is being edited).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KILLED, SURVIVED, NOT_PROVEN, INCOMPETENT = "killed", "survived", "not proven", "incompetent"


@dataclass
class Mutant:
    index: int
    operator: str  # cosmic-ray's name, without its provider ("core/")
    occurrence: int  # cosmic-ray's occurrence of the operator in the whole file
    line: int  # where the mutated node starts (1-based, in FILE)
    original: str  # the line before, stripped
    mutated: str  # the line after, stripped (the first changed line when several changed)
    diff: str
    source: str = field(repr=False, default="")
    result: str = ""
    equivalent: bool = False  # named by --equivalent: known to change no behaviour
    exit: int | None = None
    reason: str = ""
    seconds: float = 0.0


def function_lines(source: str, name: str) -> tuple[int, int]:
    """First (its first decorator) and last line of the function NAME (or CLASS.NAME) of SOURCE."""
    *owners, leaf = name.split(".")
    body = ast.parse(source).body
    for owner in owners:
        body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == owner), None)
        if body is None:
            raise SystemExit(f"independent_mutants: no class {owner} on the path to {name}")
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == leaf:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return first, node.end_lineno
    raise SystemExit(f"independent_mutants: no function {name} in the file")


def operators(pattern: str | None):
    """(name, class) of cosmic-ray's operators that take no arguments, as `cosmic-ray init` makes
    them, filtered by a regular expression on the name when given."""
    import cosmic_ray.plugins

    for full in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(full)
        if cls.arguments():  # VariableReplacer, VariableInserter: need a variable, random
            continue
        short = full.split("/", 1)[1]
        if pattern and not re.search(pattern, short):
            continue
        yield short, cls


def make_mutants(source: str, path: str, lines: tuple[int, int], pattern: str | None = None) -> list[Mutant]:
    """Every cosmic-ray mutant of SOURCE whose node starts on one of LINES, in the file's order."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code

    first, last = lines
    found: list[tuple[int, int, str, int, object]] = []
    module = get_ast(source)  # only read here (mutation_positions), as cosmic-ray init does
    for name, cls in operators(pattern):
        op = cls()
        positions = ((start, end) for node in ast_nodes(module) for start, end in op.mutation_positions(node))
        for occurrence, (start, _end) in enumerate(positions):
            if first <= start[0] <= last:
                found.append((start[0], start[1], name, occurrence, cls))
    found.sort(key=lambda f: (f[0], f[1]))
    old_lines = source.splitlines()
    out: list[Mutant] = []
    seen: set[str] = set()
    for line, _col, name, occurrence, cls in found:
        text = mutate_code(source, cls(), occurrence)
        if text is None or text == source or text in seen:
            continue  # no mutation, or the same text another operator made
        seen.add(text)
        new_lines = text.splitlines()
        changed = [(i1, j1, j2) for tag, i1, _i2, j1, j2 in
                   difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()
                   if tag != "equal"]
        i1, j1, j2 = changed[0]
        diff = "".join(difflib.unified_diff(source.splitlines(True), text.splitlines(True),
                                            f"a/{path}", f"b/{path}", n=0))
        out.append(Mutant(index=len(out) + 1, operator=name, occurrence=occurrence, line=line,
                          original=old_lines[i1].strip() if i1 < len(old_lines) else "",
                          mutated=new_lines[j1].strip() if j1 < j2 else "(line removed)",
                          diff=diff, source=text))
    return out


def tree_copy(after: Path, dest: Path, rel: str, text: str) -> None:
    """AFTER copied to DEST by hard links (a plain copy across file systems), REL replaced by a
    new file holding TEXT (the link removed first: AFTER's file is never written)."""
    def link(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    shutil.copytree(after, dest, copy_function=link, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    target = dest / rel
    target.unlink()
    target.write_text(text)


def reason_of(report: dict | None, stderr: str) -> str:
    """The harness's words for a verdict: its verdict line, then what each pair left open (a changed
    line no configuration told apart, missed branches and why, not modelled, could not run) or its
    first divergence; without a report, the last line of stderr."""
    if not report:
        lines = [l for l in stderr.strip().splitlines() if l.strip()]
        return lines[-1] if lines else ""
    bits = [report.get("verdict_line", report.get("verdict", ""))]
    for pair in report.get("pairs", []):
        if pair.get("could_not_run"):
            bits.append(f"could not run: {pair['could_not_run']}")
        for r in pair.get("untold_residuals") or []:
            bits.append(f"{r.get('line')} {r.get('kind')}: {r.get('why')}")
        for side, cov in (pair.get("coverage") or {}).items():
            if cov.get("missed"):
                bits.append(f"{side} missed {cov['missed']}" + (f" ({cov['why_missed']})" if cov.get("why_missed") else ""))
        if pair.get("not_modelled"):
            bits.append(f"not modelled: {pair['not_modelled']}")
        if pair.get("budget_reached"):
            bits.append(f"budget reached ({pair.get('configs')} configurations)")
        divergences = pair.get("divergences") or []
        if divergences:
            bits.append("first divergence: " + json.dumps(divergences[0], default=str)[:400])
    return "; ".join(b for b in bits if b)


RUNNING: set[subprocess.Popen] = set()  # the harness runs in flight, ended on SIGTERM / SIGINT
STOPPING = threading.Event()


def run_harness(method: str, before: Path, tree: Path, out: Path, timeout: float,
                harness: Path = REPO, keep: Path | None = None) -> tuple[int | None, str, float]:
    """`python -m equivalence --method METHOD BEFORE TREE --json OUT`, run from HARNESS (a checkout
    of this project: its `equivalence` package is the one imported): exit code (None on a timeout),
    reason, seconds."""
    cmd = [sys.executable, "-m", "equivalence", "--method", method, str(before), str(tree), "--json", str(out)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(harness), env.get("PYTHONPATH")]))
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=harness, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    RUNNING.add(proc)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, f"timed out after {timeout:.0f} s", time.monotonic() - start
    finally:
        RUNNING.discard(proc)
    seconds = time.monotonic() - start
    report = None
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / out.with_suffix(".stderr").name).write_text(stderr)
        if out.is_file():
            shutil.copy2(out, keep / out.name)
    if out.is_file():
        try:
            report = json.loads(out.read_text())
        except ValueError:
            report = None
    return proc.returncode, reason_of(report, stderr), seconds


def _stop(signum, _frame):
    """SIGTERM / SIGINT: end the harness runs in flight (each removes its own temporary files), then
    leave through SystemExit, so the temporary copies are removed too."""
    STOPPING.set()
    for proc in list(RUNNING):
        proc.terminate()
    raise SystemExit(128 + signum)


def classify(code: int | None) -> str:
    return {1: KILLED, 0: SURVIVED}.get(code, NOT_PROVEN)


def run_one(m: Mutant, args, work: Path) -> Mutant:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `x is "all"`: the mutant cosmic-ray made
            compile(m.source, args.file, "exec")
    except SyntaxError as e:
        m.result, m.reason = INCOMPETENT, f"does not compile: {e.msg}"
        return m
    if STOPPING.is_set():
        m.result, m.reason = NOT_PROVEN, "not run: interrupted"
        return m
    tree = work / f"mutant-{m.index}"
    tree_copy(args.after, tree, args.file, m.source)
    try:
        m.exit, m.reason, m.seconds = run_harness(args.method, args.before, tree, work / f"mutant-{m.index}.json",
                                                  args.timeout, args.harness, args.keep_reports)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    m.result = classify(m.exit)
    return m


def label(m: Mutant) -> str:
    return f"{m.result} (equivalent)" if m.equivalent else m.result


def table(mutants: list[Mutant], width: int = 72) -> str:
    """One row per mutant that compiles; those that do not, on one line after the table."""
    rows = [("#", "operator", "line", "mutated line", "result", "exit")]
    for m in mutants:
        if m.result == INCOMPETENT:
            continue
        text = m.mutated if len(m.mutated) <= width else m.mutated[: width - 3] + "..."
        rows.append((str(m.index), m.operator, str(m.line), text, label(m), "" if m.exit is None else str(m.exit)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    bad = [m for m in mutants if m.result == INCOMPETENT]
    if bad:
        by_text = sorted({f"line {m.line}: {m.mutated}" for m in bad})
        out.append(f"incompetent (do not compile, not run): {len(bad)}: " + "; ".join(by_text[:3])
                   + (f"; ... ({len(by_text) - 3} more)" if len(by_text) > 3 else ""))
    return "\n".join(out)


def totals(mutants: list[Mutant]) -> dict[str, int]:
    """Counts: every mutant made, those that do not compile, those run, and of those run each result,
    split by whether --equivalent names it."""
    run = [m for m in mutants if m.result != INCOMPETENT]
    out = {"made": len(mutants), INCOMPETENT: len(mutants) - len(run), "run": len(run)}
    for kind in (KILLED, SURVIVED, NOT_PROVEN):
        out[kind] = sum(m.result == kind and not m.equivalent for m in run)
    for kind in (KILLED, SURVIVED, NOT_PROVEN):
        out[f"{kind} (equivalent)"] = sum(m.result == kind and m.equivalent for m in run)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--method", required=True, help="CLASS.METHOD, as for python -m equivalence")
    p.add_argument("--file", required=True, help="the file of the moved function, relative to AFTER")
    p.add_argument("--function", required=True, help="the moved function: NAME or CLASS.NAME")
    p.add_argument("--json", type=Path, help="write the mutants and totals as JSON")
    p.add_argument("--jobs", type=int, default=1, help="harness runs at a time (1 or 2; default 1)")
    p.add_argument("--operators", help="only cosmic-ray operators whose name matches this regular expression")
    p.add_argument("--equivalent", action="append", default=[], metavar="TEXT",
                   help="a mutated line (stripped) known to change no behaviour (repeatable)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per harness run (default 1800)")
    p.add_argument("--no-baseline", action="store_true", help="do not check the unmutated pair first")
    p.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    p.add_argument("--keep-reports", type=Path, metavar="DIR",
                   help="keep each run's harness JSON and stderr in DIR (mutant-N.json, baseline.json)")
    p.add_argument("--harness", type=Path, default=REPO,
                   help="run python -m equivalence from this checkout of sglang-refactor (default: this one)")
    args = p.parse_args(argv)
    if not 1 <= args.jobs <= 2:
        p.error("--jobs: 1 or 2 (the machine is shared)")
    args.before, args.after = args.before.resolve(), args.after.resolve()
    path = args.after / args.file
    if not path.is_file():
        p.error(f"{path}: no such file")
    source = path.read_text()
    lines = function_lines(source, args.function)
    mutants = make_mutants(source, args.file, lines, args.operators)
    print(f"{len(mutants)} cosmic-ray mutants of {args.function} ({args.file}:{lines[0]}-{lines[1]})")
    if args.list:
        print(table(mutants))
        return 0
    equivalent = {t.strip() for t in args.equivalent}
    for m in mutants:
        m.equivalent = m.mutated in equivalent
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    args.harness = args.harness.resolve()
    started = time.monotonic()
    baseline = None
    with tempfile.TemporaryDirectory(prefix="independent-mutants-") as tmp:
        work = Path(tmp)
        if not args.no_baseline:
            code, reason, seconds = run_harness(args.method, args.before, args.after, work / "baseline.json",
                                                args.timeout, args.harness, args.keep_reports)
            baseline = {"exit": code, "reason": reason, "seconds": round(seconds, 1)}
            print(f"baseline (unmutated): exit {code}, {reason} ({seconds:.1f} s)")
            if code != 0:
                print("independent_mutants: the unmutated pair is not equivalent: mutants not run", file=sys.stderr)
                return 2
        done = 0

        def one(m: Mutant) -> Mutant:
            nonlocal done
            run_one(m, args, work)
            done += 1
            print(f"[{done}/{len(mutants)}] {m.operator} line {m.line}: {label(m)}"
                  f"{'' if m.exit is None else f' (exit {m.exit})'} {m.seconds:.1f} s", file=sys.stderr, flush=True)
            return m

        pool = ThreadPoolExecutor(max_workers=args.jobs)
        try:
            list(pool.map(one, mutants))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    elapsed = time.monotonic() - started
    counts = totals(mutants)
    print(table(mutants))
    print("totals: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v or "(equivalent)" not in k)
          + f"; {elapsed:.0f} s")
    for m in mutants:
        if m.result in (SURVIVED, NOT_PROVEN) or (m.result == KILLED and m.equivalent):
            print(f"  #{m.index} {label(m)}: line {m.line}: {m.original}  ->  {m.mutated}: {m.reason}")
    if args.json:
        args.json.write_text(json.dumps({
            "tool": "cosmic-ray " + _version("cosmic-ray"),
            "before": str(args.before), "after": str(args.after), "method": args.method,
            "file": args.file, "function": args.function, "lines": list(lines), "harness": str(args.harness),
            "baseline": baseline, "totals": counts, "seconds": round(elapsed, 1),
            "mutants": [{k: v for k, v in asdict(m).items() if k != "source"} for m in mutants],
        }, indent=2) + "\n")
    if counts[SURVIVED] or counts[f"{KILLED} (equivalent)"]:
        return 1  # a change that went unseen, or a change that is none called divergent
    return 2 if counts[NOT_PROVEN] else 0


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
