"""How each `self.` use in an expression is rewritten: a parameter, a result local, or a refusal.

`UseVisitor` walks one expression (or statement part) in the state `flow.Analysis` has reached
there. With a recipe that infers (`extract_method`), a first-level `self.X` becomes parameter
`X` (named by `--rename`), a read of a result attribute reads its local (and, where the local
is not yet assigned on every path, also makes it a parameter, the local starting from it). A
strict recipe (the #31147 preset) accepts only its mapped reads and its result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import libcst as cst
import libcst.matchers as m

from codemods.refactoring.cstutil import dotted

if TYPE_CHECKING:
    from codemods.refactoring.flow import Analysis, State


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


class UseVisitor(cst.CSTVisitor):
    def __init__(self, analysis: "Analysis", state: "State"):
        self.a = analysis
        self.state = state

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        if "self" in {n.value for n in m.findall(node, m.Name())}:
            raise self.a.refuse(node, "lambda captures self")
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        d = dotted(node)
        if d and d in self.a.mapped:
            return self._map(node, d)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        d = dotted(node)
        if self.a.strict:
            return self._strict(node, d)
        if d is not None and d in self.a.mapped:
            return self._map(node, d)
        if m.matches(node.value, m.Name("self")):
            self.a.first_level(node, self.state)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        if node.value == "self":
            why = ("self used other than through a mapped attribute" if self.a.strict else
                   "self used other than through an attribute (passed along, getattr(self, ...), ...): "
                   "pass --pass-self NAME to give the function the instance whole")
            raise self.a.refuse(node, why)
        if node.value == "super":
            raise self.a.refuse(node, "super() needs the class: the function would have none")
        return False

    def _strict(self, node: cst.Attribute, d: Optional[str]) -> bool:
        """A recipe that maps every `self.` use (#31147): the mapped chains, the result, the record."""
        if not d or not d.startswith("self."):
            return True
        a, rec = self.a, self.a.recipe.record
        if d in a.result_locals:
            local = a.result_locals[d]
            if local not in self.state[0]:
                raise a.refuse(node, f"read of {d} where it is not assigned on every path")
            a.out.exprs[node] = cst.Name(local)
            return False
        if rec is not None and d == rec.attribute and rec.local in self.state[1]:
            raise a.refuse(node, f"read back of {d} after a possible write to it")
        if d in a.mapped:
            return self._map(node, d)
        parts = d.split(".")
        prefixes = {".".join(parts[:i]) for i in range(2, len(parts))}
        if prefixes & (set(a.mapped) | set(a.result_locals)):
            return True
        raise a.refuse(node, f"read of {d}, which the recipe does not map to a parameter")

    def _map(self, node: cst.CSTNode, d: str) -> bool:
        self.a.out.exprs[node] = cst.parse_expression(self.a.mapped[d].new_text)
        self.a.used_reads.add(d)
        return False
