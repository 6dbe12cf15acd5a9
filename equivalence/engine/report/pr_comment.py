"""Fit the Markdown report into one GitHub pull-request comment: at most 60,000 bytes of UTF-8, so
60 KB however it is counted (GitHub takes 65,536 characters), and no line over 1,000 characters (a longer one keeps its start and says how
much it leaves out).

Kept whole: the title, the lines about the revisions, the verdict table and the findings.
Shortened until the report fits: the list items of every other section (divergences,
classified differences, branches not hit, surviving mutants), each section keeping the same
number of first items and a line saying how many it leaves out; then, if even the headings
and tables are too long, the text is cut at a line with a note. The full report is the JSON.
"""

from __future__ import annotations

GITHUB_COMMENT_LIMIT = 60_000  # bytes of UTF-8 (a character is one byte or more: never more characters)
LINE_LIMIT = 1_000
KEPT_WHOLE = ("### Findings",)  # section headings whose items are never left out
CUT_NOTE = "\n\n… (the report is cut here to fit a GitHub comment; `--json` writes it in full)\n"


def fit(text: str, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    text = "\n".join(_short(line) for line in text.split("\n"))
    if _size(text) <= limit:
        return text
    sections = _sections(text)
    most = max((len(items) for kept, _, items in sections if not kept), default=0)
    low, high = 0, most  # the largest number of items per section that fits
    while low < high:
        middle = (low + high + 1) // 2
        if _size(_render(sections, middle)) <= limit:
            low = middle
        else:
            high = middle - 1
    shortened = _render(sections, low)
    if _size(shortened) <= limit:
        return shortened
    room = limit - _size(CUT_NOTE)
    cut = shortened.encode("utf-8")[:room].decode("utf-8", errors="ignore").rpartition("\n")[0]
    return cut + CUT_NOTE


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _short(line: str) -> str:
    if len(line) <= LINE_LIMIT:
        return line
    kept = LINE_LIMIT - len(f" … ({len(line)} more characters; `--json` has them)")
    return line[:kept] + f" … ({len(line) - kept} more characters; `--json` has them)"


def _sections(text: str) -> list[tuple[bool, list[str], list[list[str]]]]:
    """(kept whole?, lines before the first item, items) per section; an item is a `- ` line
    with its indented continuation lines. A section starts at a `#` heading."""
    sections: list = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("#") or not sections:
            sections.append((line.startswith(KEPT_WHOLE), [line], []))
        elif line.startswith("- "):
            sections[-1][2].append([line])
        elif line.startswith("  ") and sections[-1][2]:
            sections[-1][2][-1].append(line)
        elif sections[-1][2]:  # text after the items (a table, a paragraph): its own section
            sections.append((False, [line], []))
        else:
            sections[-1][1].append(line)
    return sections


def _render(sections, per_section: int) -> str:
    out = []
    for kept, head, items in sections:
        out += head
        shown = items if kept else items[:per_section]
        for item in shown:
            out += item
        if len(shown) < len(items):
            out.append(f"- … {len(items) - len(shown)} more not shown here (to fit a GitHub comment; "
                       f"`--json` writes them all)")
    return "\n".join(out) + "\n"
