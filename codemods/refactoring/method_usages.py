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
import re
from pathlib import Path
from typing import Optional

from codemods.refactoring.checkout import Checkout
from codemods.refactoring.errors import Location
from codemods.refactoring.file_names import PATCHERS, FileNames, callee_name, nodes


class ParsedFiles:
    """`ast` trees and names of checkout files, parsed once each (None: does not parse)."""

    def __init__(self, checkout: Checkout):
        self.checkout = checkout
        self._parsed: dict[Path, Optional[tuple[ast.Module, FileNames]]] = {}

    def get(self, path: Path) -> Optional[tuple[ast.Module, FileNames]]:
        if path not in self._parsed:
            try:
                tree = ast.parse(self.checkout.data(path))
            except (SyntaxError, ValueError):
                self._parsed[path] = None
            else:
                module = self.checkout.module_of(path) or f"<{self.checkout.relative(path)}>"
                self._parsed[path] = tree, FileNames(tree, self.checkout.package_of(path), module)
        return self._parsed[path]


def method_usages(checkout: Checkout, module: str, class_name: str, method: str) -> list[Location]:
    """Every place that the first steps of extracting `module.class_name.method` would break."""
    parsed = ParsedFiles(checkout)
    qualified = f"{module}.{class_name}"
    subclasses = find_subclasses(checkout, qualified, parsed)
    found: list[Location] = []
    for path, node in subclasses.values():
        for stmt in node.body:
            if method in _defines(stmt):
                found.append(Location(path, stmt.lineno, f"{node.name} overrides {class_name}.{method}"))
    known = {qualified, *subclasses}
    source = checkout.modules().get(module)
    for path in checkout.select(lambda data: method.encode() in data):
        got = parsed.get(path)
        if got is None:
            found.append(Location(path, 1, f"cannot parse the file, so its uses of {class_name}.{method} cannot "
                                           f"be checked: fix it first"))
            continue
        tree, names = got
        own = _class_lines(tree, class_name) if path == source else range(0)
        imports_it = path == source or any(
            t == module or t.startswith(module + ".") or t in known for ts in names.imported.values() for t in ts
        ) or any(p == path for p, _ in subclasses.values())
        found += _uses(path, tree, names, method, known, own, imports_it)
    return sorted(set(found))


def find_subclasses(checkout: Checkout, qualified: str, parsed: ParsedFiles) -> dict[str, tuple[Path, ast.ClassDef]]:
    """{qualified name: (file, class)} of every class deriving from `qualified`, transitively."""
    known = {qualified}
    found: dict[str, tuple[Path, ast.ClassDef]] = {}
    new = {qualified.rpartition(".")[2]}
    while new:
        looked_for, new = new, set()
        for path in checkout.select(lambda data: _may_derive(data, looked_for)):
            got = parsed.get(path)
            if got is None:
                continue
            tree, names = got
            for node in nodes(tree):
                if not isinstance(node, ast.ClassDef) or not any(names.qualify(b) in known for b in node.bases):
                    continue
                name = names.classes.get(node.name) or f"<{checkout.relative(path)}:{node.lineno}>.{node.name}"
                if name not in known:
                    known.add(name)
                    found[name] = (path, node)
                    new.add(node.name)
    return found


def _may_derive(data: bytes, bases: set[str]) -> bool:
    """Whether `data` may define a class deriving from one of `bases` (or an alias of one)."""
    words = [b.encode() for b in bases if b.encode() in data]
    if not words:
        return False
    either = b"|".join(re.escape(w) for w in words)
    words += re.findall(rb"\b(?:" + either + rb")\s+as\s+(\w+)", data)
    either = b"|".join(re.escape(w) for w in words)
    return re.search(rb"\bclass\s+\w+\s*\((?:[^()]|\([^()]*\))*?\b(?:" + either + rb")\b", data) is not None


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


def _uses(path: Path, tree: ast.Module, names: FileNames, method: str, known: set[str], own: range,
          imports_it: bool) -> list[Location]:
    found = []
    for node in nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr == method and imports_it and node.lineno not in own:
            value = node.value
            if isinstance(value, ast.Call) and callee_name(value) == "super":
                found.append(Location(path, node.lineno, f"calls super().{method}"))
            else:
                found.append(Location(path, node.lineno, f"uses {ast.unparse(value)}.{method}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and any(
                node.value == f"{k}.{method}" or node.value.startswith(f"{k}.{method}.") for k in known):
            found.append(Location(path, node.lineno, f"patches {node.value!r}"))
        elif (isinstance(node, ast.Call) and len(node.args) > 1 and callee_name(node) in PATCHERS
              and isinstance(node.args[1], ast.Constant) and node.args[1].value == method
              and names.qualify(node.args[0]) in known):
            found.append(Location(path, node.lineno, f"patches {ast.unparse(node.args[0])}.{method} "
                                                     f"({ast.unparse(node.func)})"))
    return found
