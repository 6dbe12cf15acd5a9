"""The state of one extraction in progress, which each step receives and hands on to the next.

The source module is parsed once; each step changes it in memory (`module`) and the runner
renders its text after the step (`text`, reusing the original text of every node the step kept:
`core.render`). Every file's text as the steps so far left it is in `current`; what step 1 found
(the method's shape), where the method sat (step 2) and which class members hold its call sites
are handed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import libcst as cst

from codemods.core.context import Context
from codemods.core.plan import Plan
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.steps_done import Status


@dataclass
class ExtractionRun:
    ctx: Context
    recipe: Recipe
    plan: Plan
    status: Status  # the steps the tree had when the run began
    source: Path  # the class's module
    target: Path  # the target module
    module: cst.Module  # the source module as the steps so far left it
    text: str  # its text
    render: Callable[[cst.Module], str]
    current: dict[Path, Optional[str]] = field(default_factory=dict)  # every file's text so far (None: absent)
    changed: dict[Path, str] = field(default_factory=dict)  # files the running step changed, but the source
    static: Optional[object] = None  # step 1's `Static`: the method's shape
    hole: Optional[tuple] = None  # step 2: where the method sat in the class body
    members: Optional[dict] = None  # class members holding call sites (`call_sites.holders`)
    wrapper_placed: str = ""  # step 3: where the wrapper went ("where the method was", ...)
    positional_names: list[str] = field(default_factory=list)  # --positional: the parameters calls pass by position
    positional_calls: int = 0  # --positional: the calls in the class step 3 changed so
    outside: Optional[object] = None  # --no-wrapper: the calls outside the class step 3 rewrites (`OutsideCalls`)
    outside_rewritten: int = 0  # how many of them step 3 rewrote
    dropped_target_import: bool = False  # --no-wrapper: step 3 dropped the import nothing calls through
    new_packages: list[Path] = field(default_factory=list)  # step 2: the __init__.py of each new package folder

    @property
    def original(self) -> str:
        """The source module as the user's file holds it."""
        return self.plan.originals[self.source]

    @property
    def original_target(self) -> Optional[str]:
        return self.plan.originals[self.target]

    def adds(self, path: Path, text: str, old: Optional[str] = None) -> None:
        """The running step writes `text` to `path`, which held `old` before the run (None: new)."""
        self.plan.originals[path] = old
        self.changed[path] = text
