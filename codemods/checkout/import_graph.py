"""Module-level import edges of the package, and the import cycle new edges would close.

An edge A -> B means that importing A imports B: a module-level import (under `if`, `try` or
`class` too; not inside a function, not under `if TYPE_CHECKING:`). `import a.b.c` is an edge
to `a`, `a.b` and `a.b.c`; `from pkg import name` to `pkg` (and its parents) and, when
`pkg/name.py` or `pkg/name/__init__.py` exists, to `pkg.name`. Only the package's own modules
are nodes.

Edges are read lazily, only from modules a search reaches, first by a regular expression over
the file's bytes (an over-approximation: an import in a docstring counts), then, for every
module on a path the search returns, exactly by `ast`; a path is returned only once all its
edges are confirmed, so the result is exact and usually costs one `ast` parse per module on it.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from typing import Iterable, Iterator, Optional

from pysource import parsing
from pysource.checkout import Checkout
from pysource.modules import absolute_module

IMPORT = re.compile(rb"^([ \t]*)(?:from[ \t]+([.\w]+)[ \t]+import[ \t]*(\([^)]*\)|(?:[^\n;#\\]|\\\n)*)"
                    rb"|import[ \t]+((?:[^\n;#\\]|\\\n)*))", re.M)
FUNCTION = re.compile(rb"(?:async[ \t]+)?def\b")
TYPE_CHECKING = re.compile(rb"if[ \t]+(?:typing\.)?TYPE_CHECKING[ \t]*:")

Edge = tuple[str, str]


class ImportGraph:
    def __init__(self, checkout: Checkout):
        self.checkout = checkout
        self.modules = checkout.modules()
        self._rough: dict[str, set[str]] = {}
        self._exact: dict[str, set[str]] = {}

    def cycle_closed_by(self, new_edges: Iterable[Edge]) -> Optional[list[str]]:
        """The import cycle (module names, first = last) that adding `new_edges` (importer,
        imported module) would close, or None; it starts at the importer of the first new edge
        (in the caller's order) that closes one. A cycle through modules that already import each
        other (one strongly connected component before) is not new, so it does not count."""
        new = list(dict.fromkeys((a, h) for a, b in new_edges for h in self.heads(b) if h != a))
        for a, b in new:  # in the caller's order
            back = self.path(b, a, new)
            if back is None or b in self.edges(a) or (self.path(a, b) and self.path(b, a)):
                continue  # no cycle, or an edge that is there already, or modules already in one cycle
            return [a, *back]
        return None

    def heads(self, module: str, names: Iterable[str] = ()) -> list[str]:
        """What `import module` (or `from module import names`) imports: the module, its
        parent packages and the names that are submodules."""
        parts = module.split(".")
        out = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
        return out + [f"{module}.{n}" for n in names if f"{module}.{n}" in self.modules]

    def edges(self, module: str) -> set[str]:
        """The module-level imports of `module`, exactly (`ast`)."""
        if module not in self._exact:
            self._exact[module] = self._read_exact(module)
        return self._exact[module]

    def path(self, start: str, goal: str, extra: Iterable[Edge] = ()) -> Optional[list[str]]:
        """A shortest import path start -> ... -> goal (with `extra` edges added), or None."""
        extra = set(extra)
        while True:
            found = self._search(start, goal, extra)
            if found is None:
                return None
            wrong = [(u, v) for u, v in zip(found, found[1:]) if (u, v) not in extra and v not in self.edges(u)]
            if not wrong:
                return found

    def _search(self, start: str, goal: str, extra: set[Edge]) -> Optional[list[str]]:
        """Breadth first over exact edges where known, regular-expression ones elsewhere."""
        more: dict[str, set[str]] = {}
        for u, v in extra:
            more.setdefault(u, set()).add(v)
        parent: dict[str, str] = {}
        todo = deque([start])
        while todo:
            node = todo.popleft()
            known = self._exact.get(node)
            for nxt in sorted((known if known is not None else self._read_rough(node)) | more.get(node, set())):
                if nxt in parent or nxt == start:
                    continue
                parent[nxt] = node
                if nxt == goal:
                    out = [goal]
                    while out[-1] != start:
                        out.append(parent[out[-1]])
                    return out[::-1]
                todo.append(nxt)
        return None

    def _read_rough(self, module: str) -> set[str]:
        if module in self._rough:
            return self._rough[module]
        path = self.modules.get(module)
        out: set[str] = set()
        if path is not None:
            data = self.checkout.data(path)
            package = module if path.endswith("__init__.py") else module.rpartition(".")[0]  # `package_of`
            ours = self.checkout.package.encode()
            for m in _import_statements(data):
                if ours not in (m.group(4) or b"") and not (m.group(2) or b"").startswith((b".", ours)):
                    continue  # another package's import: not a node
                if m.group(1) and not _runs_on_import(data, m.start(), len(m.group(1))):
                    continue
                if m.group(2) is not None:
                    level = len(m.group(2)) - len(m.group(2).lstrip(b"."))
                    node = ast.ImportFrom(m.group(2)[level:].decode() or None, [], level)
                    names = [n.split()[0].decode() for n in m.group(3).strip(b"()\\\n \t").split(b",") if n.split()]
                    self._add(out, absolute_module(node, package), names)
                else:
                    for name in m.group(4).replace(b"\\\n", b" ").split(b","):
                        if name.split():
                            self._add(out, name.split()[0].decode(), [])
        out.discard(module)
        self._rough[module] = out
        return out

    def _read_exact(self, module: str) -> set[str]:
        path = self.modules.get(module)
        out: set[str] = set()
        if path is None:
            return out
        try:
            tree = self.checkout.parse(path)
        except (SyntaxError, ValueError):
            return out
        package = self.checkout.package_of(path)
        todo = list(tree.body)
        while todo:
            stmt = todo.pop()
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    self._add(out, a.name, [])
            elif isinstance(stmt, ast.ImportFrom):
                self._add(out, absolute_module(stmt, package), [a.name for a in stmt.names])
            elif isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
                todo.extend(stmt.orelse)
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    todo.extend(getattr(stmt, field, None) or [])
        out.discard(module)
        return out

    def _add(self, out: set[str], module: Optional[str], names: list[str]) -> None:
        if module is None or module.split(".")[0] != self.checkout.package:
            return
        out.update(h for h in self.heads(module, names) if h in self.modules)


def _import_statements(data: bytes) -> Iterator[re.Match]:
    """`IMPORT` matches in `data`, tried only at the lines that hold the word `import`."""
    at = data.find(b"import")
    while at >= 0:
        m = IMPORT.match(data, data.rfind(b"\n", 0, at) + 1)
        if m is not None and m.end() > at:
            yield m
            at = data.find(b"import", m.end())
        else:
            at = data.find(b"import", at + 6)


def _runs_on_import(data: bytes, at: int, indent: int) -> bool:
    """Whether the indented import at byte `at` runs when the module is imported: no enclosing
    block (found by indentation, backwards) is a `def` or an `if TYPE_CHECKING:`."""
    while indent and at > 0:
        end = at - 1
        at = data.rfind(b"\n", 0, end) + 1
        line = data[at:end].lstrip(b" \t")
        depth = end - at - len(line)
        if not line or line.startswith(b"#") or depth >= indent:
            continue
        if FUNCTION.match(line) or TYPE_CHECKING.match(line):
            return False
        indent = depth + 1 if line[:1] in b")]}" else depth  # `):` closes a header opened above
    return True


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_imports(text: Optional[str], module: str, package: str, checkout: Checkout) -> set[tuple[str, str]]:
    """(importer, imported module) for each top-level import of `text` (`from pkg import name`:
    also `pkg.name` when that is a module of the package)."""
    if not text:
        return set()
    modules = checkout.modules()
    edges = set()
    for node in parsing.parse(text).body:
        if isinstance(node, ast.Import):
            edges |= {(module, a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(node, package)
            if base is None:
                continue
            edges.add((module, base))
            edges |= {(module, f"{base}.{a.name}") for a in node.names if f"{base}.{a.name}" in modules}
    return edges
