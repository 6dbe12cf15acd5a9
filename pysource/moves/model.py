"""What the move finder answers with: definitions of one version, and moves between two."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pysource.modules import module_name


@dataclass(frozen=True)
class Definition:
    """A function or method of one version."""

    rel: str  # the file, relative to the folder holding the package
    class_name: str | None  # None: module level
    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef

    @property
    def module(self) -> str:
        return module_name(self.rel)

    @property
    def qualname(self) -> str:
        return f"{self.class_name}.{self.name}" if self.class_name else self.name

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.node.lineno}"


@dataclass(frozen=True)
class Move:
    kind: str  # "function", "function, callers rewritten", "component", "superclass", "other class"
    origin: Definition  # the method, before
    destination: Definition  # where its body is, after
    similarity: float  # 0..1, the body against the old one in the same terms
    wrapper: bool  # the class still has the method, delegating
    attr: str | None = None  # a component's: the attribute of the owner that holds it
    owner: tuple[str, str] | None = None  # (file, class) of the owner after, when not the origin's own
    evidence: str = "similar body"  # what, beside the body, ties the method to its destination
    call_edits: tuple = ()  # call_sites.CallEdit: what changed at its call sites in the class

    @property
    def source(self) -> str:
        return f"{self.origin.class_name}.{self.origin.name}"

    @property
    def target(self) -> str:
        if self.kind == "component" and self.attr:
            return f"{self.owner[1] if self.owner else self.origin.class_name}.{self.attr}.{self.destination.name}"
        return f"{self.destination.module}.{self.destination.qualname}"

    def to_json(self) -> dict:
        out = {"kind": self.kind, "from": self.source, "from_file": self.origin.where,
               "to": self.target, "to_file": self.destination.where,
               "wrapper": self.wrapper, "similarity": round(self.similarity, 2), "evidence": self.evidence}
        if self.owner:
            out["class_now"] = f"{self.owner[1]} ({self.owner[0]})"
        out["call_edits"] = [e.to_json() for e in self.call_edits]
        return out
