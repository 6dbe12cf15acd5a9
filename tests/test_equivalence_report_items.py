"""Every count the Markdown report gives is backed by the items it counts, once: the kv preset's
static check lists its map, residual differences and changed module globals; a section another
pair had word for word (original -> the one-shot output repeats original -> step 1) names that
pair instead of repeating it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.versions.codemod_steps import ONE_SHOT
from tests.releases import release_root

TREES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"
STATIC_LINE = re.compile(r"- (.+ → .+): (\d+) mapped, (\d+) residual difference\(s\)")


def markdown_of(args, tmp_path) -> str:
    md = tmp_path / "r.md"
    assert main([*args, "--markdown", str(md), "--examples", "20"]) == 0
    return md.read_text()


def static_counts_are_backed(markdown: str) -> int:
    """Checks each pair's "M mapped, N residual difference(s)" line of the kv Markdown against
    the items under it; returns how many pairs it checked."""
    section = markdown.split("Static check (the moved code against the old body, modulo the substitution map):\n")[1]
    lines = section.split("\n\n")[0].splitlines()
    checked = 0
    for i, line in enumerate(lines):
        match = STATIC_LINE.match(line)
        if not match:
            assert line.startswith("  - "), line
            continue
        mapped, residuals = int(match[2]), int(match[3])
        following = lines[i + 1:]
        items = following[:next((k for k, item in enumerate(following) if not item.startswith("  - ")), len(following))]
        (map_line,) = [item for item in items if item.startswith("  - map: ")]
        assert map_line.startswith("  - map: the same as ") or map_line.count(" stands for ") == mapped, map_line
        listed = [item for item in items if not item.startswith(("  - map: ", "  - module global "))]
        assert len(listed) == residuals or (residuals and len(listed) == 1 and listed[0].startswith(
            "  - residual differences: the same as ")), (line, listed)
        if "a module global changed" in line:
            assert any(item.startswith("  - module global ") for item in items), line
        checked += 1
    return checked


def test_kv_static_check_lists_what_it_counts(tmp_path):
    markdown = markdown_of(["--steps", str(TREES / "record_call"), "--fix", "kv-str-lookup"], tmp_path)
    assert static_counts_are_backed(markdown) == 6
    assert "  - applied-by-caller: " in markdown
    assert "  - module global `kv_cache_dtype_to_str` changed: before unbound, after `def kv_cache_dtype_to_str(" \
        in markdown


def test_the_one_shot_pair_names_the_pair_it_repeats(tmp_path):
    markdown = markdown_of(["--steps", str(TREES / "record_call")], tmp_path)
    section = markdown.split(f"### Classified differences: original → {ONE_SHOT}\n")[1].split("\n\n")[0]
    assert re.fullmatch(r"- the same as original → step 1: deferred-writes in \d+ configurations, eager-read in \d+ "
                        r"configurations, with the same smallest configurations and observations", section), section
    assert markdown.count("the refactored code returns the results and the caller applies them") == 1


def test_method_report_repeats_no_section(tmp_path):
    markdown = markdown_of(["--steps", str(TREES / "method_one_result"), "--method", "ModelRunner.bind_threads",
                            "--to", "sglang.srt.utils.numa_utils"], tmp_path)
    assert f"### Classified differences: original → {ONE_SHOT}\n- the same as original → step 1: " in markdown
    assert markdown.count("the function returns its results and the caller applies them") == 1
    # step 2 -> step 3 and step 3 -> step 4 compare the same moved function, unchanged
    assert "### Static check: no changed module global\n\nThe same as for step 2 → step 3.\n" in markdown
    tables = re.findall(r"### Static check: .*?\n\n(before: .*?)(?=\n- |\n###|\Z)", markdown, re.S)
    assert len(tables) == len(set(tables)) == 4


def test_a_real_release_backs_every_count_once(tmp_path):
    pytest.importorskip("codemods.extract_kv_dtype")
    markdown = markdown_of(["--steps", str(release_root("0.5.15.post1"))], tmp_path)
    assert static_counts_are_backed(markdown) == 5
    assert f"### Classified differences: original → {ONE_SHOT}\n- the same as original → step 1: " in markdown
    assert markdown.count("the refactored code returns the results and the caller applies them") == 1
