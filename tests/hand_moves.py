"""A hand-made move between two small trees written by a test: the trees, and the report of
`python -m equivalence BEFORE AFTER` (nothing named) on them, as JSON."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from equivalence.cli import main

PACKAGE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": ""}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """`files` (path -> text, dedented) under `root`, with the package's `__init__.py` files."""
    for rel, text in {**PACKAGE, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def moves_report(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> dict:
    """The JSON report on `before` -> `after`, nothing named."""
    trees = [str(write_tree(tmp_path / side, files)) for side, files in (("b", before), ("a", after))]
    out = tmp_path / "r.json"
    main([*trees, "--json", str(out)])
    return json.loads(out.read_text())


def first_pair(report: dict) -> dict:
    """The pair entry of the report's first check."""
    return report["checks"][0]["report"]["pairs"][0]
