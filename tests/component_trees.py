"""The component fixture (`fixtures/components/exporter`: a small sglang-shaped runner whose
weight-export methods share the send groups) and variants of it made by small text edits, for
the extract_component tests and the harness's."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "components" / "exporter"
RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang.srt.model_executor.model_runner_components.weight_exporter.WeightExporter"
TARGET_FILE = "sglang/srt/model_executor/model_runner_components/weight_exporter.py"
METHODS = ("init_weights_send_group", "send_weights", "save_remote_model", "get_weights_by_name")


def copy_tree(dest: Path, edits: dict[str, list[tuple[str, str]]] | None = None,
              files: dict[str, str] | None = None) -> Path:
    """The fixture copied to `dest`, each `edits[file]` (old, new) applied once, `files` added."""
    shutil.copytree(FIXTURE, dest)
    for rel, changes in (edits or {}).items():
        path = dest / rel
        text = path.read_text()
        for old, new in changes:
            assert text.count(old) == 1, (rel, old)
            text = text.replace(old, new)
        path.write_text(text)
    for rel, text in (files or {}).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)
    return dest


def spec(**changes):
    from codemods.extract_component import ComponentSpec

    return ComponentSpec(**{"class_name": "ModelRunner", "target": TARGET, "methods": METHODS,
                            "attr": "weight_exporter", **changes})
