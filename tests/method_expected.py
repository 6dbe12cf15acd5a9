"""Expected outputs of extract_method on our own fixture trees, one folder per shape and step.

`python -m tests.method_expected` regenerates fixtures/method_expected/ (review the diff by eye
before committing): for each shape and step of a one-shot run (`--steps 1-4`), the files that
step changes, relative to the tree; `expected_files` reads the latest version of each.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TREES = FIXTURES / "trees"
EXPECTED = FIXTURES / "method_expected"
RUNNER = "sglang/srt/model_executor/model_runner.py"
KEEP = ".nothing-changed"

# shape (a fixture tree) -> the MethodSpec arguments its extraction uses
SHAPES = {
    "method_one_result": dict(method_name="bind_threads", target_module="sglang.srt.utils.numa_utils"),
    "method_several_results": dict(method_name="init_ranks", renames={"rank": "global_rank"},
                                   target_module="sglang.srt.model_executor.runner_parts.ranks"),
    "method_own_params": dict(method_name="pick_backend", target_module="sglang.srt.model_executor.backend_choice",
                              function_name="choose_backend", narrows=("server_args.attention_backend",)),
    "method_early_return": dict(method_name="check_moe",
                                target_module="sglang.srt.model_executor.runner_parts.moe_checks"),
    "method_pass_self": dict(method_name="make_backend", pass_self="model_runner",
                             target_module="sglang.srt.model_executor.runner_parts.attention_setup"),
    "method_docstring_import": dict(method_name="start_transfer_engine", function_name="maybe_start_transfer_engine",
                                    target_module="sglang.srt.distributed.transfer_engine"),
}


def spec(shape: str):
    from codemods.extract_method import MethodSpec

    return MethodSpec(class_name="ModelRunner", **SHAPES[shape])


def expected_files(shape: str, step: int) -> dict[str, str]:
    """The files steps 1..step changed, as they stand after step `step` (relative paths)."""
    files: dict[str, str] = {}
    for k in range(1, step + 1):
        folder = EXPECTED / shape / f"step{k}"
        files.update({p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*")
                      if p.is_file() and p.name != KEEP})
    return files


def regenerate() -> None:
    from codemods.extract_method import refactor

    shutil.rmtree(EXPECTED, ignore_errors=True)
    for shape in SHAPES:
        plan = refactor(TREES / shape, spec(shape))
        current: dict[str, str] = {}
        for step in plan.steps:
            folder = EXPECTED / shape / f"step{step.number}"
            folder.mkdir(parents=True, exist_ok=True)
            for path, text in step.changes.items():
                rel = str(path.relative_to(plan.root))
                if current.get(rel) == text:
                    continue
                current[rel] = text
                out = folder / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text)
            if not any(folder.iterdir()):  # a step with nothing to do: git keeps no empty folder
                (folder / KEEP).touch()


if __name__ == "__main__":
    regenerate()
    print(f"regenerated {EXPECTED}", file=sys.stderr)


def pass_self_tree_with(root: Path, method: str) -> Path:
    """The `method_pass_self` fixture copied to `root`, with `method` (its source, indented as a
    member) put into ModelRunner before `make_backend`; the runner's path."""
    shutil.copytree(TREES / "method_pass_self", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace("    def make_backend(", method + "    def make_backend(", 1))
    return runner
