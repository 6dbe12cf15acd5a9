"""The moves report a reviewer reads (equivalence/subjects/moves_report.py), rendered from the
JSON contract: the first effect apart in words, why a move is not proven, and a PR comment that
keeps its summary whole however many checks there are."""

from __future__ import annotations

from equivalence.engine.report.pr_comment import GITHUB_COMMENT_LIMIT, LINE_LIMIT, fit
from equivalence.engine.report.verdict import Report
from equivalence.subjects.moves_report import markdown, why_not_proven


def _move(name: str, verdict: str, **extra) -> dict:
    return {"kind": "function", "from": f"Engine.{name}", "from_file": "sglang/srt/engine.py:3",
            "to": f"sglang.srt.helpers.{name}", "to_file": "sglang/srt/helpers.py:1", "wrapper": True,
            "similarity": 1.0, "verdict": verdict, "other_edits": [], **extra}


def _pair(verdict: str, **extra) -> dict:
    return {"before": "a", "after": "b", "verdict": verdict, "configs": 10, "budget_reached": False,
            "divergences": [], "classified": [], "not_modelled": [], "coverage": {}, **extra}


def _report(moves: list[dict], checks: list[dict]) -> dict:
    verdicts = [m["verdict"] for m in moves]
    verdict = "divergent" if "divergent" in verdicts else "inconclusive" if "inconclusive" in verdicts else "equivalent"
    return {"verdict": verdict, "verdict_line": verdict, "moves": moves, "checks": checks}


def test_a_difference_in_calls_names_the_first_call_apart_on_both_sides():
    divergence = {"kind": "different-calls", "count": 4, "choices": {"local:n": 2},
                  "before": {"exception": None, "returned": None,
                             "events": [["call", "self.log", ["x"], []], ["call", "flush", ["<local:n>"], [["force", True]]]]},
                  "after": {"exception": None, "returned": None, "events": [["call", "self.log", ["x"], []]]},
                  "explanation": "the versions call different functions or with different arguments"}
    check = {"moves": ["Engine.sync"], "kind": "method",
             "report": {"verdict": "divergent", "pairs": [_pair("divergent", divergences=[divergence])]}}
    md = markdown(_report([_move("sync", "divergent")], [check]), lambda c: "details")
    (line,) = [ln for ln in md.splitlines() if ln.startswith("- `Engine.sync`")]
    assert "(4 configurations; e.g. `n` = `2`)" in line
    assert line.endswith("effect 2: before calls `flush(n, force=True)`; after nothing more")


def test_why_a_move_is_not_proven_is_said_from_its_check_once_for_the_moves_it_holds_for():
    pair = _pair("inconclusive", coverage={"after": {"hit": 3, "branches": 4, "missed": ["L7 if"],
                                                     "why_missed": [{"branches": ["L7 if"],
                                                                     "why": "no input makes `n` negative"}]}})
    report = {"verdict": "inconclusive", "pairs": [pair]}
    assert why_not_proven(Report.from_json(report)) == "1 of 4 branches after were never run (no input makes `n` negative)"
    checks = [{"moves": [f"Engine.{n}"], "kind": "method", "report": report} for n in ("a", "b")]
    md = markdown(_report([_move("a", "inconclusive"), _move("b", "inconclusive")], checks), lambda c: "details")
    assert "### Not proven: 2" in md
    assert "- `Engine.a`, `Engine.b`: 1 of 4 branches after were never run" in md


def test_many_checks_keep_the_summary_whole_and_fold_what_fits():
    moves = [_move(f"m{i}", "equivalent") for i in range(80)]
    checks = [{"moves": [m["from"]], "kind": "method", "report": {"verdict": "equivalent", "pairs": []}}
              for m in moves]
    md = fit(markdown(_report(moves, checks), lambda c: "\n".join(["- a line of the check's own report"] * 60)))
    assert len(md) <= GITHUB_COMMENT_LIMIT and max(map(len, md.splitlines())) <= LINE_LIMIT
    assert "**80 methods moved out of their class: 80 equivalent.**" in md
    assert md.count("| `Engine.m") == 60 and "| … 20 more moves |" in md  # the table: 60 rows, the rest counted
    folded = md.count("<details>")
    assert 0 < folded < 80 and f"{80 - folded} more checks in full in the JSON" in md


def test_other_edits_leave_out_annotations_and_say_lines_in_words():
    from equivalence.subjects.moves_edits import body_edits

    residual = lambda kind, b, a: {"kind": kind, "before_line": 3 if b else None, "after_line": 9 if a else None,
                                   "before": b, "after": a, "explained": False}
    static = {"before": "sglang/srt/engine.py:2 Engine.sync", "after": "sglang/srt/sync.py:8 sync",
              "residuals": [residual("changed", "def sync(self, n)", "def sync(self: Syncer, n)"),
                            residual("changed", "if n <= 0:", "if n < 0:"),
                            residual("removed", "self.flush()", ""),
                            residual("changed", "rank = self.rank", "rank = self.rank")],
              "constants": []}
    edits = body_edits(Report.from_json({"verdict": "divergent", "pairs": [{"verdict": "divergent", "static": static}]}))
    assert [(e["file"], e["line"], e["before"], e["what"]) for e in edits] == [
        ("sglang/srt/sync.py", 9, "sglang/srt/engine.py:3", "line changed: `if n <= 0:` → `if n < 0:`"),
        ("sglang/srt/engine.py", 3, "sglang/srt/engine.py:3", "line removed: `self.flush()` → nothing"),
        ("sglang/srt/sync.py", 9, "sglang/srt/engine.py:3",
         "line changed: `rank = self.rank` reads the same, but where the code now is, its names stand for other "
         "objects (`self` is the new home)")]
