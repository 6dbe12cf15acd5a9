"""Where a class finds a member it does not define: its bases followed through the checkout's
imports, in Python's method resolution order (C3), read with `ast` alone.

`defining_class` answers the first class of the order whose body defines the member by a `def`
(the class itself excluded), or why it cannot be told: a base the checkout cannot follow, bases
with no order, or a class from outside the checkout (whose members are unknown) before it.
`mro` is the order itself, as qualified names (a class from outside the checkout ends its line).
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pysource.checkout import Checkout
from pysource.modules import module_name
from pysource.receivers.classes import Classes

# classes from outside the checkout known to define no member a subclass could be looking for
EMPTY_OUTSIDE = {"abc.ABC", "typing.Generic", "typing_extensions.Generic", "builtins.object", "object"}


class InheritanceError(Exception):
    """The order cannot be told from the checkout (file:line: why)."""


@dataclass(frozen=True)
class Found:
    """The class defining the member: its qualified name, file (relative to the folder holding the
    package), statement and the member's `def`."""

    qualname: str
    rel: str
    class_node: ast.ClassDef
    member: ast.FunctionDef | ast.AsyncFunctionDef

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def module(self) -> str:
        return self.qualname.rpartition(".")[0]

    def describe(self) -> str:
        """`BASE (module:line)`, the line the member's `def` starts at."""
        return f"{self.name} ({self.module}:{self.member.lineno})"


class Hierarchy:
    """The classes of one tree (a Checkout.at, the folder holding `package`)."""

    def __init__(self, files: Checkout, package: str):
        root = Path(files.package_root).resolve()
        self.files = dataclasses.replace(files, root=root, package_root=root, package=package, _modules=None,
                                         _tops=None)
        self.classes = Classes(self.files)
        self._mro: dict[str, Optional[list[str]]] = {}

    def mro(self, qualname: str, where: str = "") -> list[str]:
        """The class's linearization; InheritanceError when a base cannot be followed or the bases
        admit no order."""
        if qualname in self._mro:
            found = self._mro[qualname]
            if found is None:
                raise InheritanceError(f"{where}: the bases of {qualname} form a cycle")
            return found
        self._mro[qualname] = None
        if self.classes.outside(qualname):
            self._mro[qualname] = [qualname]
            return self._mro[qualname]
        bases = self.classes.bases(qualname)
        if bases is None or self.classes.class_def(qualname) is None:
            raise InheritanceError(f"{where}: the bases of {qualname.rpartition('.')[2]} cannot be followed through "
                                   f"the checkout: where it inherits a member from is unknown")
        lines = [self.mro(b, where) for b in bases]
        merged = _c3([list(line) for line in lines] + [list(bases)])
        if merged is None:
            raise InheritanceError(f"{where}: the bases of {qualname.rpartition('.')[2]} admit no method "
                                   f"resolution order")
        self._mro[qualname] = [qualname, *merged]
        return self._mro[qualname]

    def class_def(self, qualname: str) -> Optional[tuple[str, ast.ClassDef]]:
        found = self.classes.class_def(qualname)
        if found is None:
            return None
        f, node = found
        return self.files.relative(Path(f.path), self.files.package_root), node

    def defining_class(self, rel: str, class_name: str, member: str, where: str = "",
                       after: str | None = None) -> Optional[Found]:
        """The first class after `class_name` (defined at module level in file `rel`) in its order
        whose body defines `member` by a `def`; None when none of the checkout's does and every
        class from outside it is known to define nothing. InheritanceError when the order cannot be
        told, or a class from outside the checkout comes first (it may define the member).
        `after`: a class of the order (qualified) to start after instead (what `super().member`
        written in that class reaches, on an instance of `class_name`)."""
        qualname = f"{module_name(rel)}.{class_name}"
        line = self.mro(qualname, where)
        start = line.index(after) + 1 if after in line else 1
        if after is not None and after not in line:
            raise InheritanceError(f"{where}: {after} is not in the method resolution order of {class_name}")
        for q in line[start:]:
            if self.classes.outside(q):
                if q in EMPTY_OUTSIDE:
                    continue
                raise InheritanceError(f"{where}: {class_name} inherits from {q}, from outside the checkout, before "
                                       f"any class of it defining {member}: what {member} is there is unknown")
            found = self.class_def(q)
            if found is None:
                raise InheritanceError(f"{where}: {q}, a base of {class_name}, is not found in the checkout")
            base_rel, node = found
            defs = [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == member]
            bound_otherwise = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                               and member in _bound_by(s)]
            if bound_otherwise:
                raise InheritanceError(f"{self.files.path(base_rel)}:{bound_otherwise[0].lineno}: {q.rpartition('.')[2]} "
                                       f"binds {member} otherwise than by a def: not a method to check")
            if len(defs) > 1:
                raise InheritanceError(f"{self.files.path(base_rel)}:{defs[1].lineno}: {q.rpartition('.')[2]}.{member} "
                                       f"is defined {len(defs)} times")
            if defs:
                return Found(self.classes.canonical(q), base_rel, node, defs[0])
        return None

    def modules_in_order(self, rel: str, class_name: str, where: str = "") -> list[str]:
        """The files of the checkout defining the classes of `class_name`'s order but itself, the
        deepest first (each once): the order a loader runs them in so that each finds its bases."""
        qualname = f"{module_name(rel)}.{class_name}"
        out: list[str] = []
        for q in reversed(self.mro(qualname, where)[1:]):
            if self.classes.outside(q):
                continue
            found = self.class_def(q)
            if found is not None and found[0] != rel and found[0] not in out:
                out.append(found[0])
        return out


def _bound_by(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Assign):
        return {t.id for target in stmt.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id} if not isinstance(stmt, ast.AnnAssign) or stmt.value is not None else set()
    if isinstance(stmt, ast.ClassDef):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return set()


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
