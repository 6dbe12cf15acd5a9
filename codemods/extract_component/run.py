"""The state of one component extraction in progress, which each step receives.

Every file's text as the steps so far left it is in `current`; the owner's module is also kept
parsed (`module`) and rendered after each step reusing the text of every node the step kept
(`core.render`). The design (`design.Design`) is inferred before step 1, or read back from the
tree by a run that starts later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import libcst as cst

from codemods.core.context import Context
from codemods.core.plan import Plan
from codemods.extract_component.design import Design
from codemods.extract_component.spec import ComponentSpec
from pysource.receivers import Program


@dataclass
class ComponentRun:
    ctx: Context
    spec: ComponentSpec
    plan: Plan
    done: int  # the steps the tree had when the run began
    source: Path  # the owner's module
    target: Path  # the component's module
    source_module: str  # dotted
    module: cst.Module  # the owner's module as the steps so far left it
    text: str
    render: Callable[[cst.Module], str]
    program: Program
    current: dict[Path, Optional[str]] = field(default_factory=dict)
    changed: dict[Path, str] = field(default_factory=dict)  # files the running step changed, but the owner's
    design: Optional[Design] = None
    inferred: Optional[object] = None  # analysis.Inferred, when step 1 runs
    notes: list[str] = field(default_factory=list)
    owner: Optional[object] = None  # analysis.Owner: the owner class as the run began
    caller_count: tuple = (0, 0, 0, [])
    uses: Optional[object] = None  # checkout.callers.Uses of the methods, as the tree was when the run began

    @property
    def original(self) -> str:
        return self.plan.originals[self.source]

    def adds(self, path: Path, text: str, old: Optional[str] = None) -> None:
        if path not in self.plan.originals:
            self.plan.originals[path] = old
        self.changed[path] = text

    def text_of(self, path: Path) -> Optional[str]:
        if path in self.current:
            return self.current[path]
        return self.ctx.read(path) if path.exists() else None
