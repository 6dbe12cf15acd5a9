"""Classes of a tree: the files defining a class (one rule for the codemods and the harness), and
what `self.NAME` can mean inside a class: its methods and properties, bases in the tree included.

Read with Python's `ast` (fast on a 3400-line module), following each base class through the
module's own imports to its file in the tree. A base that cannot be found there (outside the
tree, or bound some other way) contributes nothing: its methods then read as plain attributes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from pysource.checkout import Checkout
from pysource.layout import layouts
from pysource.modules import module_files
from pysource.parsing import parse

PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property"}


def files_defining(checkout: Checkout, class_name: str, packages: Iterable[str]) -> list[str]:
    """The files of `packages` (relative to the folder holding them) that define `class_name` at
    top level (`class NAME` at the start of a line)."""
    pattern = re.compile(rb"class\s+" + re.escape(class_name.encode()) + rb"\b")

    def defines(data: bytes) -> bool:  # `^` under re.M tries every line: six times slower
        return any(m.start() == 0 or data[m.start() - 1] == 10 for m in pattern.finditer(data))

    packages = set(packages)
    found = (checkout.relative(path, checkout.package_root) for path in checkout.select(
        defines, mentioning=class_name.encode()))
    return sorted(rel for rel in found if rel.split("/")[0] in packages)


def find_class_file(path: Path, class_name: str, module: Optional[str] = None) -> tuple[Optional[Path], list[str]]:
    """(the folder holding the package, the files defining `class_name` relative to it) in the first
    layout of PATH (`pysource.layout`) where some file does; with `module` (MODULE.CLASS), that
    module's file instead. (None, []) when no layout has one."""
    for layout in layouts(Path(path)):
        root = layout.root
        if not root.is_dir() or (layout.only and not (root / layout.only / "__init__.py").is_file()):
            continue
        if module:
            found = [rel for rel in module_files(module) if (root / rel).is_file()]
        else:
            packages = [layout.only] if layout.only else [p.name for p in sorted(root.iterdir())
                                                          if (p / "__init__.py").is_file()]
            found = files_defining(Checkout.at(root), class_name, packages)
        if found:
            return root.resolve(), found
    return None, []


@dataclass
class ClassInfo:
    methods: set[str] = field(default_factory=set)  # functions that are not properties
    properties: dict[str, str] = field(default_factory=dict)  # property name -> its source


def class_info(text: str, class_name: str, root: Path, module: str) -> ClassInfo:
    """Members of top-level class `class_name` in `text` (module `module` under `root`) and its bases."""
    info = ClassInfo()
    for cls, source in classes(text, class_name, root, module):
        lines = source.splitlines(True)
        for s in cls.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name not in info.properties:
                if any(ast.unparse(d) in PROPERTY_DECORATORS or ast.unparse(d).endswith(".setter")
                       for d in s.decorator_list):
                    info.properties.setdefault(s.name, "".join(lines[s.lineno - 1:s.end_lineno]))
                elif s.name not in info.properties:
                    info.methods.add(s.name)
    return info


def classes(text: str, class_name: str, root: Path, module: str) -> list[tuple[ast.ClassDef, str]]:
    """Top-level class `class_name` of `text` (module `module` under `root`), then its bases
    found in the tree, depth first, each with the text of its module."""
    out: list[tuple[ast.ClassDef, str]] = []
    _collect(text, class_name, root, module, out, set())
    return out


def _collect(text: str, class_name: str, root: Path, module: str, out: list, seen: set) -> None:
    if (module, class_name) in seen or len(seen) > 20:
        return
    seen.add((module, class_name))
    tree = parse(text)
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name]
    if not found:
        return
    cls = found[0]
    out.append((cls, text))
    for base in cls.bases:
        if isinstance(base, ast.Name):
            where = _defining_module(tree, base.id, module)
            if where is None:
                continue
            base_module, base_name = where
            base_text = text if base_module == module else _read(root, base_module)
            if base_text is not None:
                _collect(base_text, base_name, root, base_module, out, seen)


def _defining_module(tree: ast.Module, name: str, module: str) -> Optional[tuple[str, str]]:
    """(module, class name) that top-level `name` comes from: this module or a `from M import` one."""
    for s in tree.body:
        if isinstance(s, ast.ClassDef) and s.name == name:
            return module, name
        if isinstance(s, ast.ImportFrom) and s.module is not None:
            for a in s.names:
                if (a.asname or a.name) == name:
                    package = module.rsplit(".", s.level)[0] if s.level else ""
                    return (f"{package}.{s.module}" if s.level else s.module), a.name
    return None


def _read(root: Path, module: str) -> Optional[str]:
    base = root / module.replace(".", "/")
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return None
