"""Real sglang releases from PyPI, downloaded once and unpacked into a cache.

Nothing of sglang is committed to this repository: tests and benchmarks call
`release_root(version)` and get a folder holding the unpacked `sglang` package.
The cache lives in $SGLANG_REFACTOR_CACHE, else ~/.cache/sglang-refactor.

    python -m tests.releases 0.5.15.post1     # prints the unpacked folder
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# Releases whose model_runner.py carries ModelRunner.configure_kv_cache_dtype.
WITH_METHOD = ("0.5.14", "0.5.15.post1")


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "sglang-refactor"
    return Path(os.environ.get("SGLANG_REFACTOR_CACHE", default)) / "releases"


def release_root(version: str) -> Path:
    """The folder holding release `version`'s unpacked `sglang` package (read-only use)."""
    root = cache_dir() / version
    if (root / "sglang").is_dir():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent) as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--disable-pip-version-check", f"sglang=={version}", "-d", tmp],
            check=True,
        )
        (wheel,) = Path(tmp).glob("sglang-*.whl")
        unpacked = Path(tmp) / "unpacked"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(unpacked, [n for n in zf.namelist() if n.startswith("sglang/")])
        try:
            unpacked.rename(root)
        except OSError:  # another process unpacked it first
            if not (root / "sglang").is_dir():
                raise
    return root


def copy_release(version: str, dest: Path) -> Path:
    """A private, writable copy of release `version` under `dest`."""
    shutil.copytree(release_root(version), dest, dirs_exist_ok=True)
    return dest


_VERSION = re.compile(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.releases",
        description="Download sglang releases from PyPI (once, into the cache) and print "
                    "the folder holding each unpacked `sglang` package.",
        epilog=f"cache: {cache_dir()} ($SGLANG_REFACTOR_CACHE overrides)",
    )
    parser.add_argument("versions", nargs="*", metavar="VERSION",
                        help=f"e.g. 0.5.16 (default: {' '.join(WITH_METHOD)})")
    args = parser.parse_args(argv)
    for v in args.versions:
        if not _VERSION.fullmatch(v):
            parser.error(f"{v!r} is not a release version (e.g. 0.5.15.post1)")
    for v in args.versions or WITH_METHOD:
        try:
            print(release_root(v), flush=True)
        except subprocess.CalledProcessError:
            print(f"error: sglang=={v} could not be downloaded (pip said why above)",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
