"""What every codemod command prints, the way pyupgrade, `libcst.tool codemod` and `ruff --diff` do.

- status lines ("found ...", "step 1: ...", "wrote ...") go to stderr (`status`);
- `--dry-run` prints the unified diff alone on stdout (`print_diff`), its paths relative to
  the git work tree holding PATH (else to PATH), so that `... --dry-run | git apply`, run
  there, writes exactly what a real run would;
- errors print one line on stderr and exit with their code, a closed stdout (`| head`)
  stops quietly with 141, like a command killed by SIGPIPE, and a Ctrl-C says in one line what
  was written (nothing, but for a `--commit` run's commits) and exits 130 (`run_command`).

A command's `main` reads::

    args = build_parser().parse_args(argv)
    return run_command(lambda: _run(args))     # _run calls status(...) and print_diff(...)
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional

from codemods.core.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_REFUSED, CodemodError
from pysource.checkout import git_work_tree

EXIT_BROKEN_PIPE = 141
NO_NEWLINE = "\\ No newline at end of file\n"


def status(message: str) -> None:
    """One status line, on stderr (stdout carries only what a pipe wants: the diff)."""
    print(message, file=sys.stderr, flush=True)


def run_command(run: Callable[[], int]) -> int:
    """Run a command's body and return its exit code: a `CodemodError` prints its message
    (`error: ` for bad input and refusals), an `OSError` outside a write prints `error:` and
    exits 2, a stdout whose reader went away exits 141 without a word, and a Ctrl-C exits 130
    saying that nothing was written (`command` says what was, when something was)."""
    try:
        code = run()
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except KeyboardInterrupt:  # planning, or a write, which restores what it wrote
        print("interrupted; nothing was written", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return EXIT_BROKEN_PIPE
    except CodemodError as exc:
        print(f"error: {exc}" if exc.exit_code in (EXIT_BAD_INPUT, EXIT_REFUSED) else str(exc), file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def diff_base(path: Path, files: Iterable[Path]) -> Path:
    """The folder the diff's paths are relative to: the git work tree holding PATH, else PATH;
    if a changed file lies outside it (a checkout's test/ with PATH = its python/, outside
    git), the nearest folder holding PATH and every file."""
    base = git_work_tree(path) or Path(path).resolve()
    files = [Path(f).resolve().parent for f in files]
    if all(f.is_relative_to(base) for f in files):
        return base
    return Path(os.path.commonpath([base, *files]))


def _lines(text: str) -> list[str]:
    """`text` split after each "\\n" only (str.splitlines also splits on \\f, \\x1c, ...)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def file_diff(rel: str, old: Optional[str], new: str) -> Iterator[str]:
    """A git-style unified diff of one file (`old` None: the file is new), as `git diff`
    prints it: an empty new file still gets its header, and a last line without a newline
    is marked `\\ No newline at end of file`."""
    if old == new:
        return
    yield f"diff --git a/{rel} b/{rel}\n"
    if old is None:
        yield "new file mode 100644\n"
        if not new:
            return
    hunks = difflib.unified_diff(_lines(old or ""), _lines(new), "/dev/null" if old is None else f"a/{rel}", f"b/{rel}")
    for line in hunks:
        yield line if line.endswith("\n") else line + "\n" + NO_NEWLINE


def render_diff(changes: Mapping[Path, str], originals: Mapping[Path, Optional[str]], base: Path) -> Iterator[str]:
    """The diff of every changed file (absolute path -> new text; `originals`: old text, None
    for a new file), paths relative to `base`."""
    for path, new in changes.items():
        rel = Path(path).resolve().parent.relative_to(base) / Path(path).name
        yield from file_diff(rel.as_posix(), originals.get(path), new)


def print_diff(path: Path, changes: Mapping[Path, str], originals: Mapping[Path, Optional[str]]) -> None:
    """`--dry-run`'s output: the diff alone on stdout, `git apply`-able from the git work tree
    holding `path` (the PATH the user typed), else from `path` itself."""
    sys.stdout.writelines(render_diff(changes, originals, diff_base(path, changes)))
