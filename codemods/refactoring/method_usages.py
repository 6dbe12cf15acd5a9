"""Uses of a method that the extraction's first steps would break, anywhere in the checkout.

Step 1 makes CLASS.METHOD a keyword-only static method and step 2 takes it out of the class
until step 3 puts a wrapper back; every step's tree must import and behave like the original.
Listed, each as (file, line, what), for the engine to refuse with:
- subclasses of CLASS anywhere (transitively; the base spelled `CLASS`, `module.CLASS` or an
  imported alias) that define METHOD or call `super().METHOD`;
- outside CLASS's own body, `x.METHOD` in files that import CLASS, its module or a subclass
  (a comment or a docstring that mentions it is not a use);
- patches of it: `mock.patch.object(CLASS, "METHOD")`, `patch("module.CLASS.METHOD")`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Callable, Optional

from codemods.refactoring.checkout import Checkout
from codemods.refactoring.errors import Location
from codemods.refactoring.file_names import PATCHERS, FileNames, callee_name


class ParsedFiles:
    """`ast` trees and names of checkout files, parsed once each (None: does not parse), and
    the nodes of each that may be uses of `method` (collected in the same walk)."""

    def __init__(self, checkout: Checkout, method: str):
        self.checkout, self.method = checkout, method
        self._parsed: dict[Path, Optional[tuple[ast.Module, FileNames, list[ast.AST]]]] = {}

    def get(self, path: Path) -> Optional[tuple[ast.Module, FileNames, list[ast.AST]]]:
        if path not in self._parsed:
            try:
                tree = ast.parse(self.checkout.data(path))
            except (SyntaxError, ValueError):
                self._parsed[path] = None
            else:
                module = self.checkout.module_of(path) or f"<{self.checkout.relative(path)}>"
                candidates: list[ast.AST] = []
                names = FileNames(tree, self.checkout.package_of(path), module, lambda n: self._collect(n, candidates))
                self._parsed[path] = tree, names, candidates
        return self._parsed[path]

    def _collect(self, node: ast.AST, into: list[ast.AST]) -> None:
        method = self.method
        if (isinstance(node, ast.ClassDef) and node.bases
                or isinstance(node, ast.Attribute) and node.attr == method
                or isinstance(node, ast.Constant) and isinstance(node.value, str) and f".{method}" in node.value
                or isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == method):
            into.append(node)

    def derives(self, name: Optional[str], base: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the class `name` (qualified) is `base` or derives from it, following its
        definition and its bases from file to file (through imports and re-exports too)."""
        if name is None or name in seen:
            return False
        if name == base:
            return True
        module, _, attr = name.rpartition(".")
        path = self._file(module)
        got = self.get(path) if path is not None and path.is_file() else None
        if got is None:
            return False
        tree, names, _ = got
        seen = seen | {name}
        for stmt in tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == attr:
                return any(self.derives(names.qualify(b), base, seen) for b in stmt.bases)
        return any(self.derives(target, base, seen) for target in names.imported.get(attr, ()))

    def _file(self, module: str) -> Optional[Path]:
        if module.startswith("<") and module.endswith(">"):  # a file outside the package
            return self.checkout.root / module[1:-1]
        return self.checkout.modules().get(module)


def method_usages(checkout: Checkout, module: str, class_name: str, method: str) -> list[Location]:
    """Every place that the first steps of extracting `module.class_name.method` would break.

    Only files that mention `method` can hold such a place: for each class there, its bases are
    followed upwards (through imports and re-exports, file by file) to see whether it derives
    from the class."""
    parsed = ParsedFiles(checkout, method)
    qualified = f"{module}.{class_name}"
    source = checkout.modules().get(module)
    found: list[Location] = []
    for path in checkout.select(lambda data: method.encode() in data):
        got = parsed.get(path)
        if got is None:
            found.append(Location(path, 1, f"cannot parse the file, so its uses of {class_name}.{method} cannot "
                                           f"be checked: fix it first"))
            continue
        tree, names, candidates = got
        subclasses = [c for c in candidates if isinstance(c, ast.ClassDef) and names.classes.get(c.name) != qualified
                      and any(parsed.derives(names.qualify(b), qualified) for b in c.bases)]
        for node in subclasses:
            found += [Location(path, stmt.lineno, f"{node.name} overrides {class_name}.{method}")
                      for stmt in node.body if method in _defines(stmt)]
        own = _class_lines(tree, class_name) if path == source else range(0)
        imports_it = bool(subclasses) or path == source or any(
            t == module or t.startswith(module + ".") for ts in names.imported.values() for t in ts)
        related = lambda c: names.classes.get(c.name) == qualified or any(  # noqa: E731
            parsed.derives(names.qualify(b), qualified) for b in c.bases) or parsed.derives(
            qualified, names.classes.get(c.name))
        found += _uses(path, candidates, names, method, lambda q: parsed.derives(q, qualified), own, imports_it,
                       _foreign_self(tree, related))
    return sorted(set(found))


def _foreign_self(tree: ast.Module, related: Callable[[ast.ClassDef], bool]) -> Callable[[ast.AST], bool]:
    """Whether a node is `self.x` inside a class that is neither the class, nor one of its
    subclasses or bases: there `self` is another class's instance (the same method name on an
    unrelated class)."""
    classes: list[ast.ClassDef] = []

    def foreign(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
            return False
        if not classes:  # the first `self.METHOD` of the file: collect its classes once
            classes.extend(c for c in ast.walk(tree) if isinstance(c, ast.ClassDef))
        around = [c for c in classes if c.lineno <= node.lineno <= c.end_lineno]
        return bool(around) and not related(min(around, key=lambda c: c.end_lineno - c.lineno))
    return foreign


def _defines(stmt: ast.stmt) -> set[str]:
    """Names a statement of a class body binds as class attributes."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign)) else []
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _class_lines(tree: ast.Module, class_name: str) -> range:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            return range(stmt.lineno, stmt.end_lineno + 1)
    return range(0)


def _uses(path: Path, candidates: list[ast.AST], names: FileNames, method: str,
          is_the_class: Callable[[Optional[str]], bool], own: range, imports_it: bool,
          foreign_self: Callable[[ast.AST], bool]) -> list[Location]:
    found = []
    for node in candidates:
        if isinstance(node, ast.Attribute) and node.attr == method and imports_it and node.lineno not in own \
                and not foreign_self(node):
            value = node.value
            if isinstance(value, ast.Call) and callee_name(value) == "super":
                found.append(Location(path, node.lineno, f"calls super().{method}"))
            else:
                found.append(Location(path, node.lineno, f"uses {ast.unparse(value)}.{method}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and f".{method}" in node.value:
            owner, _, rest = node.value.partition(f".{method}")
            if (not rest or rest.startswith(".")) and is_the_class(owner):
                found.append(Location(path, node.lineno, f"patches {node.value!r}"))
        elif (isinstance(node, ast.Call) and len(node.args) > 1 and callee_name(node) in PATCHERS
              and isinstance(node.args[1], ast.Constant) and node.args[1].value == method
              and is_the_class(names.qualify(node.args[0]))):
            found.append(Location(path, node.lineno, f"patches {ast.unparse(node.args[0])}.{method} "
                                                     f"({ast.unparse(node.func)})"))
    return found
