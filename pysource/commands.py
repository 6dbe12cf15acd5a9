"""What `python -m codemods.KIND` and `python -m equivalence` share before their `main` runs: a
Ctrl-C while the command is still importing (LibCST and black take about 1.5 s, the harness's
modules less) ends it with one line and exit 130, as a Ctrl-C during the run does, not with a
traceback. Imports nothing of ours."""

from __future__ import annotations

import os
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command Ctrl-C stopped


def _command_module(argv: list[str]) -> str:
    """The module `python ... -m MODULE ...` runs, else ""."""
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            return next(args, "")
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-X", "-W"):  # an option with its value apart
            next(args, None)
        elif not arg.startswith("-") or arg.startswith("-c"):  # a script, or code: no module
            return ""
    return ""


def one_line_on_interrupt(package: str, line: str) -> None:
    """Called by `package`'s `__init__`, which `python -m package.KIND` imports first: when this
    process runs one of the package's commands, a KeyboardInterrupt nothing caught prints `line` on
    stderr and exits 130. Any other process (pytest, a library user) keeps Python's own handling."""
    if _command_module(getattr(sys, "orig_argv", [])).split(".")[0] != package:
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        if not issubclass(kind, KeyboardInterrupt):
            return previous(kind, value, tb)
        try:
            sys.stdout.flush()
        except Exception:  # a closed pipe: nothing more to say there
            pass
        print(line, file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)  # without it Python kills itself with SIGINT once the hook returns

    sys.excepthook = hook
