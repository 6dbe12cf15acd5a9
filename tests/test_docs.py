"""The docs stay true to the repository: docs/layout.md's tree names exactly the folders that
exist (our packages' folders holding Python, the top-level folders, the fixtures' kinds), and every relative link of the
README and docs/ points at a file, and at a heading of it, that exist; each command's page names every
option and every exit code its `--help` lists (the exit codes in a table whose first column is `exit`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codemods import KINDS

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


# each command's page documents every option and every exit code its --help lists: every
# registered kind (docs/NAME.md), and the harness
COMMANDS = {**{f"codemods.{name}": f"{name}.md" for name in KINDS}, "equivalence": "equivalence.md"}


def _help(module: str) -> str:
    run = subprocess.run([sys.executable, "-m", module, "--help"], cwd=REPO, capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "100"})
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize("module", sorted(COMMANDS))
def test_every_option_and_exit_code_of_a_command_is_on_its_page(module):
    page = COMMANDS[module]
    text, page_text = _help(module), (REPO / "docs" / page).read_text()
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*[a-z])", text)) - {"--help"}
    assert options, module
    missing = sorted(o for o in options if not re.search(rf"(?<![\w-]){o}(?![\w-])", page_text))
    assert not missing, f"docs/{page} does not name {missing} ({module} --help does)"
    section = text.split("\nexit codes:\n", 1)[1]
    codes = set()
    for line in section.splitlines():
        if line and not line.startswith(" "):
            break
        if m := re.match(r"  (\d+(?:/\d+)?)  \S", line):  # a code, not a continuation line
            codes |= set(m.group(1).split("/"))
    assert codes, module
    rows = re.search(r"^\| *exit *\|.*\n((?:\|.*\n?)*)", page_text, re.M)
    assert rows, f"docs/{page} has no exit code table (a table whose first column is `exit`)"
    table = set(re.findall(r"^\| *`?(\d+)`? *\|", rows.group(1), re.M))
    assert codes <= table, f"docs/{page}'s exit code table lacks {sorted(codes - table)} ({module} --help lists them)"
