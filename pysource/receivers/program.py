"""The program: the checkout's files and classes (`Classes`), and the types of its expressions.

Each resolver module is a set of functions whose first argument is the program; the program
offers them as its methods. A resolver reaches what another one resolves by importing it, but an
expression's type always through `program.type_of` (whose resolvers, in turn, import theirs):
the recursion goes through one method, and no module imports back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pysource.checkout import Checkout
from pysource.receivers import annotations, attributes, contract, expressions, writes
from pysource.receivers.classes import Classes


@dataclass
class Memo:
    """What a program has resolved, and what it is resolving (a lookup that comes back to itself
    contributes nothing there; what was computed inside such a cycle is not kept)."""

    expressions: set = field(default_factory=set)  # (id(file), id(node)) being typed
    looking_up: list = field(default_factory=list)  # (class, attribute) being looked up, outermost first
    tainted: set = field(default_factory=set)  # lookups that met a cycle: not kept
    attributes: dict = field(default_factory=dict)  # (class, attribute): its types
    writes: dict = field(default_factory=dict)  # id(class node): `writes.self_writes`
    contracts: dict = field(default_factory=dict)  # attribute name: `contract.attribute_contract`
    families: dict = field(default_factory=dict)  # class: `family.family`
    written_outside: dict = field(default_factory=dict)  # (classes, attribute): `family.written_outside`
    places: dict = field(default_factory=dict)  # (owner, class, attribute): `elimination`'s decision on it


class Program(Classes):
    """The checkout's files parsed on demand (once each), its classes followed from file to file,
    and the types of expressions (`pysource.receivers`)."""

    def __init__(self, checkout: Checkout):
        super().__init__(checkout)
        self.memo = Memo()

    type_of = expressions.type_of
    annotation = annotations.annotation
    attribute_type = attributes.attribute_type
    class_attribute_type = attributes.class_attribute_type
    attribute_contract = contract.attribute_contract
    writes_of = writes.writes_of
    self_writes = writes.self_writes

    def over(self, checkout: Checkout) -> "Program":
        """A program over `checkout`, the same files with some texts replaced (`Checkout.overrides`):
        each file whose text is the same keeps its parse and names; what spans files (classes,
        types, subclasses) is found anew."""
        other = Program(checkout)
        other._files = {p: f for p, f in self._files.items() if self._same_text(checkout, p)}
        return other

    def _same_text(self, checkout: Checkout, path: Path) -> bool:
        """Whether `path` reads the same in `checkout` as in this program's (both read the file, or
        both replace it by the same text)."""
        rel = checkout.relative(path, checkout.package_root)
        return self.checkout.overrides.get(rel) == checkout.overrides.get(rel)
