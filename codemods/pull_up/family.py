"""BASE and its subclasses in the checkout, with the method resolution order of each.

The subclasses are the classes of the checkout deriving from BASE (`pysource.receivers.classes`:
found among the files whose class statements spell BASE's name in their bases, followed through
imports); the direct ones name BASE among their bases. Each class's linearization is Python's
(C3) over the bases the checkout shows; a class from outside the checkout ends its line, and
what it defines is unknown (`defines` answers None) but for `object` and the few the code knows
define nothing of their own (`abc.ABC`, `typing.Generic`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from codemods.core.errors import Location
from pysource.checkout import Checkout
from pysource.receivers.classes import Classes

EMPTY_OUTSIDE = {"abc.ABC", "typing.Generic", "typing_extensions.Generic", "builtins.object", "object"}


@dataclass(frozen=True)
class Cls:
    """A class of the checkout: its qualified name, its file (absolute) and statement."""

    qualname: str
    path: Path
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def where(self) -> str:
        return f"{self.path}:{self.node.lineno}"


def body_bindings(cls: ast.ClassDef) -> dict[str, list[ast.stmt]]:
    """What a class body binds (defs, classes, assignments, imports; inside if/try/with too): name ->
    the statements binding it."""
    out: dict[str, list[ast.stmt]] = {}

    def walk(stmts):
        for s in stmts:
            names: list[str] = []
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [s.name]
            elif isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                if isinstance(s, ast.AnnAssign) and s.value is None:
                    targets = []
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            elif isinstance(s, (ast.Import, ast.ImportFrom)):
                names = [(a.asname or a.name).split(".")[0] for a in s.names]
            for n in names:
                out.setdefault(n, []).append(s)
            for field in ("body", "orelse", "finalbody"):
                if isinstance(s, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                    walk(getattr(s, field, []))
            for h in getattr(s, "handlers", []):
                walk(h.body)

    walk(cls.body)
    return out


class Family:
    """BASE, its subclasses in the checkout, and the linearization of each."""

    def __init__(self, checkout: Checkout, base_path: Path, base_node: ast.ClassDef, base_module: str):
        self.checkout = checkout
        self.classes = Classes(checkout)
        self.base = Cls(f"{base_module}.{base_node.name}", Path(base_path), base_node)
        self.problems: list[Location] = []
        self._mro: dict[str, Optional[list[str]]] = {}
        subs = []
        for q in self.classes.subclasses(self.base.qualname):
            found = self.classes.class_def(q)
            if found is None:
                continue
            f, node = found
            subs.append(Cls(q, Path(checkout.path(f.path)), node))
        self.subclasses = tuple(sorted(subs, key=lambda c: (str(c.path), c.node.lineno)))
        self.direct = tuple(c for c in self.subclasses if self.base.qualname in (self.classes.bases(c.qualname) or ()))
        self.by_name = {c.qualname: c for c in (self.base, *self.subclasses)}
        for c in (self.base, *self.subclasses):
            self.mro(c.qualname)

    def mro(self, qualname: str) -> Optional[list[str]]:
        """The class's linearization (C3) as the checkout shows its bases; None, with a problem noted,
        when a base cannot be followed or the bases admit no order."""
        if qualname in self._mro:
            return self._mro[qualname]
        self._mro[qualname] = None
        if self.classes.outside(qualname):
            self._mro[qualname] = [qualname]
            return self._mro[qualname]
        bases = self.classes.bases(qualname)
        found = self.classes.class_def(qualname)
        if bases is None or found is None:
            where = self._where(qualname)
            self.problems.append(Location(where[0], where[1], f"the bases of {qualname.rpartition('.')[2]} cannot "
                                                              f"be followed through the checkout: its method "
                                                              f"resolution order is unknown"))
            return None
        lines = [self.mro(b) for b in bases]
        if any(line is None for line in lines):
            return None
        merged = _c3([list(line) for line in lines] + [list(bases)])
        if merged is None:
            where = self._where(qualname)
            self.problems.append(Location(where[0], where[1], f"the bases of {qualname.rpartition('.')[2]} admit "
                                                              f"no method resolution order"))
            return None
        self._mro[qualname] = [qualname, *merged]
        return self._mro[qualname]

    def _where(self, qualname: str) -> tuple[Path, int]:
        found = self.classes.class_def(qualname)
        if found is None:
            return self.base.path, self.base.node.lineno
        return Path(self.checkout.path(found[0].path)), found[1].lineno

    def node(self, qualname: str) -> Optional[ast.ClassDef]:
        found = self.classes.class_def(qualname)
        return None if found is None else found[1]

    def defines(self, qualname: str, name: str) -> Optional[bool]:
        """Whether the class's body binds `name`; None when it is from outside the checkout (unknown)."""
        if qualname in EMPTY_OUTSIDE:
            return False
        if self.classes.outside(qualname):
            return None
        node = self.node(qualname)
        return None if node is None else name in body_bindings(node)

    def between(self, line: list[str], low: str, high: str) -> list[str]:
        """The classes strictly between `low` and `high` in a linearization (all after `low` when
        `high` is not in it)."""
        i = line.index(low)
        j = line.index(high) if high in line else len(line)
        return line[i + 1:j]

    def lines(self) -> dict[str, list[str]]:
        """The linearization of BASE and of every subclass (those that could be computed)."""
        return {c.qualname: self._mro[c.qualname] for c in (self.base, *self.subclasses)
                if self._mro.get(c.qualname) is not None}


def _c3(seqs: list[list[str]]) -> Optional[list[str]]:
    out: list[str] = []
    seqs = [s for s in seqs if s]
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            return None
        out.append(head)
        seqs = [[x for x in s if x != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out
