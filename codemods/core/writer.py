"""Put a plan on disk all-or-nothing.

A journal (written atomically: temp file + rename) says what is in flight. First it says
"writing", with the temp files and new folders about to be made; then every new text is
written to a temp file next to its target; then the journal says "renaming"; then the
`os.replace` calls run (new files first, so that a crash between them leaves an orphan
module nothing imports); then the journal goes. Any exception restores the originals.
A run killed part way leaves the journal, and the next run acts on it (`recover`) before
doing anything else: "writing" is rolled back (temps and new folders removed: the tree is
as before), "renaming" is finished (the tree is as after).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from codemods.core.errors import BadInput

JOURNAL = ".extract-refactor.journal"
TMP_SUFFIX = ".refactor-tmp"
CRASH_HOOK = "CODEMODS_CRASH_AFTER_RENAMES"  # tests: os._exit after this many renames


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}{TMP_SUFFIX}")


def recover(root: Path) -> Optional[str]:
    """Finish an interrupted write under `root`; returns a message when there was one."""
    journal = root / JOURNAL
    _tmp(journal).unlink(missing_ok=True)  # a journal update cut short: the old one holds
    if not journal.exists():
        return None
    record = json.loads(journal.read_text())
    if isinstance(record, list):  # journals of earlier versions: renaming
        record = {"state": "renaming", "pairs": record, "dirs": []}
    pairs = record["pairs"]
    if record["state"] == "writing":
        for tmp, _ in pairs:
            Path(tmp).unlink(missing_ok=True)
        for d in reversed(record["dirs"]):
            try:
                Path(d).rmdir()
            except OSError:
                pass
        journal.unlink()
        return f"rolled back an interrupted run ({len(pairs)} file(s) not written)"
    for tmp, target in pairs:
        if Path(tmp).exists():
            os.replace(tmp, target)
    journal.unlink()
    return f"completed an interrupted run ({len(pairs)} file(s))"


def _write_journal(journal: Path, state: str, pairs: list, dirs: list) -> None:
    tmp = _tmp(journal)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps({"state": state, "pairs": pairs, "dirs": dirs}))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, journal)


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
    pairs = [[str(_tmp(p)), str(p)] for p in order]
    new_dirs: list[Path] = []
    for path in order:
        d = path.parent
        missing = []
        while not d.exists() and d not in new_dirs:
            missing.append(d)
            d = d.parent
        new_dirs += reversed(missing)
    try:
        _write_journal(journal, "writing", pairs, [str(d) for d in new_dirs])
        for d in new_dirs:  # parents first
            d.mkdir()
            made_dirs.append(d)
        for path in order:
            tmp = _tmp(path)
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                temps.append(tmp)
                f.write(changes[path])
                f.flush()
                os.fsync(f.fileno())
            if path.exists():
                os.chmod(tmp, path.stat().st_mode & 0o7777)
        _write_journal(journal, "renaming", pairs, [])
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
        _tmp(journal).unlink(missing_ok=True)
        for d in reversed(made_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        raise
