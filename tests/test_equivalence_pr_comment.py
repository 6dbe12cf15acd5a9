"""The Markdown report fits one GitHub comment: long lists are shortened with a note, the verdict
table and the findings are kept whole."""

from __future__ import annotations

from equivalence.engine.report.pr_comment import CUT_NOTE, GITHUB_COMMENT_LIMIT, fit
from equivalence.presets.kv_dtype.report import markdown

COVERAGE = {"before": {"branches": 24, "hit": 24, "missed": []}, "after": {"branches": 24, "hit": 24, "missed": []}}


def divergence(kind: str) -> dict:
    return {"kind": kind, "count": 84, "example": {"server_args.kv_cache_dtype": "auto", "model_dtype": "x" * 200},
            "before": {"kv_cache_dtype": "torch.float8_e4m3fn", "events": ["y" * 300]},
            "after": {"kv_cache_dtype": "torch.bfloat16", "events": []}}


def pair(index: int, kinds: int) -> dict:
    return {"before": f"{index:07x}", "after": f"{index + 1:07x}", "verdict": "divergent", "configs": 8773,
            "divergences": [divergence(f"kind-{k}") for k in range(kinds)], "classified": [], "coverage": COVERAGE}


def report(pairs: int, kinds: int) -> dict:
    finding = {"id": "kv-str-keyerror", "summary": "raises KeyError", "configs": 30, "per_version": {"a": 30},
               "example": {"server_args.kv_cache_dtype": "auto"}, "observed": {"exception": "KeyError"},
               "expected": {"exception": "a clear error"}}
    return {"verdict": "divergent", "pairs": [pair(i, kinds) for i in range(pairs)], "findings": [finding]}


def test_a_report_that_fits_is_unchanged():
    text = markdown(report(3, 2))
    assert len(text) < GITHUB_COMMENT_LIMIT and "not shown" not in text
    assert fit(text) == text


def test_a_long_report_keeps_its_table_and_findings_and_says_what_it_leaves_out():
    text = fit(markdown(report(60, 12)))
    assert len(text) <= GITHUB_COMMENT_LIMIT
    lines = text.splitlines()
    assert lines[0] == "## Equivalence check: **divergent**"
    rows = [line for line in lines if line.startswith("| ") and "divergent" in line]
    assert len(rows) == 60
    findings = text.split("### Findings", 1)[1]
    assert "**kv-str-keyerror**" in findings and "  - expected: " in findings
    notes = [line for line in lines if "more not shown here" in line]
    assert len(notes) == 60  # each pair's divergence list is shortened, by the same number of items
    shown = text.count("  - smallest: ") - 1  # one is the finding's
    left_out = sum(int(note.split()[2]) for note in notes)
    assert shown + left_out == 60 * 12 and shown >= 60


def test_a_table_too_long_for_one_comment_is_cut_with_a_note():
    text = fit(markdown(report(900, 1)))
    assert len(text) <= GITHUB_COMMENT_LIMIT
    assert text.endswith(CUT_NOTE) and text.startswith("## Equivalence check: **divergent**")


def test_no_line_is_longer_than_a_thousand_characters():
    text = fit("## Equivalence check\n\n- why not hit: " + "x" * 5000 + "\n- short\n")
    assert max(len(line) for line in text.split("\n")) <= 1000
    assert "more characters" in text and "- short" in text


def test_the_limit_is_in_bytes_so_a_report_of_wide_characters_fits_60_kb_too():
    """`→` and `…` are three bytes each: 60,000 characters of them are 180,000 bytes."""
    text = fit("## Equivalence check\n\n" + "".join(f"- `a` → `b` … {i}\n" for i in range(6000)))
    assert len(text.encode("utf-8")) <= GITHUB_COMMENT_LIMIT < len(text) * 3
