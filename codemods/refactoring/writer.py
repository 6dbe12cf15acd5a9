"""Put a plan on disk all-or-nothing.

Every new text is first written to a temp file next to its target; then a journal
listing the pending renames is written; then the `os.replace` calls run (new files
first, so that a crash between them leaves an orphan module nothing imports); then
the journal goes. Any exception restores the originals. A run killed between renames
leaves the journal: the next run finishes it (`recover`) before doing anything else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from codemods.refactoring.errors import BadInput

JOURNAL = ".extract-refactor.journal"
TMP_SUFFIX = ".refactor-tmp"
CRASH_HOOK = "CODEMODS_CRASH_AFTER_RENAMES"  # tests: os._exit after this many renames


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}{TMP_SUFFIX}")


def recover(root: Path) -> Optional[str]:
    """Finish an interrupted write under `root`; returns a message when there was one."""
    journal = root / JOURNAL
    if not journal.exists():
        return None
    pairs = json.loads(journal.read_text())
    for tmp, target in pairs:
        if Path(tmp).exists():
            os.replace(tmp, target)
    journal.unlink()
    return f"completed an interrupted run ({len(pairs)} file(s))"


def preflight(changes: dict[Path, str]) -> None:
    for path in changes:
        folder = path.parent
        probe = folder
        while not probe.exists():
            probe = probe.parent
        if not os.access(probe, os.W_OK):
            raise BadInput("cannot write here (read-only folder)", probe)
        if path.exists() and not os.access(path, os.W_OK):
            raise BadInput("cannot write the file (read-only)", path)


def write_files(root: Path, changes: dict[Path, str], originals: dict[Path, Optional[str]]) -> None:
    preflight(changes)
    order = sorted(changes, key=lambda p: (originals.get(p) is not None, str(p)))
    made_dirs: list[Path] = []
    temps: list[Path] = []
    done: list[Path] = []
    journal = root / JOURNAL
    crash_after = int(os.environ.get(CRASH_HOOK, "0") or 0)
    try:
        for path in order:
            missing = []
            d = path.parent
            while not d.exists():
                missing.append(d)
                d = d.parent
            for d in reversed(missing):
                d.mkdir()
                made_dirs.append(d)
            tmp = _tmp(path)
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                temps.append(tmp)
                f.write(changes[path])
                f.flush()
                os.fsync(f.fileno())
            if path.exists():
                os.chmod(tmp, path.stat().st_mode & 0o7777)
        journal.write_text(json.dumps([[str(_tmp(p)), str(p)] for p in order]))
        for path in order:
            os.replace(_tmp(path), path)
            done.append(path)
            if crash_after and len(done) == crash_after:
                os._exit(137)
        journal.unlink()
    except BaseException:
        for path in done:
            old = originals.get(path)
            if old is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(old, encoding="utf-8")
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        journal.unlink(missing_ok=True)
        for d in reversed(made_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        raise
