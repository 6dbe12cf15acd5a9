"""The docs stay true to the repository: docs/layout.md's tree names exactly the folders that
exist (our packages' folders holding Python, the top-level folders, the fixtures' kinds), and every relative link of the
README and docs/ points at a file, and at a heading of it, that exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
TOP = ("fixtures", "tests", "benchmarks", "scripts", "docs", ".ci")


def layout_folders() -> list[str]:
    """The folders docs/layout.md's tree names, as paths (its depth read off the tree's prefix)."""
    block = re.search(r"```text\n(.*?)```", (REPO / "docs" / "layout.md").read_text(), re.S).group(1)
    stack: list[str] = []
    out = []
    for line in block.splitlines():
        m = re.match(r"([│├└─ ]*)(\S+/)\s", line + " ")
        assert m, f"not a folder line: {line!r}"
        depth = len(m.group(1)) // 4
        stack[depth:] = [m.group(2).rstrip("/")]
        out.append("/".join(stack))
    return out


def existing_folders() -> set[str]:
    found = set()
    for package in ("pysource", "codemods", "equivalence"):  # every folder holding Python, namespace packages too
        found |= {p.parent.relative_to(REPO).as_posix() for p in (REPO / package).rglob("*.py")
                  if "__pycache__" not in p.parts}
    found |= {t for t in TOP if (REPO / t).is_dir()}
    found |= {p.relative_to(REPO).as_posix() for p in (REPO / "fixtures").iterdir() if p.is_dir()}
    return found


def test_the_layout_names_every_folder_and_only_those():
    listed = layout_folders()
    assert len(listed) == len(set(listed))
    assert set(listed) == existing_folders()


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors of a Markdown page (code blocks left out)."""
    out, code = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            code = not code
        elif not code and (m := re.match(r"#+ (.*)", line)):
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-"))
    return out


def test_every_relative_link_resolves():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file) if file else page
            assert dest.exists(), f"{page.name}: {target}: no such file"
            if anchor:
                assert anchor in _anchors(dest.read_text()), f"{page.name}: {target}: no such heading"
