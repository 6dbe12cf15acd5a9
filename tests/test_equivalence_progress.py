"""Progress on stderr when it is a terminal (pairs, configurations, mutants), nothing otherwise."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from equivalence import progress

REPO = Path(__file__).resolve().parent.parent
LONG = [sys.executable, "-m", "equivalence", "--steps", "fixtures/trees/record_call", "--mutants"]
PAIRS = ["original -> step 1", "step 1 -> step 2", "step 2 -> step 3", "step 3 -> step 4",
         "original -> codemod output (steps 1-4 in one run)"]


def read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode()


def test_a_long_run_shows_progress_on_a_terminal_and_nothing_in_a_pipe():
    piped = subprocess.Popen(LONG, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    master, slave = pty.openpty()
    on_terminal = subprocess.Popen(LONG, cwd=REPO, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    err = read_all(master)
    os.close(master)
    out = on_terminal.stdout.read()
    assert on_terminal.wait() == 0
    lines = [piece.strip() for piece in err.split("\r")]
    for n, label in enumerate(PAIRS, 1):
        assert any(line.startswith(f"pair {n}/5: {label}") for line in lines), (n, lines)
    # the count is the run's own: hypothesis draws biased by constants of the loaded local modules
    configs = re.search(r"equivalent over (\d+) configs", out).group(1)
    assert any(" · configurations " in line and line.endswith(f"/{configs}") for line in lines)
    # every mutant and control the report counts is shown, the last one as N/N
    killed, controls = re.search(r"mutants: \d+/(\d+) killed\ncontrols: \d+/(\d+) survived", out).groups()
    total = int(killed) + int(controls)
    assert total > int(killed) > 0
    last = [line for line in lines if line.startswith("mutant ")][-1]
    assert re.fullmatch(rf"mutant {total}/{total}: [\w@-]+", last), last
    assert lines[-1] == ""  # the line is blanked at the end
    assert "\r" not in out
    piped_out, piped_err = piped.communicate()
    assert piped.returncode == 0 and piped_err == "" and piped_out == out


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def on_terminal(monkeypatch, interval: float) -> Terminal:
    """stderr a terminal (set in the test's body: pytest swaps sys.stderr after fixtures run)."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "INTERVAL", interval)
    return stream


def test_nested_loops_share_one_line_and_leave_it_blank(monkeypatch):
    terminal = on_terminal(monkeypatch, interval=0)
    for mutant in progress.each("mutant", ["flip", "drop"], str.upper):
        for _ in progress.each("configurations", range(3)):
            pass
    shown = [piece.strip() for piece in terminal.getvalue().split("\r")]
    assert "mutant 1/2: FLIP" in shown and "mutant 2/2: DROP · configurations 3/3" in shown
    assert shown[-1] == "" and all(len(piece) <= 79 for piece in terminal.getvalue().split("\r"))


def test_a_counter_is_redrawn_at_most_every_interval(monkeypatch):
    terminal = on_terminal(monkeypatch, interval=3600)
    for _ in progress.each("configurations", range(10_000)):
        pass
    assert terminal.getvalue().count("\r") <= 3  # one draw at most, then the blank line: not one per item


def test_nothing_is_printed_or_wrapped_when_stderr_is_not_a_terminal(capsys):
    items = ["a", "b"]
    assert progress.each("pair", items, str) is items
    with progress.task("commit", 3) as t:
        t.update(1, "subject")
    assert capsys.readouterr().err == ""
