"""Free names of moved code, by scope analysis on a small module made of just that code."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import libcst as cst

from pysource import names, parsing
from codemods.core.errors import Refusal
from codemods.syntax.import_placement import from_import
from codemods.syntax.import_statements import Binding, imported_module, index_bindings, restricted_import
from codemods.syntax.rebinding import changes
from codemods.syntax.type_checking import type_checking_imports

def free_names(stmts: Sequence[cst.BaseStatement]) -> set[str]:
    """Names read by `stmts` that nothing in them binds and that are not builtins
    (`pysource.names.free_names` on their code)."""
    return names.free_names(cst.Module(body=list(stmts)).code)


@dataclass(frozen=True)
class Annotations:
    """The names only the moved function's annotations use, and how the target reads them."""

    names: frozenset[str] = frozenset()
    lazy: bool = False  # the target has (or, new, gets) `from __future__ import annotations`
    source_module: str = ""  # the class's module (what it defines is imported from there)
    first_party: str = ""  # the package whose names are imported under TYPE_CHECKING (`sglang`)


def travelling_code(module: cst.Module, text: str, moved: Sequence[cst.BaseStatement], package: str, path: Path,
                    moved_names: set[str], use_line: Callable[[str], Optional[int]],
                    annotations: Annotations = Annotations(),
                    ) -> tuple[list[cst.SimpleStatementLine], list[cst.BaseStatement], list[cst.SimpleStatementLine]]:
    """What must come along with `moved`: restricted imports and module globals (transitively),
    and the imports only annotations need, for under `if TYPE_CHECKING:` (`type_imports`).

    In a lazy target a name only annotations use is imported under TYPE_CHECKING when it comes
    from the package (`first_party`), from the source's own TYPE_CHECKING block, or is defined by
    the source module itself; any other is imported as the source imports it.

    A module global is copied only when its value has a form known to give the same value in
    the new module (`_copyable`) and nothing in the source module rebinds or mutates it
    (`rebinding.changes`): else the two modules' copies could differ. Refusals give the line
    where the moved code uses the name (`use_line`).
    Returns (imports, globals, type imports) in their original order; globals are copies without
    comments.
    """
    bindings = index_bindings(module)
    wanted_imports: dict[int, set[str]] = {}
    wanted_globals: dict[int, str] = {}
    typed = _TypeImports(module, bindings, package, annotations) if annotations.lazy else None
    todo = sorted(free_names(moved) - moved_names)
    seen: set[str] = set()
    chains: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found: list[Binding] = bindings.get(name, [])
        if typed is not None and name in annotations.names and typed.add(name, found):
            continue
        if not found:
            why = "a star import may bind it" if "*" in bindings else "nothing at module level binds it"
            raise Refusal(f"moved code uses {name!r}, which cannot be resolved: {why}", path, use_line(name))
        kinds = {b.kind for b in found}
        if kinds == {"import"}:
            # `import importlib.util` where the moved code reads importlib.util.X: that very import
            # (the plain `import importlib` does not load the submodule)
            chains = chains or _dotted_uses(moved)
            submodules = [b for b in found if b.alias is not None and not b.alias.asname and "." in _alias_full(b)
                          and isinstance(module.body[b.index].body[0], cst.Import)
                          and any(c == _alias_full(b) or c.startswith(_alias_full(b) + ".") for c in chains)]
            best = [b for b in found if b.alias is not None and b.name == _alias_full(b)] or found
            for b in submodules or best[:1]:
                wanted_imports.setdefault(b.index, set()).add(name)
        elif kinds == {"assign"} and len({b.index for b in found}) == 1:
            idx = found[0].index
            if idx not in wanted_globals:
                wanted_globals[idx] = name
                todo.extend(sorted(free_names([module.body[idx]]) - seen))
        else:
            what = {"definition": "a module-level function or class", "conditional":
                    "a name bound inside an if/try block (e.g. TYPE_CHECKING)", "assign": "assigned more than once",
                    "import": "imported more than once"}
            kind = next(k for k in ("definition", "conditional", "assign", "import") if k in kinds)
            if name in annotations.names and kind in ("definition", "conditional"):
                raise Refusal(f"the moved function's annotations use {name!r}, {what[kind]} in the source module: "
                              f"the target has no `from __future__ import annotations`, so they would be evaluated "
                              f"there; add that import to the target first (the name is then imported under "
                              f"TYPE_CHECKING)", path, use_line(name))
            if kind == "definition":
                raise Refusal(f"moved code uses {name!r}, a module-level function or class the source module "
                              f"defines (line {_definition_line(text, name)}): the moved code could only import it "
                              f"from there, which closes an import cycle; move it by hand first to a module both "
                              f"can import (such as the target), then run again", path, use_line(name))
            at = _conditional_line(text, name) if kind == "conditional" else None
            where = f" (line {at})" if at is not None else ""
            raise Refusal(f"moved code uses {name!r}, {what[kind]} in the source module{where}; move it by hand",
                          path, use_line(name) or at)
    changed = changes(text, wanted_globals.values())
    for idx, name in sorted(wanted_globals.items()):
        if name in changed:
            at, what = changed[name]
            raise Refusal(f"moved code uses the module global {name!r}, which {what} at line {at} may change: "
                          f"a copy in the new module would not follow it; move it by hand", path, use_line(name))
        if not _copyable(module.body[idx], bindings):
            raise Refusal(f"moved code uses the module global {name!r}, whose value is not a literal, an imported "
                          f"name or a call of an imported function (or an operation on these): a copy in the new "
                          f"module may not equal it; move it by hand", path, use_line(name))
    imports = [restricted_import(module.body[i], names, package) for i, names in sorted(wanted_imports.items())]
    globals_ = [_without_comments(module.body[i]) for i in sorted(wanted_globals)]
    return imports, globals_, typed.imports() if typed is not None else []


def _dotted_uses(moved: Sequence[cst.BaseStatement]) -> set[str]:
    """The dotted names the moved code reads (`importlib.util.find_spec`, and each prefix)."""
    out = set()
    for node in ast.walk(ast.parse(cst.Module(body=list(moved)).code)):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and parts:
            dotted = [node.id, *reversed(parts)]
            out |= {".".join(dotted[:i]) for i in range(2, len(dotted) + 1)}
    return out


def _conditional_line(text: str, name: str) -> Optional[int]:
    """The line of the first binding of `name` inside a top-level if/try/with block, if any."""
    for top in parsing.parse(text).body:
        if not isinstance(top, (ast.If, ast.Try, ast.With)):
            continue
        for n in ast.walk(top):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name.split(".")[0]) == name for a in n.names):
                    return n.lineno
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
                return n.lineno
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name:
                return n.lineno
    return None


def _definition_line(text: str, name: str) -> int:
    """The line of the module-level `def`/`class` binding `name` (its first, if several)."""
    return next(n.lineno for n in parsing.parse(text).body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name)


class _TypeImports:
    """The imports a lazy target takes under `if TYPE_CHECKING:` for names only annotations use."""

    def __init__(self, module: cst.Module, bindings: dict, package: str, annotations: Annotations):
        self.module, self.bindings, self.package, self.a = module, bindings, package, annotations
        self.guarded = type_checking_imports(module)
        self.lines: dict[int, tuple[cst.SimpleStatementLine, set[str]]] = {}  # id(import line) -> names
        self.own: list[str] = []  # names the source module defines

    def add(self, name: str, found: list[Binding]) -> bool:
        """Whether `name` is imported under TYPE_CHECKING (else it travels as any other name)."""
        kinds = {b.kind for b in found}
        if kinds == {"import"} and len(found) == 1:
            stmt = self.module.body[found[0].index]
            small = next(s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom)))
            if imported_module(small, found[0].alias, self.package).split(".")[0] != self.a.first_party:
                return False
        elif kinds == {"conditional"} and name in self.guarded:
            stmt = self.guarded[name]
        elif len(found) == 1 and kinds <= {"definition", "assign"}:
            self.own.append(name)
            return True
        else:
            return False
        self.lines.setdefault(id(stmt), (stmt, set()))[1].add(name)
        return True

    def imports(self) -> list[cst.SimpleStatementLine]:
        out = [restricted_import(stmt, names, self.package) for stmt, names in self.lines.values()]
        return out + ([from_import(self.a.source_module, sorted(self.own))] if self.own else [])


# builtins whose call on copyable values gives an equal value in any module (not rebound there)
PURE_BUILTINS = {"frozenset", "set", "tuple", "list", "dict", "int", "float", "str", "bool"}


def _copyable(stmt: cst.BaseStatement, bindings: dict[str, list[Binding]]) -> bool:
    """`NAME = value` (one plain assignment) whose value is built only from literals, imported
    names, module globals (themselves checked when copied), displays, operators, comparisons and
    conditional expressions of these and calls of imported functions: `is_hip()`,
    `logging.getLogger(__name__)`, `get_bool_env_var("SGLANG_USE_AITER") and _is_hip`, or of a
    builtin that builds a value from them: `frozenset({"nsa", "dsa"})`."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return False
    small = stmt.body[0]
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        value = small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        value = small.value
    else:
        return False

    def kind(name: str) -> set[str]:
        return {b.kind for b in bindings.get(name, [])}

    def imported_root(node) -> bool:
        while isinstance(node, cst.Attribute):
            node = node.value
        return isinstance(node, cst.Name) and kind(node.value) == {"import"}

    def safe(node) -> bool:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(node, cst.Name):
            return node.value in ("True", "False", "None", "__name__") or kind(node.value) in ({"import"}, {"assign"})
        if isinstance(node, cst.Attribute):
            return imported_root(node)
        if isinstance(node, cst.UnaryOperation):
            return safe(node.expression)
        if isinstance(node, (cst.BooleanOperation, cst.BinaryOperation)):
            return safe(node.left) and safe(node.right)
        if isinstance(node, cst.Comparison):
            return safe(node.left) and all(safe(c.comparator) for c in node.comparisons)
        if isinstance(node, cst.IfExp):
            return safe(node.test) and safe(node.body) and safe(node.orelse)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return all(isinstance(e, cst.Element) and safe(e.value) for e in node.elements)
        if isinstance(node, cst.Dict):
            return all(isinstance(e, cst.DictElement) and safe(e.key) and safe(e.value) for e in node.elements)
        if isinstance(node, cst.Call):
            pure = isinstance(node.func, cst.Name) and node.func.value in PURE_BUILTINS and not kind(node.func.value) \
                and all(a.keyword is None and not a.star for a in node.args)
            return (pure or imported_root(node.func)) and all(safe(a.value) for a in node.args)
        return False

    return safe(value)


def _alias_full(b: Binding) -> str:
    return cst.Module([]).code_for_node(b.alias.name)


def _without_comments(s: cst.BaseStatement) -> cst.BaseStatement:
    """A copy to place in another module: comments stay with the original."""
    s = s.with_changes(leading_lines=())
    if isinstance(s, cst.SimpleStatementLine):
        s = s.with_changes(trailing_whitespace=cst.TrailingWhitespace())
    if "#" in cst.Module(body=[s]).code:
        s = cst.parse_statement(_strip_comments(cst.Module(body=[s]).code))
    return s


def _strip_comments(code: str) -> str:
    return cst.Module(body=[cst.parse_statement(code).visit(_CommentStripper())]).code


class _CommentStripper(cst.CSTTransformer):
    def leave_Comment(self, original, updated):
        return cst.RemovalSentinel.REMOVE

    def leave_EmptyLine(self, original, updated):
        return cst.RemovalSentinel.REMOVE if updated.comment is None and original.comment is not None else updated
