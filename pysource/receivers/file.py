"""One parsed file of the checkout: its tree, its names, each node's parent."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable, Iterator, Optional

from pysource.imports import FileNames, nodes, nodes_on_lines, parents_of


class File:
    """One parsed file: its tree, its names, each node's parent."""

    def __init__(self, path: Path, tree: ast.Module, names: FileNames, module: Optional[str]):
        self.path, self.tree, self.names, self.module = path, tree, names, module
        self._parents: dict[int, ast.AST] = {}  # those noted by `nodes_spelling`, or every node's
        self._every_parent = False

    def nodes_spelling(self, words: Iterable[str]) -> Iterator[ast.AST]:
        """The nodes that may spell one of `words`, and their ancestors, in `nodes`' order
        (`nodes_on_lines`; every node without the file's text); their parents are noted."""
        lines: set[int] = set()
        for word in words:
            on = self.names.lines_of(word)
            if on is None:
                return nodes(self.tree)
            lines.update(on)
        return nodes_on_lines(self.tree, sorted(lines), self._parents)

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        if node is self.tree:
            return None
        if id(node) not in self._parents and not self._every_parent:
            self._every_parent = True
            self._parents.update(parents_of(self.tree))
        return self._parents.get(id(node))

    def enclosing(self, node: ast.AST) -> tuple[Optional[ast.AST], Optional[ast.ClassDef]]:
        """(the innermost function or lambda holding `node`, the class that function is a method of)."""
        n = self.parent(node)
        while n is not None and not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            n = self.parent(n)
        if n is None:
            return None, None
        up = self.parent(n)
        return n, up if isinstance(up, ast.ClassDef) and n in up.body else None
