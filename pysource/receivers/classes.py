"""The checkout's files parsed on demand (once each), and its classes followed from file to file:
where each is defined, its bases, its lineage, its subclasses."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Iterable, Iterator, Optional

from pysource.bindings import binding_index
from pysource.checkout import Checkout
from pysource.imports import FileNames
from pysource.modules import import_bindings, module_level_statements
from pysource.receivers.file import File
from pysource.receivers.syntax import spells


class Classes:
    """The checkout's files and classes."""

    def __init__(self, checkout: Checkout):
        self.checkout = checkout
        self._files: dict[Path, Optional[File]] = {}
        self._classes: dict[str, Optional[tuple[File, ast.ClassDef]]] = {}
        self._subclasses: dict[str, frozenset[str]] = {}

    def file(self, path: Path) -> Optional[File]:
        path = Path(path)
        if path not in self._files:
            try:
                tree = self.checkout.parse(path)
            except (SyntaxError, ValueError, OSError):
                self._files[path] = None
            else:
                module = self.checkout.module_of(path) or f"<{self.checkout.relative(path)}>"
                names = FileNames(tree, self.checkout.package_of(path), module, text=self.checkout.text(path))
                self._files[path] = File(path, tree, names, module)
        return self._files[path]

    def module_path(self, module: str) -> Optional[Path]:
        if module.startswith("<") and module.endswith(">"):
            return self.checkout.root / module[1:-1]
        found = self.checkout.modules().get(module)
        return Path(found) if found is not None else None

    def outside(self, qualified: str) -> bool:
        """Whether a dotted name comes from outside the checkout (`Checkout.from_outside`)."""
        return self.checkout.from_outside(qualified)

    def class_def(self, qualname: Optional[str], depth: int = 0) -> Optional[tuple[File, ast.ClassDef]]:
        """The file and definition of the class `qualname` names (re-exports followed)."""
        if qualname is None or depth > 6:
            return None
        if qualname in self._classes:
            return self._classes[qualname]
        self._classes[qualname] = None
        module, _, name = qualname.rpartition(".")
        path = self.module_path(module) if module else None
        found = None
        f = self.file(path) if path is not None and path.is_file() else None
        if f is not None:
            defs = [s for s in module_level_statements(f.tree.body) if isinstance(s, ast.ClassDef) and s.name == name]
            if len(defs) == 1:
                found = (f, defs[0])
            elif not defs:
                for target in f.names.imported.get(name, ()):
                    found = self.class_def(target, depth + 1)
                    if found is not None:
                        break
        self._classes[qualname] = found
        return found

    def canonical(self, qualname: str) -> str:
        """The class's name where it is defined (`sglang.srt.x.C` for a re-export of it)."""
        found = self.class_def(qualname)
        if found is None:
            return qualname
        f, node = found
        return f"{f.module}.{node.name}"

    def qualified(self, f: File, node: ast.ClassDef) -> str:
        return f"{f.module}.{node.name}"

    def bases(self, qualname: str) -> Optional[list[str]]:
        """The qualified names of the class's bases; None when one cannot be followed (bound
        otherwise, computed); a base from outside the checkout is named by its import."""
        found = self.class_def(qualname)
        if found is None:
            return [] if self.outside(qualname) else None
        f, node = found
        out = []
        for base in node.bases:
            base = base.value if isinstance(base, ast.Subscript) else base
            q = f.names.qualify(base)
            if q is not None:
                out.append(q if self.outside(q) else self.canonical(q))
                continue
            if not isinstance(base, ast.Name):
                return None
            if hasattr(builtins, base.id) and base.id not in f.names.imported and base.id not in f.names.bound_otherwise:
                continue
            candidates = self._module_classes(f, base.id)
            if candidates is None:
                return None
            out += candidates
        return out

    def _module_classes(self, f: File, name: str) -> Optional[list[str]]:
        """The classes a module-level name may be bound to (`if X: from m import C` / `else:
        class C: ...`): each binding a class definition or an import of a class; else None."""
        out = []
        for stmt in binding_index(f.tree).get(name, []):
            if isinstance(stmt, ast.ClassDef):
                out.append(f"{f.module}.{name}")
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                targets = [b.qualname for b in import_bindings(stmt, self.checkout.relative(f.path, self.checkout.package_root))
                           if b.name == name]
                if len(targets) != 1:
                    return None
                q = targets[0]
                if not self.outside(q) and self.class_def(q) is None:
                    return None
                out.append(q if self.outside(q) else self.canonical(q))
            else:
                return None
        return out or None

    def lineage(self, qualname: str) -> Optional[list[str]]:
        """The class and every class it derives from (depth first); None when some base cannot
        be followed. A class from outside the checkout ends its line."""
        out, todo, seen = [], [qualname], set()
        while todo:
            q = todo.pop(0)
            if q in seen:
                continue
            seen.add(q)
            out.append(q)
            if self.outside(q):
                continue
            bases = self.bases(q)
            if bases is None or len(seen) > 60:
                return None
            todo += bases
        return out

    def derives(self, qualname: str, base: str) -> bool:
        """Whether class `qualname` is `base` or derives from it, as far as its bases can be followed."""
        todo, seen = [qualname], set()
        while todo:
            q = todo.pop()
            if q == base:
                return True
            if q in seen or self.outside(q) or len(seen) > 60:
                continue
            seen.add(q)
            todo += self.bases(q) or []
        return False

    def overrides(self, qualname: str, names: Iterable[str]) -> Iterator[tuple[File, ast.ClassDef, ast.FunctionDef]]:
        """(file, subclass, def) for each method of a subclass of `qualname` named in `names`."""
        names = set(names)
        for sub in sorted(self.subclasses(qualname)):
            got = self.class_def(sub)
            if got is None:
                continue
            f, node = got
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in names:
                    yield f, node, stmt

    def subclasses(self, qualname: str) -> frozenset[str]:
        """Every class of the checkout deriving from `qualname` (transitively), found among the
        files whose class statements spell its name in their bases."""
        if qualname in self._subclasses:
            return self._subclasses[qualname]
        self._subclasses[qualname] = frozenset()
        out: set[str] = set()
        todo = [qualname]
        while todo:
            q = todo.pop()
            name = q.rpartition(".")[2]
            for path in self.checkout.naming_a_base(name.encode()):
                f = self.file(Path(path))
                if f is None:
                    continue
                for node in f.names.class_defs:
                    if any(
                            (b.value if isinstance(b, ast.Subscript) else b) is not None
                            and spells(b, name) for b in node.bases):
                        sub = self.qualified(f, node)
                        if sub not in out and sub != qualname and self.derives(sub, q):
                            out.add(sub)
                            todo.append(sub)
        self._subclasses[qualname] = frozenset(out)
        return self._subclasses[qualname]
