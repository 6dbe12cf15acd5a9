"""The package folders a run creates on the way to its target module, and the near misses it refuses.

A target module in folders that do not exist yet gets them, each with an empty `__init__.py`
(`new_packages`). A new folder named within a typo of an existing sibling (`model_executer` beside
`model_executor`: difflib's close match, a character or two apart, not only in digits as
`triton_3_5_1` and `triton_3_3_1` are) is refused before anything is planned
(`check_new_packages`), with the name it probably meant; one really meant is made first (with
its `__init__.py`), and is then no new folder.
Every new package is named in the run's output (`described`).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from codemods.core.errors import BadInput

NEAR_MISS = 0.85  # difflib ratio from which a new name is taken for a typo of its sibling's
TYPO_EDITS = 2  # ... if also at most this many characters apart (`runner_components` is no typo of
                # `model_runner_components`)


def new_packages(root: Path, target: Path) -> list[Path]:
    """`__init__.py` files for the folders between `root` and `target` that do not exist yet, outermost first."""
    missing, folder = [], target.parent
    while folder != root and not folder.exists():
        missing.append(folder / "__init__.py")
        folder = folder.parent
    return missing[::-1]


def _siblings(folder: Path) -> list[str]:
    """The Python packages (folders holding .py files) and modules in `folder`."""
    names = []
    for p in folder.iterdir():
        if p.is_dir() and not p.name.startswith((".", "__")) and any(p.glob("*.py")):
            names.append(p.name)
        elif p.is_file() and p.suffix == ".py" and p.stem != "__init__":
            names.append(p.stem)
    return sorted(names)


def _edits(a: str, b: str) -> int:
    """How many characters differ between `a` and `b` (each replaced, inserted or deleted run counted
    by its longer side)."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def near_miss(name: str, siblings: list[str]) -> list[str]:
    """The siblings `name` looks like a typo of (closest first): close (difflib) and at most
    `TYPO_EDITS` characters apart, not only in digits."""
    digits_only = re.sub(r"\d", "", name)
    return [s for s in difflib.get_close_matches(name, siblings, n=3, cutoff=NEAR_MISS)
            if s != name and _edits(name, s) <= TYPO_EDITS and re.sub(r"\d", "", s) != digits_only]


def check_new_packages(root: Path, target: Path, dotted: str, what: str) -> None:
    """`BadInput` when the outermost folder the run would create for `target` (module `dotted`, the
    `what` argument: TARGET.MODULE) is a near miss of an existing sibling."""
    inits = new_packages(root, target)
    if not inits:
        return
    first = inits[0].parent
    close = near_miss(first.name, _siblings(first.parent))
    if not close:
        return
    parts = dotted.split(".")
    at = len(first.relative_to(root).parts) - 1
    meant = " or ".join(".".join([*parts[:at], c, *parts[at + 1:]]) for c in close)
    raise BadInput(f"{what} {dotted} would create a new package {first.name} beside {', '.join(close)}: did you mean "
                   f"{meant}? (if {first.name} is meant, create its folder with an __init__.py first)", first)


def described(root: Path, inits: list[Path]) -> list[str]:
    """One status line per new package folder."""
    return [f"new package {init.parent.relative_to(root).as_posix().replace('/', '.')} "
            f"({init.relative_to(root).as_posix()}, empty)" for init in inits]
