"""What the analysis of a method body decides: the function's parameters and results, and which
nodes of the body become what (`make_static` applies them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Param:
    """A keyword-only parameter of the static function and what the caller passes for it."""

    name: str
    argument: str  # e.g. "self.tp_size", "self.spec_algorithm.is_dflash()", "self"
    annotation: Optional[str] = None


@dataclass
class Rewrites:
    exprs: dict = field(default_factory=dict)  # original expr node -> new expr
    stmts: dict = field(default_factory=dict)  # original small statement -> new small statement
    params: list[Param] = field(default_factory=list)  # keyword-only, in order
    results: list[str] = field(default_factory=list)  # locals the function returns, in order
    attributes: dict[str, str] = field(default_factory=dict)  # result local -> `self.attr` written back
    record_style: Optional[str] = None  # "attribute" | "method" | None
    returns_value: bool = False  # some `return <value>` (a method without results)
    final: Optional[tuple] = None  # the state at the end of the body
