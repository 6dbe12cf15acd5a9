"""References to names that leave a module, anywhere in the checkout: rewritten, or listed.

For each moved name (a module global going from OLD to its new module NEW), in every file of
the checkout but the two the extraction itself rewrites:
- `from OLD import NAME [as X]` (relative too) becomes `from NEW import NAME [as X]`, split so
  that only the moved names change, formatted as isort does;
- `OLD.NAME` through the module (`mr.NAME`, `model_runner.NAME`, the dotted path after a plain
  import) becomes `NEW.NAME`, the file importing NEW right after each import of OLD the
  reference comes from (so it is loaded when and where OLD was); the same for the module
  argument of `patch.object(mr, "NAME")`, `monkeypatch.setattr(mr, "NAME", ...)` and the like;
- a string `"OLD.NAME"` (`mock.patch("OLD.NAME")`, `monkeypatch.setattr("OLD.NAME", x)`)
  becomes `"NEW.NAME"`.
A name OLD imports back (it still uses it) keeps its reads through OLD; patching or setting
it through either module would now miss the other module's readers, so that is refused, as is
anything else that cannot be rewritten exactly, every place at once (`Conflicts`).
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

import libcst as cst

from pysource import parsing
from pysource.checkout import Checkout
from codemods.core.errors import Conflicts, Location
from pysource.imports import PATCHERS, FileNames, callee_name, nodes
from pysource.modules import absolute_module
from codemods.core.formatting import Style, format_import
from codemods.syntax.import_statements import module_name
from codemods.checkout.patched_reads import patches_missing_moved_code
from codemods.syntax.source_edits import SourceEdits
from pysource.text_search import search_near

@dataclass(frozen=True)
class Move:
    """Module globals leaving `old`: {name: the module that defines it from now on}."""

    old: str
    names: dict[str, str]
    still_bound: frozenset[str] = frozenset()  # moved names `old` still binds (imports back)

    def new_path(self, dotted: str) -> Optional[str]:
        """`NEW.NAME...` for a dotted path `OLD.NAME...` of a moved name, else None."""
        for name, new in self.names.items():
            if dotted == f"{self.old}.{name}" or dotted.startswith(f"{self.old}.{name}."):
                return new + dotted[len(self.old):]
        return None


@dataclass
class FileChanges:
    """One file: the edits its references need, and those it cannot have."""

    path: Path
    edits: SourceEdits
    conflicts: list[Location] = field(default_factory=list)

    def refuse(self, node: ast.AST, why: str) -> None:
        self.conflicts.append(Location(self.path, node.lineno, why))


def update_references(checkout: Checkout, move: Move, style: Style, skip: Iterable[Path] = (), *,
                      function: str = "", new: str = "", reads: Iterable[str] = (), copies: Iterable[str] = ()
                      ) -> dict[Path, tuple[str, str]]:
    """`plan_references`, and `patches_missing_moved_code` for `function` moving to `new`: the
    changes, or `Conflicts` listing every place of both kinds."""
    changes, conflicts = plan_references(checkout, move, style, skip)
    conflicts += patches_missing_moved_code(checkout, move.old, new, function, reads, copies, skip)
    if conflicts:
        raise Conflicts(conflicts)
    return changes


def plan_references(checkout: Checkout, move: Move, style: Style, skip: Iterable[Path] = ()
                    ) -> tuple[dict[Path, tuple[str, str]], list[Location]]:
    """({path: (old text, new text)} for every file to update, [every place that cannot be])."""
    skip = {Path(p).resolve() for p in skip}
    tail = move.old.rpartition(".")[2].encode()
    names = [n.encode() for n in move.names]
    changes: dict[Path, tuple[str, str]] = {}
    conflicts: list[Location] = []
    for path in checkout.select(lambda data: any(n in data for n in names), mentioning=tail):
        if path in skip:
            continue
        try:
            text = checkout.data(path).decode("utf-8")
            tree = parsing.parse(text, str(path))
        except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None) or 1
            conflicts.append(Location(path, line, f"cannot parse the file ({exc.__class__.__name__}), so its "
                                                  f"references to {move.old} cannot be checked: fix it first"))
            continue
        file = FileChanges(path, SourceEdits(text))
        bindings = FileNames(tree, checkout.package_of(path), checkout.module_of(path) or f"<{path}>", text=text)
        _References(file, bindings, move, style).visit(tree)
        conflicts += file.conflicts
        if file.edits and not file.conflicts:
            changes[path] = (text, file.edits.result())
    return changes, conflicts


class _References(ast.NodeVisitor):
    def __init__(self, file: FileChanges, names: FileNames, move: Move, style: Style):
        self.file, self.names, self.move, self.style = file, names, move, style

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if absolute_module(node, self.names.package) != self.move.old:
            return
        if any(a.name == "*" for a in node.names):
            self._star(node)
        elif any(a.name in self.move.names for a in node.names):
            if not self.file.edits.alone_on_its_lines(node):
                self.file.refuse(node, f"imports a moved name from {self.move.old} on a line holding other "
                                       f"statements: put the import on a line of its own first")
            else:
                start, end = self.file.edits.lines(node)
                self.file.edits.replace(start, end, self._split(node))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        if node.attr not in self.move.names:
            return
        if self.names.qualify(node.value) == self.move.old:
            if node.attr not in self.move.still_bound:
                self._retarget(node.value, node.attr)
            elif not isinstance(node.ctx, ast.Load):
                self._both_bound(node, node.attr, f"sets {self.move.old}.{node.attr}")
        elif self.names.ambiguous(node.value, self.move.old):
            self._ambiguous(node.value, node.attr)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or not node.value.startswith(self.move.old + "."):
            return
        new = self.move.new_path(node.value)
        if new is None:
            return
        name = node.value[len(self.move.old) + 1:].split(".")[0]
        if name in self.move.still_bound:
            if node.value == f"{self.move.old}.{name}":
                self._both_bound(node, name, f"patches {node.value!r}")
            return
        spelled = self.file.edits.segment(node)
        if spelled.count(node.value) != 1:
            self.file.refuse(node, f"names {node.value!r}, which moves to {new!r}, in a string spelled in a "
                                   f"way this tool does not rewrite: write {new!r} there")
        else:
            self.file.edits.replace_node(node, spelled.replace(node.value, new))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        for part in node.values:
            if isinstance(part, ast.Constant) and any(f"{self.move.old}.{n}" in part.value for n in self.move.names):
                self.file.refuse(node, f"names a moved name of {self.move.old} in an f-string, which this tool "
                                       f"does not rewrite: write its new module there")
            elif not isinstance(part, ast.Constant):
                self.visit(part)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if not node.args:
            return
        module = node.args[0]
        is_old = self.names.qualify(module) == self.move.old
        is_old_text = isinstance(module, ast.Constant) and module.value == self.move.old
        for kw in node.keywords if callee_name(node) == "multiple" and (is_old or is_old_text) else ():
            if kw.arg in self.move.names:
                self.file.refuse(node, f"patches {self.move.old}.{kw.arg} by keyword, which moves to "
                                       f"{self.move.names[kw.arg]}: patch it there instead")
        if len(node.args) < 2 or not _is_str(node.args[1]) or node.args[1].value not in self.move.names:
            return
        name = node.args[1].value
        if is_old:
            if name not in self.move.still_bound:
                self._retarget(module, name)
            elif callee_name(node) in PATCHERS:
                self._both_bound(node, name, f"patches {self.move.old}.{name}")
        elif self.names.ambiguous(module, self.move.old):
            self._ambiguous(module, name)

    def _split(self, node: ast.ImportFrom) -> str:
        """The import statement's lines with the moved names imported from their new modules."""
        indent = self.file.edits.indent(node)
        line = cst.parse_statement(textwrap.dedent(self.file.edits.whole_lines(node)) + "\n")
        small = line.body[0]
        moved = [a for a in small.names if module_name(a.name) in self.move.names]
        rest = [a for a in small.names if a not in moved]
        out: list[cst.SimpleStatementLine] = []
        if rest:  # the commas stay as they were (with their comments), but a bare trailing one
            comma = rest[-1].comma
            if not (isinstance(comma, cst.Comma) and "#" in cst.Module([]).code_for_node(comma)):
                rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            out.append(format_import(line.with_changes(body=[small.with_changes(names=rest)]), self.style))
        for new in dict.fromkeys(self.move.names[module_name(a.name)] for a in moved):
            names = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in moved
                     if self.move.names[module_name(a.name)] == new]
            stmt = cst.SimpleStatementLine(body=[cst.ImportFrom(module=cst.parse_expression(new), names=names)])
            if not rest and not out:  # the line's comment (`# noqa`) goes with it
                stmt = stmt.with_changes(trailing_whitespace=line.trailing_whitespace)
            out.append(format_import(stmt, self.style))
        code = cst.Module(body=out).code.rstrip("\n")
        return textwrap.indent(code, indent) if indent else code

    def _retarget(self, module: ast.expr, name: str) -> None:
        """Make `module` (an expression standing for OLD) stand for the module `name` moves to."""
        new = self.move.names[name]
        root = module
        while isinstance(root, ast.Attribute):
            root = root.value
        binders = self.names.binders.get(root.id, [])
        if self.names.imported[root.id] == {root.id} and new.split(".")[0] == root.id:
            # `import a.b.old` then `a.b.old.NAME`: the dotted path of NEW, imported the same way
            spelled, companion = new, f"import {new}"
            binders = [b for b in binders if any(a.name == self.move.old or a.name.startswith(self.move.old + ".")
                                                 for a in b.names)]
        else:
            package, _, spelled = new.rpartition(".")
            companion = f"from {package} import {spelled}" if package else f"import {spelled}"
            already = self.names.imported.get(spelled) == {new} and spelled not in self.names.bound_otherwise
            if already and any(b in self.names.tree.body for b in self.names.binders[spelled]):
                binders = []
            elif not already and not self.names.is_free(spelled):
                self.file.refuse(module, f"reads {self.move.old}.{name}, which moves to {new}; the name "
                                         f"{spelled!r} is taken in this file, so it cannot import {new} for it: "
                                         f"import {name} from {new} there first")
                return
        for binder in binders:
            if not self.file.edits.alone_on_its_lines(binder):
                self.file.refuse(binder, f"imports {self.move.old} on a line holding other statements, and "
                                         f"{new} must be imported after it: put the import on a line of its own")
                return
        self.file.edits.replace_node(module, spelled)
        for binder in binders:
            self.file.edits.add_after(binder, _formatted(companion, self.style))

    def _star(self, node: ast.ImportFrom) -> None:
        used = sorted({n.id for n in nodes(self.names.tree) if isinstance(n, ast.Name)}
                      & set(self.move.names) - self.move.still_bound)
        for name in used:
            self.file.refuse(node, f"`from {self.move.old} import *` will no longer provide {name}, which this "
                                   f"file uses: import it from {self.move.names[name]}")

    def _both_bound(self, node: ast.AST, name: str, does: str) -> None:
        self.file.refuse(node, f"{does}, but {name} is now bound in both {self.move.old} (imported back) and "
                               f"{self.move.names[name]}: this would reach only one module's readers; patch "
                               f"both, or neither")

    def _ambiguous(self, node: ast.expr, name: str) -> None:
        root = self.names.ambiguous(node, self.move.old)
        self.file.refuse(node, f"{root!r} may be the module {self.move.old} here (imported as such, bound "
                               f"otherwise too), whose {name} moves to {self.move.names[name]}: rename one of them")


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _formatted(statement: str, style: Style) -> str:
    return cst.Module(body=[format_import(cst.parse_statement(statement + "\n"), style)]).code.rstrip("\n")


def referenced_elsewhere(checkout: Checkout, module: str, other: str, names: set[str], style: Style,
                          skip: set[Path]) -> set[str]:
    """Which of `names` some other file of the checkout reads through `module` (`from module
    import NAME`, `module.NAME`, `"module.NAME"`: a reference that moving NAME to `other` would
    rewrite): the module keeps binding them. A name no file spells next to the module's name
    (`may_reference`) is not looked for."""
    tail = module.rpartition(".")[2]
    return {n for n in names if any(checkout.select(lambda data: may_reference(data, tail, n),
                                                    mentioning=tail.encode()))
            and any(plan_references(checkout, Move(module, {n: other}), style, skip))}


def may_reference(data: bytes, tail: str, name: str) -> bool:
    """A cheap test, true whenever a file may read `name` through module `...tail`: importing it
    from there (`from ...tail import (..., name`), as an attribute or in a dotted string
    (`tail.name`), or binding the module under another name (`... tail as x`)."""
    spelled = tail.encode()
    t, n = re.escape(spelled), re.escape(name.encode())
    return name.encode() in data and spelled in data and bool(
        re.search(rb"from\s+[\w.]*\b" + t + rb"\s+import\s*\(?[\w\s,]*\b" + n + rb"\b", data)
        or search_near(re.compile(rb"\b" + t + rb"\s*\.\s*" + n + rb"\b"), data, spelled)
        or search_near(re.compile(rb"\b" + t + rb"\s+as\s+\w"), data, spelled))
