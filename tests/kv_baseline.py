"""extract_kv_dtype's output today versus at a pinned baseline commit, on real releases.

The kv codemod became a preset of the generic extract_method engine; its output must not
change. The baseline's `codemods` package is taken from git (`git archive BASELINE codemods`)
into a temporary folder and run in a subprocess with that folder first on PYTHONPATH; the
current code runs the same way, so both sides see exactly the same inputs.

    python -m tests.kv_baseline [VERSION ...]   # default: every release 0.5.7 - 0.5.15.post1
    python -m tests.kv_baseline --variants      # the robustness variants of our fixture shapes

prints, per release (or variant) and run, whether the outputs are identical, refusals included
(exit 1 if any differs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASELINE = "af8f38b"  # main before the engine became generic
RELEASES = ("0.5.7", "0.5.8", "0.5.8.post1", "0.5.9", "0.5.10", "0.5.10.post1", "0.5.11", "0.5.12",
            "0.5.12.post1", "0.5.13", "0.5.13.post1", "0.5.14", "0.5.15", "0.5.15.post1")
RUNS = {"steps 1-4": {}, "steps 1-4 + both fixes": {"fixes": ["kv-str-lookup", "fp4-fallback"]},
        "steps 1-2": {"steps": [1, 2]}}

# Runs in the subprocess: every run on every root, as {root: {run: {relative path: text} or error}}.
_SCRIPT = """
import json, sys
from pathlib import Path
from codemods.extract_kv_dtype import CodemodError, refactor
roots, runs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {}
for root in roots:
    out[root] = {}
    for name, kw in runs.items():
        steps = range(kw["steps"][0], kw["steps"][1] + 1) if "steps" in kw else range(1, 5)
        try:
            plan = refactor(Path(root), steps, fixes=kw.get("fixes", ()))
        except CodemodError as exc:
            out[root][name] = f"{type(exc).__name__} (exit {exc.exit_code}): {exc}"
            continue
        texts = {str(p.relative_to(plan.root)): t for p, t in plan.changes.items()}
        texts["<messages>"] = "\\n".join(plan.messages)
        texts["<steps>"] = json.dumps([[s.number, s.subject, sorted(str(p.relative_to(plan.root)) for p in s.changes)]
                                       for s in plan.steps])
        out[root][name] = texts
print(json.dumps(out))
"""


def baseline_package(dest: Path) -> Path:
    """Unpack the baseline commit's `codemods` package under `dest`; returns `dest`."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", BASELINE, "codemods"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def outputs(pythonpath: Path, roots: list[Path], runs: dict = RUNS) -> dict:
    """{root: {run: texts or error}} computed by the `codemods` package under `pythonpath`."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    res = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps([str(r) for r in roots]), json.dumps(runs)],
                         cwd=pythonpath, env=env, check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def compare(roots: list[Path], runs: dict = RUNS, current: Path = REPO) -> tuple[dict, dict, dict]:
    """({root: {run: identical?}}, baseline outputs, current outputs); `current`: the folder
    holding the code checked against the baseline (this checkout)."""
    with tempfile.TemporaryDirectory() as tmp:
        before = outputs(baseline_package(Path(tmp)), roots, runs)
    after = outputs(current, roots, runs)
    return {r: {run: before[r][run] == after[r][run] for run in runs} for r in before}, before, after


def main(versions: list[str]) -> int:
    from tests.releases import release_root

    roots = [release_root(v) for v in versions]
    same, before, after = compare(roots)
    differs = 0
    for v, root in zip(versions, roots):
        for run, ok in same[str(root)].items():
            differs += not ok
            b = before[str(root)][run]
            kind = "error" if isinstance(b, str) else f"{len(b) - 2} file(s)"
            print(f"{v:14} {run:24} {kind:10} {'identical' if ok else 'DIFFERENT'}")
    print(f"{len(versions)} releases x {len(RUNS)} runs: {len(versions) * len(RUNS) - differs} identical, {differs} different")
    return 1 if differs else 0


def main_variants() -> int:
    from tests.variants import variants

    with tempfile.TemporaryDirectory() as tmp:
        roots = {v.id: v.write(Path(tmp) / str(i)) for i, v in enumerate(variants())}
        runs = {"steps 1-4": {}}
        same, before, _ = compare(list(roots.values()), runs)
        differs = [ident for ident, root in roots.items() if not same[str(root)]["steps 1-4"]]
        refused = sum(isinstance(before[str(root)]["steps 1-4"], str) for root in roots.values())
    for ident in differs:
        print(f"DIFFERENT {ident}")
    print(f"{len(roots)} variants ({refused} refused at the baseline): {len(roots) - len(differs)} identical "
          f"(outputs or refusal messages), {len(differs)} different")
    return 1 if differs else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args in (["-h"], ["--help"]):
        print(__doc__)
        sys.exit(0)
    unknown = [a for a in args if a.startswith("-") and a != "--variants"]
    if unknown or ("--variants" in args and args != ["--variants"]):
        print(f"kv_baseline: unknown option {(unknown or args)[0]!r} (--help says what it takes)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main_variants() if args == ["--variants"] else main(args or list(RELEASES)))
