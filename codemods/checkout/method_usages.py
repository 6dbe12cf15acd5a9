"""Uses of a method that the extraction's first steps would break, anywhere in the checkout.

Step 1 makes CLASS.METHOD a keyword-only static method and step 2 takes it out of the class
until step 3 puts a wrapper back; every step's tree must import and behave like the original.
Every file whose bytes spell METHOD is parsed (comments and strings are not uses, patch targets
are), and listed, each as (file, line, what), for the engine to refuse with:
- subclasses of CLASS anywhere (transitively; the base spelled `CLASS`, `module.CLASS` or an
  imported alias) that define METHOD;
- every `x.METHOD` but the class's own calls `self.METHOD(...)` (which step 1 rewrites), and
  `getattr(x, "METHOD")`, `patch.object(x, "METHOD")` and the like, unless `x` provably is
  something else: a module; a class (or an instance made by calling it) whose bases are all
  known and do not include CLASS; `self` in such a class that defines or inherits METHOD itself
  and that CLASS does not derive from; `super()` in such a class;
- patch targets `"module.CLASS.METHOD"` (or a subclass's path).
Any other `x.METHOD` may be CLASS.METHOD (a runner passed around under any name): the tool
cannot tell it apart from a same-named method of another class, so it is listed too.
A use outside the class that only reaches the method through an instance (`x.METHOD`,
`super().METHOD`, `getattr(x, "METHOD")`) finds step 3's wrapper as it found the method
(`Usage.through_wrapper`); an override, a patch, an unparsable file do not: the class's own call
sites call the function from step 2 on, past any override or patch of the method.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pysource.checkout import Checkout
from codemods.core.errors import Location
from pysource.imports import PATCHERS, FileNames, callee_name

BY_NAME = PATCHERS | {"getattr", "hasattr"}  # f(x, "METHOD", ...): x.METHOD spelled as a string
Parsed = tuple[ast.Module, FileNames, list[ast.AST]]


@dataclass(frozen=True, order=True)
class Usage(Location):
    through_wrapper: bool = False  # a wrapper of the original signature keeps it working
    override: bool = False  # a subclass defining the method


class ParsedFiles:
    """`ast` trees and names of checkout files, parsed once each (None: does not parse), the
    nodes of each that may be uses of `method` (collected in the same walk), and what the
    classes they define derive from."""

    def __init__(self, checkout: Checkout, method: str):
        self.checkout, self.method = checkout, method
        self._parsed: dict[Path, Optional[Parsed]] = {}
        self.called: set[int] = set()  # ids of the `x.METHOD` nodes that are called

    def get(self, path: Path) -> Optional[Parsed]:
        if path not in self._parsed:
            try:
                tree = self.checkout.parse(path)
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
        if isinstance(node, ast.Attribute) and node.attr == method:
            into.append(node)
        elif isinstance(node, ast.ClassDef):
            into.append(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and f".{method}" in node.value:
            into.append(node)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == method:
                self.called.add(id(node.func))
            elif len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == method:
                into.append(node)

    def class_def(self, name: Optional[str], seen: frozenset[str] = frozenset()
                  ) -> Optional[tuple[str, ast.ClassDef, FileNames]]:
        """(where it is defined, its definition, its file's names) of the class `name` (qualified)
        stands for, following re-exports."""
        if name is None or name in seen:
            return None
        module, _, attr = name.rpartition(".")
        path = self._file(module)
        got = self.get(path) if path is not None and path.is_file() else None
        if got is None:
            return None
        tree, names, _ = got
        for stmt in tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == attr:
                return name, stmt, names
        for target in names.imported.get(attr, ()):
            found = self.class_def(target, seen | {name})
            if found is not None:
                return found
        return None

    def derives(self, name: Optional[str], base: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the class `name` (qualified) is `base` or derives from it, following its
        definition and its bases from file to file (through imports and re-exports too)."""
        if name is None or name in seen:
            return False
        if name == base:
            return True
        found = self.class_def(name)
        if found is None:
            return False
        defined, node, names = found
        if defined == base:
            return True
        return any(self.derives(names.qualify(_unsubscripted(b)), base, seen | {name}) for b in node.bases)

    def lineage(self, node: ast.ClassDef, names: FileNames, depth: int = 0
                ) -> Optional[list[tuple[ast.ClassDef, FileNames]]]:
        """`node` and every class of the checkout it derives from; None when some base cannot be
        followed (bound otherwise, computed, or a name of the package no file defines as a class).
        A base from outside the package (`nn.Module`, `object`) ends its line."""
        out = [(node, names)]
        for base in node.bases:
            base = _unsubscripted(base)
            qualified = names.qualify(base)
            if qualified is None:
                if isinstance(base, ast.Name) and hasattr(builtins, base.id) and base.id not in names.imported \
                        and base.id not in names.bound_otherwise:
                    continue
                return None
            if self.outside(qualified):
                continue
            found = self.class_def(qualified)
            above = None if found is None or depth > 50 else self.lineage(*found[1:], depth + 1)
            if above is None:
                return None
            out += above
        return out

    def outside(self, qualified: str) -> bool:
        """Whether a dotted name comes from outside the checkout (`Checkout.from_outside`)."""
        return self.checkout.from_outside(qualified)

    def unrelated(self, node: ast.ClassDef, names: FileNames, base: str) -> Optional[list[ast.ClassDef]]:
        """The lineage of class `node` when it provably does not derive from `base` (else None)."""
        line = self.lineage(node, names)
        if line is None or any(self.qualified_name(c, n) == base for c, n in line):
            return None
        return [c for c, _ in line]

    def qualified_name(self, node: ast.ClassDef, names: FileNames) -> Optional[str]:
        qualified = names.classes.get(node.name)
        found = self.class_def(qualified)
        return qualified if found is not None and found[1] is node else None

    def _file(self, module: str) -> Optional[Path]:
        if module.startswith("<") and module.endswith(">"):  # a file outside the package
            return self.checkout.root / module[1:-1]
        found = self.checkout.modules().get(module)
        return Path(found) if found is not None else None


def method_usages(checkout: Checkout, module: str, class_name: str, method: str, reads_are_calls: bool = False
                  ) -> list[Usage]:
    """Every place that the first steps of extracting `module.class_name.method` would break
    (`reads_are_calls`: a property, whose reads `self.METHOD` in the class are its call sites).

    Only files that spell `method` can hold such a place: each is parsed, and the classes around
    a use are followed upwards (through imports and re-exports, file by file)."""
    parsed = ParsedFiles(checkout, method)
    source = checkout.modules().get(module)
    source = Path(source) if source is not None else None
    found: list[Usage] = []
    for path in checkout.select(lambda data: True, mentioning=method.encode()):
        got = parsed.get(path)
        if got is None:
            found.append(Usage(path, 1, f"cannot parse the file, so its uses of {class_name}.{method} cannot "
                                        f"be checked: fix it first"))
            continue
        found += _FileUses(parsed, path, got, f"{module}.{class_name}", method, path == source, reads_are_calls).found
    return sorted(set(found))


class _FileUses:
    """The uses of the method in one file."""

    def __init__(self, parsed: ParsedFiles, path: Path, got: Parsed, qualified: str, method: str, is_source: bool,
                 reads_are_calls: bool = False):
        self.parsed, self.path, self.qualified, self.method = parsed, path, qualified, method
        self.reads_are_calls = reads_are_calls
        tree, self.names, candidates = got
        self.class_name = qualified.rpartition(".")[2]
        self.classes = [c for c in candidates if isinstance(c, ast.ClassDef)]
        self.own = next((c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == self.class_name),
                        None) if is_source else None
        self.found: list[Usage] = []
        for node in self.classes:
            if node is not self.own and any(parsed.derives(self.names.qualify(_unsubscripted(b)), qualified)
                                            for b in node.bases):
                self.found += [Usage(path, stmt.lineno, f"{node.name} overrides {self.class_name}.{method}",
                                     override=True) for stmt in node.body if method in _defines(stmt)]
        for node in candidates:
            if isinstance(node, ast.Attribute):
                self._attribute(node)
            elif isinstance(node, ast.Call) and callee_name(node) in BY_NAME:
                self._by_name(node)
            elif isinstance(node, ast.Constant):
                self._patch_target(node)

    def _attribute(self, node: ast.Attribute) -> None:
        value, method = node.value, self.method
        around = self._class_around(node)
        if isinstance(value, ast.Call) and callee_name(value) == "super" and around is self.own is not None:
            return  # the class's own super().METHOD: a base's, past the class in every MRO
        outside = True
        if around is not None and around is self.own:
            if _is_self(value) and (id(node) in self.parsed.called or self.reads_are_calls):
                return  # the class's own call (a property's read): step 1 rewrites it
            if not _is_self(value) and self._other_thing(value):
                return  # `module.METHOD`, `Unrelated.METHOD`: a same-named attribute of something else
            what = (f"uses self.{method} other than by calling it (passed as a value?)" if _is_self(value)
                    else f"uses {ast.unparse(value)}.{method}")
            outside = False  # the class's own call sites are rewritten, and must all be `self.METHOD(...)`
        elif isinstance(value, ast.Call) and callee_name(value) == "super":
            if around is not None and self._unrelated(around) is not None:
                return  # super() resolves past `around`, which the class is not in
            what = f"calls super().{method}"
        elif _is_self(value) and around is not None and self._defines_it(around):
            return
        elif self._other_thing(value):
            return
        else:
            what = f"uses {ast.unparse(value)}.{method}"
        self.found.append(Usage(self.path, node.lineno, what, through_wrapper=outside))

    def _by_name(self, node: ast.Call) -> None:
        receiver = node.args[0]
        around = self._class_around(node)
        if self._other_thing(receiver) or _is_self(receiver) and around is not None and self._defines_it(around):
            return
        verb = _by_name_verb(node)
        self.found.append(Usage(self.path, node.lineno, f"{verb} {ast.unparse(receiver)}.{self.method} "
                                                        f"({ast.unparse(node.func)})", through_wrapper=verb == "reads"))

    def _patch_target(self, node: ast.Constant) -> None:
        owner, _, rest = node.value.partition(f".{self.method}")
        if (not rest or rest.startswith(".")) and self.parsed.derives(owner, self.qualified):
            self.found.append(Usage(self.path, node.lineno, f"patches {node.value!r}"))

    def _class_around(self, node: ast.AST) -> Optional[ast.ClassDef]:
        around = [c for c in self.classes if c.lineno <= node.lineno <= c.end_lineno]
        return min(around, key=lambda c: c.end_lineno - c.lineno) if around else None

    def _unrelated(self, node: ast.ClassDef) -> Optional[list[ast.ClassDef]]:
        return self.parsed.unrelated(node, self.names, self.qualified)

    def _defines_it(self, node: ast.ClassDef) -> bool:
        """Whether `self.METHOD` in class `node` provably means its own (or inherited) METHOD:
        it does not derive from the class, the class does not derive from it, and it or a class
        it derives from defines METHOD."""
        line = self._unrelated(node)
        if line is None:
            return False
        own = self.parsed.qualified_name(node, self.names)
        if own is not None and self.parsed.derives(self.qualified, own):
            return False  # a base of the class: its `self` may be one of the class's instances
        return any(self.method in _defines(stmt) for c in line for stmt in c.body)

    def _other_thing(self, value: ast.AST) -> bool:
        """Whether `value` provably is no instance of the class nor the class: a module, a class
        (or a call of one) that does not derive from it, a name from outside the package."""
        if isinstance(value, ast.Call):
            value = value.func
            if not isinstance(value, (ast.Name, ast.Attribute)):
                return False
        qualified = self.names.qualify(value)
        if qualified is None:
            return False
        if qualified in self.parsed.checkout.modules():
            return True
        if self.parsed.outside(qualified):
            return True
        found = self.parsed.class_def(qualified)
        return found is not None and self.parsed.unrelated(*found[1:], self.qualified) is not None


def _by_name_verb(node: ast.Call) -> str:
    name = callee_name(node)
    return "reads" if name in ("getattr", "hasattr") else "patches"


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _unsubscripted(node: ast.AST) -> ast.AST:
    """`Generic[T]` -> `Generic`: the class a subscripted base stands for."""
    return node.value if isinstance(node, ast.Subscript) else node


def _defines(stmt: ast.stmt) -> set[str]:
    """Names a statement of a class body binds as class attributes."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign)) else []
    return {t.id for t in targets if isinstance(t, ast.Name)}
