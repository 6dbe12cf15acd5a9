"""Expected outputs of the codemod on our own fixture trees, one folder per shape and step.

`python -m tests.codemod_expected` regenerates fixtures/codemod_expected/ (review the diff by
eye before committing): for each shape and step, the files that step changes (a step that
leaves a file alone stores nothing for it; `expected_files` reads the latest version).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TREES = FIXTURES / "trees"
EXPECTED = FIXTURES / "codemod_expected"
SHAPES = ("instance_log", "server_args_write_log", "server_args_write", "record_call", "record_dflash")
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/mem_cache/kv_cache_dtype.py"


def expected_files(shape: str, step: int) -> dict[str, str]:
    """The touched files as they stand after steps 1..step."""
    files: dict[str, str] = {}
    for k in range(1, step + 1):
        folder = EXPECTED / shape / f"step{k}"
        files.update({rel: (folder / rel).read_text() for rel in (RUNNER, TARGET) if (folder / rel).exists()})
    return files


def regenerate() -> None:
    from codemods.extract_kv_dtype import refactor

    shutil.rmtree(EXPECTED, ignore_errors=True)
    for shape in SHAPES:
        plan = refactor(TREES / shape)
        current: dict[str, str] = {}
        for step in plan.steps:
            for path, text in step.changes.items():
                rel = str(path.relative_to(plan.root))
                if current.get(rel) == text:
                    continue
                current[rel] = text
                out = EXPECTED / shape / f"step{step.number}" / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text)


if __name__ == "__main__":
    regenerate()
    print(f"regenerated {EXPECTED}", file=sys.stderr)
