"""What the names of one file stand for, read off its imports (Python's `ast`, every scope).

`qualify(node)` is the dotted name an expression spells through the file's imports: `mr.TABLE`
after `import sglang.srt.model_executor.model_runner as mr` (anywhere in the file) is
`sglang.srt.model_executor.model_runner.TABLE`. A name that an import binds and something else
binds too (a parameter, an assignment, a second import of something else) is ambiguous:
`qualify` gives None and `ambiguous` names it, so that callers refuse rather than guess.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator, Optional

from pysource.modules import bindings_of_import


def nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node under `tree`, each before its children (`ast.walk`, about twice as fast)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


PATCHERS = {"object", "setattr", "delattr"}  # patch.object(m, "N"), monkeypatch.setattr(m, "N", v), ...


def callee_name(call: ast.Call) -> Optional[str]:
    """`object` for `mock.patch.object(...)`, `setattr` for `setattr(...)`: the name called."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


# the node classes FileNames looks at, by what it does with them (one lookup per node of a file)
_KINDS = {ast.Name: ast.Name, ast.arg: ast.arg, ast.Import: ast.Import, ast.ImportFrom: ast.ImportFrom,
          ast.FunctionDef: ast.FunctionDef, ast.AsyncFunctionDef: ast.FunctionDef, ast.ClassDef: ast.FunctionDef,
          ast.ExceptHandler: ast.ExceptHandler, ast.MatchAs: ast.ExceptHandler, ast.MatchStar: ast.ExceptHandler}


class FileNames:
    """The imports and other bindings of one parsed file."""

    def __init__(self, tree: ast.Module, package: Optional[str], module: Optional[str] = None,
                 each: Optional[Callable[[ast.AST], None]] = None):
        """`each`, if given, is called on every node of the one walk this makes."""
        self.tree = tree
        self.package = package
        self.imported: dict[str, set[str]] = {}  # local name -> what its imports bind it to
        self.binders: dict[str, list[ast.stmt]] = {}  # local name -> the import statements binding it
        self.bound_otherwise: dict[str, int] = {}  # name -> how many other bindings it has
        self.used: set[str] = set()  # every Name in the file
        self.classes: dict[str, str] = {}  # top-level class -> qualified name, when bound once
        self.class_defs: list[ast.ClassDef] = []  # every class statement, nested ones too, in walk order
        other, used = self.bound_otherwise, self.used
        for node in nodes(tree):
            if each is not None:
                each(node)
            kind = _KINDS.get(node.__class__)
            if kind is None:
                continue
            if kind is ast.Name:
                used.add(node.id)
                if node.ctx.__class__ is not ast.Load:
                    other[node.id] = other.get(node.id, 0) + 1
            elif kind is ast.arg:
                other[node.arg] = other.get(node.arg, 0) + 1
            elif kind is ast.FunctionDef:  # a def or a class
                other[node.name] = other.get(node.name, 0) + 1
                if node.__class__ is ast.ClassDef:
                    self.class_defs.append(node)
            elif kind is ast.ExceptHandler:  # or a match capture
                if node.name:
                    other[node.name] = other.get(node.name, 0) + 1
            else:  # an import
                for b in bindings_of_import(node, package):
                    if kind is ast.ImportFrom and b.from_module is None:  # a relative import without a package
                        self._other(b.name)
                    else:
                        self._import(b.name, b.qualname, node)
        prefix = f"{module}." if module else "<file>."
        for s in tree.body:
            if isinstance(s, ast.ClassDef) and self.bound_otherwise[s.name] == 1 and s.name not in self.imported:
                self.classes[s.name] = prefix + s.name

    def _other(self, name: str) -> None:
        self.bound_otherwise[name] = self.bound_otherwise.get(name, 0) + 1

    def _import(self, name: str, target: str, stmt: ast.stmt) -> None:
        self.imported.setdefault(name, set()).add(target)
        self.binders.setdefault(name, []).append(stmt)

    def qualify(self, node: ast.AST) -> Optional[str]:
        """The dotted name `node` (a name or an attribute chain) stands for, or None."""
        if isinstance(node, ast.Attribute):
            inner = self.qualify(node.value)
            return None if inner is None else f"{inner}.{node.attr}"
        if not isinstance(node, ast.Name):
            return None
        targets = self.imported.get(node.id)
        if targets is None:
            return self.classes.get(node.id)
        if len(targets) != 1 or node.id in self.bound_otherwise:
            return None
        return next(iter(targets))

    def ambiguous(self, node: ast.AST, meaning: str) -> Optional[str]:
        """The root name of `node` when one of its imports could make `node` mean `meaning` but
        the name is bound otherwise too (so `qualify` cannot tell)."""
        root, rest = node, []
        while isinstance(root, ast.Attribute):
            rest.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in self.imported or self.qualify(root) is not None:
            return None
        spelled = ".".join(reversed(rest))
        for target in self.imported[root.id]:
            if (f"{target}.{spelled}" if spelled else target) == meaning:
                return root.id
        return None

    def is_free(self, name: str) -> bool:
        """Whether `name` appears nowhere in the file as a name (so an import may bind it)."""
        return name not in self.used and name not in self.imported and name not in self.bound_otherwise
