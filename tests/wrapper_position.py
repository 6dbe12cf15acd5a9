"""Split runs (`--steps 1-2` then `--steps 3-4`) place the wrapper by a rule, not where the
method was (step 3 alone cannot know that place): compare such outputs up to that position."""

from __future__ import annotations

import re
from pathlib import Path

WRAPPER_DEF = "    def configure_kv_cache_dtype(self):\n"
_MEMBER = re.compile(r"^    (?:async\s+)?def\s+(\w+)")


def split_wrapper(text: str) -> tuple[str, str, str]:
    """(text without the wrapper method, the wrapper's own lines, the method it follows)."""
    lines = text.splitlines(keepends=True)
    (i,) = [n for n, ln in enumerate(lines) if ln == WRAPPER_DEF]
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith("        ")):
        j += 1
    before = next(_MEMBER.match(ln).group(1) for ln in reversed(lines[:i]) if _MEMBER.match(ln))
    return "".join(lines[:i] + lines[j:]), "".join(lines[i:j]).rstrip("\n"), before


def assert_same_but_wrapper_position(split: str, full: str, split_after: str, full_after: str) -> None:
    s_rest, s_wrapper, s_after = split_wrapper(split)
    f_rest, f_wrapper, f_after = split_wrapper(full)
    assert (s_after, f_after) == (split_after, full_after)
    assert s_wrapper == f_wrapper
    assert s_rest == f_rest


def assert_equivalent(before: Path, after: Path) -> None:
    """The equivalence harness on the two trees (a quick run: few generated examples)."""
    from equivalence.presets.kv_dtype.check import check
    from equivalence.presets.kv_dtype.subject import load_version

    a, b = load_version(before, "one run"), load_version(after, "split run")
    report = check([a, b], [(a, b)], examples=10).to_json()
    assert report["verdict"] == "equivalent", report["pairs"][0]["divergences"]
    assert report["pairs"][0]["divergences"] == [] and report["pairs"][0]["classified"] == []
