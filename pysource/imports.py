"""What the names of one file stand for, read off its imports (Python's `ast`, every scope).

`qualify(node)` is the dotted name an expression spells through the file's imports: `mr.TABLE`
after `import sglang.srt.model_executor.model_runner as mr` (anywhere in the file) is
`sglang.srt.model_executor.model_runner.TABLE`. A name that an import binds and something else
binds too (a parameter, an assignment, a second import of something else) is ambiguous:
`qualify` gives None and `ambiguous` names it, so that callers refuse rather than guess.
"""

from __future__ import annotations

import ast
import bisect
import re
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


def parents_of(tree: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> its parent, for every node under `tree` (one walk as `nodes`'; the operator and
    context nodes that the parser shares between uses get one of theirs)."""
    parents: dict[int, ast.AST] = {}
    todo = [tree]
    while todo:
        n = todo.pop()
        for name in n._fields:
            value = getattr(n, name, None)
            if value.__class__ is list:
                for v in value:
                    if isinstance(v, ast.AST):
                        parents[id(v)] = n
                        todo.append(v)
            elif isinstance(value, ast.AST):
                parents[id(value)] = n
                todo.append(value)
    return parents


PATCHERS = {"object", "setattr", "delattr"}  # patch.object(m, "N"), monkeypatch.setattr(m, "N", v), ...


def callee_name(call: ast.Call) -> Optional[str]:
    """`object` for `mock.patch.object(...)`, `setattr` for `setattr(...)`: the name called."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


# the node classes FileNames looks at, by what it does with them (one lookup per node of a file)
_KINDS = {ast.Name: ast.Name, ast.arg: ast.arg, ast.Import: ast.Import, ast.ImportFrom: ast.ImportFrom,
          ast.FunctionDef: ast.FunctionDef, ast.AsyncFunctionDef: ast.FunctionDef, ast.ClassDef: ast.FunctionDef,
          ast.ExceptHandler: ast.ExceptHandler, ast.MatchAs: ast.ExceptHandler, ast.MatchStar: ast.ExceptHandler}
# where statements (and so imports and classes) are: the other fields hold expressions
_STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
MAX_NAMES_BY_LINE = 24  # names answered from the lines that spell them; past that, one walk of every node


class FileNames:
    """The imports and other bindings of one parsed file.

    Given the file's text, a name's other bindings are counted from the lines that spell it (a
    binding of a name is a node spelling it, and its ancestors' lines hold that line): only the
    statements holding those lines are walked, for the names a caller asks about (and those holding
    a character outside ASCII, which the parser may read as one of the name's: `ﬁle` is `file`).
    Without the text (or with a `\\r`, which the parser may count as a line end), one walk of every
    node counts every name at once, as it does past `MAX_NAMES_BY_LINE` names."""

    def __init__(self, tree: ast.Module, package: Optional[str], module: Optional[str] = None,
                 each: Optional[Callable[[ast.AST], None]] = None, text: Optional[str] = None):
        """`each`, if given, is called on every node of one walk of the whole file."""
        self.tree = tree
        self.package = package
        self.imported: dict[str, set[str]] = {}  # local name -> what its imports bind it to
        self.binders: dict[str, list[ast.stmt]] = {}  # local name -> the import statements binding it
        self.class_defs: list[ast.ClassDef] = []  # every class statement, nested ones too, in walk order
        self.bound_otherwise = _Counts(self, 0)  # name -> how many other bindings it has
        self.used = _Counts(self, 1)  # every name a Name spells
        self._prefix = f"{module}." if module else "<file>."
        self._unresolved: dict[str, int] = {}  # names of relative imports without a package: other bindings
        self._counted: dict[str, tuple[int, bool]] = {}  # name -> (other bindings, spelled by a Name)
        self._all: Optional[tuple[dict[str, int], set[str]]] = None
        self._classes: Optional[dict[str, str]] = None
        self._text = text if text is not None and "\r" not in text else None
        self._newlines: Optional[list[int]] = None
        self._not_ascii: list[int] = []  # lines holding a character outside ASCII
        if each is not None or self._text is None:
            self._count_all(each, statements=True)
        else:
            self._statements()

    @property
    def classes(self) -> dict[str, str]:
        """Top-level class -> qualified name, when bound once."""
        if self._classes is None:
            self._classes = {s.name: self._prefix + s.name for s in self.tree.body if isinstance(s, ast.ClassDef)
                             and self.bound_otherwise[s.name] == 1 and s.name not in self.imported}
        return self._classes

    def counted(self, name: str) -> tuple[int, bool]:
        """(how many bindings other than imports `name` has, whether a Name spells it)."""
        if self._all is None and name not in self._counted:
            if len(self._counted) < MAX_NAMES_BY_LINE:
                self._counted[name] = self._count_by_lines(name)
            else:
                self._count_all(None, statements=False)
        if self._all is not None:
            other, used = self._all
            return other.get(name, 0), name in used
        return self._counted[name]

    def _statements(self) -> None:
        """Imports and class statements, from a walk of the statements only (in `nodes`' order)."""
        todo: list = [self.tree]
        while todo:
            node = todo.pop()
            kind = node.__class__
            if kind is ast.ClassDef:
                self.class_defs.append(node)
            elif kind is ast.Import or kind is ast.ImportFrom:
                self._imports(node)
            for name in _STATEMENT_FIELDS:
                value = getattr(node, name, None)
                if value:
                    todo.extend(value)

    def _count_all(self, each: Optional[Callable[[ast.AST], None]], statements: bool) -> None:
        """Every name's bindings and uses in one walk of every node (`statements`: imports and
        class statements too)."""
        other, used = {}, set()
        for node in nodes(self.tree):
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
                if node.__class__ is ast.ClassDef and statements:
                    self.class_defs.append(node)
            elif kind is ast.ExceptHandler:  # or a match capture
                if node.name:
                    other[node.name] = other.get(node.name, 0) + 1
            elif statements:  # an import
                self._imports(node)
        for name, n in self._unresolved.items():
            other[name] = other.get(name, 0) + n
        self._all = (other, used)

    def lines_of(self, word: str) -> Optional[list[int]]:
        """The lines (sorted) that a node spelling `word` may be on: those holding it, and those
        holding a character outside ASCII; None without the text."""
        text = self._text
        if text is None:
            return None
        if self._newlines is None:
            self._newlines = [m.start() for m in _NEWLINE.finditer(text)]
            if not text.isascii():
                self._not_ascii = sorted({bisect.bisect_left(self._newlines, m.start()) + 1
                                          for m in _NOT_ASCII.finditer(text)})
        lines: list[int] = []
        at = text.find(word)
        while at != -1:
            line = bisect.bisect_left(self._newlines, at) + 1
            if not lines or lines[-1] != line:
                lines.append(line)
            at = text.find(word, at + 1)
        return sorted(set(lines).union(self._not_ascii)) if self._not_ascii else lines

    def _count_by_lines(self, name: str) -> tuple[int, bool]:
        """`counted(name)` from the statements holding the lines that spell `name`."""
        count, used = self._unresolved.get(name, 0), False
        for n in nodes_on_lines(self.tree, self.lines_of(name)):
            kind = _KINDS.get(n.__class__)
            if kind is ast.Name:
                if n.id == name:
                    used = True
                    count += n.ctx.__class__ is not ast.Load
            elif kind is ast.arg:
                count += n.arg == name
            elif kind is ast.FunctionDef or kind is ast.ExceptHandler:
                count += n.name == name
        return count, used

    def _imports(self, node: ast.stmt) -> None:
        for b in bindings_of_import(node, self.package):
            if node.__class__ is ast.ImportFrom and b.from_module is None:  # a relative import without a package
                self._unresolved[b.name] = self._unresolved.get(b.name, 0) + 1
            else:
                self._import(b.name, b.qualname, node)

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


class _Counts:
    """`FileNames.bound_otherwise` (name -> other bindings) and `used` (names a Name spells), each
    name counted when first asked about."""

    def __init__(self, names: FileNames, which: int):
        self._names, self._which = names, which

    def __contains__(self, name: str) -> bool:
        return bool(self._names.counted(name)[self._which])

    def __getitem__(self, name: str) -> int:
        found = self._names.counted(name)[self._which]
        if not found:
            raise KeyError(name)
        return found

    def get(self, name: str, default=None):
        found = self._names.counted(name)[self._which]
        return found if found else default


_NEWLINE = re.compile("\n")
_NOT_ASCII = re.compile("[^\x00-\x7f]")


def nodes_on_lines(tree: ast.AST, lines: list[int], parents: Optional[dict[int, ast.AST]] = None
                   ) -> Iterator[ast.AST]:
    """`nodes(tree)`, in its order, but for the nodes whose lines hold none of `lines` (sorted),
    which are left out with what they hold: every node spelling a word on one of `lines` is
    there (a node's lines hold its children's; a def's, its decorators'), and so is each of its
    ancestors. An f-string is walked whole (the positions inside one are not relied upon).
    `parents`, if given, gets the parent of each node yielded below `tree` (id -> parent)."""
    todo: list = [(tree, False)] if lines else []
    while todo:
        node, whole = todo.pop()
        whole = whole or node.__class__ is ast.JoinedStr
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for v in value:
                    if isinstance(v, ast.AST) and (whole or _holds_a_line(v, lines)):
                        todo.append((v, whole))
                        if parents is not None:
                            parents[id(v)] = node
            elif isinstance(value, ast.AST) and (whole or _holds_a_line(value, lines)):
                todo.append((value, whole))
                if parents is not None:
                    parents[id(value)] = node


def _holds_a_line(node: ast.AST, lines: list[int]) -> bool:
    """Whether the lines of `node` (its decorators' too) hold one of `lines` (sorted); a node
    without a position (`arguments`, `comprehension`, ...) may."""
    first = getattr(node, "lineno", None)
    if first is None:
        return True
    if node.__class__ in _DECORATED and node.decorator_list:
        first = min(first, *(d.lineno for d in node.decorator_list))
    i = bisect.bisect_left(lines, first)
    return i < len(lines) and lines[i] <= node.end_lineno
