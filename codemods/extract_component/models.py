"""What a component extraction works with, as real types: what the user asks of the analysis
(`Request`), the owner class as the run began (`Owner`), what the analysis infers (`Inferred`: the
`design.Design` and where the owner builds it), and the run every step reads (`ComponentRun`:
those, the uses of the methods across the checkout, `checkout.callers.Uses`, and where the files
are). A step hands nothing on to the next: each reads the run and the tree the steps before it
left (`core.runner.Tree`). How far a tree has got, each step answers on a `Reading` of it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

import libcst as cst

from codemods.checkout.callers import Uses
from codemods.core.context import Context
from codemods.core.runner import Tree
from codemods.extract_component.design import Design
from codemods.extract_component.spec import ComponentSpec
from pysource.classes import PROPERTY_DECORATORS, classes
from pysource.receivers import Program


@dataclass
class Request:
    class_name: str
    component: str
    target_module: str
    methods: tuple[str, ...]
    attr: str
    pass_owner: Optional[str] = None
    field_names: dict = field(default_factory=dict)  # owner attribute (or chain "a.b") -> field name
    state: tuple[str, ...] = ()
    keep_wrappers: bool = False


@dataclass
class Inferred:
    design: Design
    construct_at: int  # index in `__init__`'s body where `self.init_ATTR()` goes
    removed: list[int]  # indices in `__init__`'s body of the state initialisations it replaces
    readers: dict[str, list[str]]  # forced state -> the staying methods that read it (through the component)
    notes: list[str] = field(default_factory=list)


class Owner:
    """The owner class in its module: methods by name, properties, what its bases define."""

    def __init__(self, path: Path, text: str, tree: ast.Module, class_name: str, module: str, root: Path):
        self.path, self.text, self.tree, self.name, self.module, self.root = path, text, tree, class_name, module, root
        found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name]
        self.node = found[0]
        self.defs: dict[str, list[ast.FunctionDef]] = {}
        for s in self.node.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault(s.name, []).append(s)
        self.lineage = classes(text, class_name, root, module)  # the class, then its bases in the tree
        self.methods: set[str] = set()
        self.properties: set[str] = set()
        self.class_attrs: set[str] = set()
        for cls, _ in self.lineage:
            for s in cls.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    decorators = {ast.unparse(d) for d in s.decorator_list}
                    if decorators & PROPERTY_DECORATORS or any(d.endswith(".setter") for d in decorators):
                        self.properties.add(s.name)
                    else:
                        self.methods.add(s.name)
                elif isinstance(s, (ast.Assign, ast.AnnAssign)):
                    for t in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                        if isinstance(t, ast.Name):
                            self.class_attrs.add(t.id)
        self.init = (self.defs.get("__init__") or [None])[0]

    def method(self, name: str) -> ast.FunctionDef:
        return self.defs[name][0]

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class Reading:
    """A tree as the steps' `done` read it: the owner class and the component class (None: its
    module does not define it), by `ast`."""

    owner: ast.ClassDef
    component: Optional[ast.ClassDef]
    spec: ComponentSpec

    @property
    def defs(self) -> dict[str, ast.FunctionDef]:
        """The owner's methods by name."""
        return {s.name: s for s in self.owner.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


@dataclass(frozen=True)
class ComponentRun:
    """One component extraction, as its analysis found it before any step."""

    ctx: Context
    spec: ComponentSpec
    done: int  # the steps the tree had when the run began
    source: Path  # the owner's module
    target: Path  # the component's module
    source_module: str  # dotted
    program: Program
    owner: Owner  # the owner class as the run began
    design: Design  # inferred (a run from step 1) or read back from the tree
    inferred: Optional[Inferred]  # when step 1 runs
    uses: Uses  # of the methods, as the tree was when the run began
    originals: Mapping[Path, Optional[str]]  # the owner's and the component's modules as the run began
    render: Callable[[cst.Module], str]

    @property
    def original(self) -> str:
        return self.originals[self.source]

    def text_of(self, tree: Tree, path: Path) -> Optional[str]:
        """`path`'s text as the steps so far left it (None: absent)."""
        if path in tree.current:
            return tree.current[path]
        return self.ctx.read(path) if path.exists() else None
