"""Small sglang-shaped checkouts for the checkout-wide analyses, written into a tmp folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pysource.checkout import Checkout

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checkouts"
OLD = "sglang.srt.model_executor.model_runner"
NEW = "sglang.srt.mem_cache.kv_cache_dtype"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def make_checkout(root: Path, files: dict[str, str]) -> Checkout:
    """A checkout at `root`: python/sglang with the runner's package, plus `files`."""
    base = {"python/sglang/__init__.py": "", "python/sglang/srt/__init__.py": "",
            "python/sglang/srt/model_executor/__init__.py": "",
            "python/sglang/srt/model_executor/model_runner.py": "class ModelRunner:\n    pass\n"}
    write_tree(root, {**base, **files})
    return Checkout.find(root, root / "python")


def copy_fixture(name: str, dest: Path) -> Path:
    shutil.copytree(FIXTURES / name, dest, dirs_exist_ok=True)
    return dest


def git_init(root: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixture")
