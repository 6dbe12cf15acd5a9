"""Module globals the moved code reads, compared value for value between the module the old
method lived in (BEFORE) and the module the function lives in (AFTER).

Each global the AFTER function reads and its module binds is compared with its binding in the
BEFORE module (with `new_code_runs`, a function or class the AFTER module defines, new in the
change, is code the runs execute for real: not a changed global, said as new), and so, in turn, is every global those bindings read (`_is_hip = is_hip()` brings
`is_hip`). An import is compared by the qualified name of the object it imports (relative and
star imports followed); a def or class by the object's qualified name, else structurally; an
assignment structurally, a literal container entry by entry (the first differing entry is named).
Two assignments that differ only in a global bound once to a value are compared again with it
expanded (`... and _is_hip` against `... and is_hip()` with `_is_hip = is_hip()`).
A name a function-level import binds in the moved code (or in the old body) is compared by that
import: the old body's `from TARGET import f` and the target module's own `def f` are the same
object, `TARGET.f`.
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass, field

from pysource.names import global_reads, loaded_names, stored_names
from equivalence.engine.load.moved_functions import moved_unchanged
from pysource.checkout import Checkout
from pysource.modules import import_bindings, module_level_statements, module_name, source_segment

EXPAND_DEPTH = 2
NEW_DEF = "new in this change, defined beside the moved code: it runs for real, so the runs judge what it does"
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class ConstantCheck:
    name: str
    before: str  # source of its binding(s) in the BEFORE module ("" if it has none)
    after: str
    equal: bool
    lines: dict[str, list[int]] = field(default_factory=dict)  # "before"/"after" -> [first, last]
    detail: str = ""  # how it compared, or its first differing entry
    read_by: tuple[str, ...] = ()  # a component's: the moved methods reading it

    def to_json(self) -> dict:
        return {"name": self.name, "before": self.before, "after": self.after, "equal": self.equal,
                "lines": self.lines, "detail": self.detail, **({"read_by": list(self.read_by)} if self.read_by else {})}


@dataclass
class _Side:
    tree: Checkout
    rel: str
    local: dict[str, ast.stmt] = field(default_factory=dict)  # name -> the function-level import binding it

    @property
    def module(self) -> str:
        return module_name(self.rel)

    def bindings(self, name: str, in_code: bool = False) -> list[ast.stmt]:
        """The statements binding `name` at module level; `in_code`: as the code under test sees
        it, a function-level import first."""
        if in_code and name in self.local:
            return [self.local[name]]
        out = []
        for stmt in module_level_statements(self.tree.parse(self.rel).body):
            if isinstance(stmt, DEFS) and stmt.name == name:
                out.append(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                    out.append(stmt)
            elif any(b.name == name for b in import_bindings(stmt, self.rel)):
                out.append(stmt)
        return out

    def qualname(self, stmt: ast.stmt, name: str) -> str | None:
        """The object an import or def binds `name` to, as a canonical dotted name."""
        if isinstance(stmt, DEFS):
            return f"{self.module}.{name}"
        binding = next((b for b in import_bindings(stmt, self.rel) if b.name == name), None)
        return self.tree.canonical(binding.qualname) if binding else None

    def object_name(self, name: str, stmts: list[ast.stmt]) -> str | None:
        """The object `name` is, when the one import or def `stmts` holds, or a star import, binds it."""
        if len(stmts) == 1:
            return self.qualname(stmts[0], name)
        if stmts:
            return None
        own = f"{self.module}.{name}"
        found = self.tree.canonical(own)
        return found if found != own else None

    def source(self, stmts: list[ast.stmt]) -> str:
        text = self.tree.text(self.rel)
        return "\n".join(source_segment(text, s) or "" for s in stmts)

    def expanded(self, expr: ast.expr, depth: int = EXPAND_DEPTH) -> ast.expr:
        """`expr` with each global bound once by a plain assignment replaced by its value."""
        expr = copy.deepcopy(expr)
        for _ in range(depth):
            expr = _Expand(self).visit(expr)
        return expr


class _Expand(ast.NodeTransformer):
    def __init__(self, side: _Side):
        self.side = side

    def visit_Name(self, node: ast.Name) -> ast.AST:
        (stmt, *more) = self.side.bindings(node.id) or [None]
        if stmt is None or more or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 \
                or not isinstance(stmt.targets[0], ast.Name):
            return node
        return copy.deepcopy(stmt.value)


def compare_constants(before_tree: Checkout, before_rel: str, after_tree: Checkout, after_rel: str, names: set[str],
                      before_local: dict[str, ast.stmt] | None = None,
                      after_local: dict[str, ast.stmt] | None = None, uses: set[str] | None = None,
                      new_code_runs: bool = False) -> list[ConstantCheck]:
    """Compare the globals `names` (read by the AFTER function), and those their bindings read;
    `*_local`: the names each side's code binds by a function-level import, with the import;
    `uses`: the dotted names the code reads (`importlib.util.find_spec`), None: any;
    `new_code_runs`: a function or class new in the change beside the moved code is new code the
    runs execute (NEW_DEF), not a changed global (a hand-written PR's helper)."""
    before, after = _Side(before_tree, before_rel, before_local or {}), _Side(after_tree, after_rel, after_local or {})
    out, seen, todo = [], set(), sorted(names)
    while todo:
        name = todo.pop(0)
        if name in seen or hasattr(builtins, name):
            continue
        seen.add(name)
        a_stmts, b_stmts = after.bindings(name, name in names), before.bindings(name, name in names)
        check = ConstantCheck(name, before.source(b_stmts), after.source(a_stmts), False,
                              {k: [s[0].lineno, s[-1].end_lineno] for k, s in (("before", b_stmts), ("after", a_stmts)) if s})
        if new_code_runs and not b_stmts and a_stmts and all(isinstance(s, DEFS) for s in a_stmts) \
                and before.object_name(name, b_stmts) is None and not _defined_before(before_tree, after_rel, name):
            check.equal, check.detail = True, NEW_DEF  # its code is the after version's own: the runs judge it
        elif not a_stmts or not b_stmts:
            b_q, a_q = before.object_name(name, b_stmts), after.object_name(name, a_stmts)
            check.equal = a_q is not None and a_q == b_q
            check.detail = (f"the same object: {a_q}" if check.equal else
                            f"not bound in {after_rel}: reading it raises NameError" if not a_stmts and a_q is None
                            else f"not bound in {before_rel}" if not b_stmts and b_q is None
                            else f"before {b_q}, after {a_q}")
        elif _plain_imports(b_stmts, name) and _plain_imports(a_stmts, name):
            # `import importlib` and `import importlib.util` bind one object, the top module; what
            # differs is which submodules are loaded: the after module must load those the before did
            b_loaded, a_loaded = _plain_imports(b_stmts, name) - {name}, _plain_imports(a_stmts, name) - {name}
            lacking = sorted(m for m in b_loaded - a_loaded
                             if uses is None or any(u == m or u.startswith(m + ".") for u in uses))
            check.equal = not lacking
            check.detail = (f"the same object: {name}" + (f", with {', '.join(sorted(a_loaded))} imported" if a_loaded
                                                          else "") if check.equal else
                            f"{', '.join(lacking)} imported before, not after: {name}.{lacking[0].partition('.')[2]} "
                            f"may not exist there")
        elif len(a_stmts) != len(b_stmts):
            check.detail = f"bound {len(b_stmts)} time(s) before, {len(a_stmts)} after"
        else:
            results = [_compare(before, b, after, a, name) for b, a in zip(b_stmts, a_stmts)]
            check.equal = all(r[0] for r in results)
            check.detail = "; ".join(dict.fromkeys(r[1] for r in results if r[1]))
            todo += sorted(set().union(*(r[2] for r in results)) - seen)
        out.append(check)
    return out


def _defined_before(tree: Checkout, rel: str, name: str) -> bool:
    """Whether the BEFORE tree's version of the module `rel` defines `name` (then it is no new code)."""
    return tree.exists(rel) and any(isinstance(s, DEFS) and s.name == name
                                    for s in module_level_statements(tree.parse(rel).body))


def _plain_imports(stmts: list[ast.stmt], name: str) -> set[str]:
    """The dotted names `import NAME`, `import NAME.sub` statements import (all of `stmts` are
    such), else the empty set."""
    out = set()
    for stmt in stmts:
        if not isinstance(stmt, ast.Import):
            return set()
        for alias in stmt.names:
            if alias.name.split(".")[0] == name and not alias.asname:
                out.add(alias.name)
            elif (alias.asname or alias.name.split(".")[0]) == name:
                return set()
    return out


def _compare(before: _Side, b: ast.stmt, after: _Side, a: ast.stmt, name: str) -> tuple[bool, str, set[str]]:
    """(equal, detail, globals to compare next)."""
    b_q, a_q = before.qualname(b, name), after.qualname(a, name)
    if b_q and a_q and b_q != a_q and moved_unchanged(before.tree, b_q, after.tree, a_q):
        return True, f"moved from {b_q} to {a_q}, its code unchanged", set()
    if b_q and a_q and (b_q == a_q or not (isinstance(b, DEFS) and isinstance(a, DEFS))):
        detail = f"the same object: {a_q}" if b_q == a_q else f"before {b_q}, after {a_q}"
        return b_q == a_q, detail, set()
    if isinstance(b, DEFS) or isinstance(a, DEFS):
        equal = type(b) is type(a) and ast.dump(b) == ast.dump(a)
        return equal, "" if equal else f"the {type(a).__name__} differs", _reads(a)
    b_value, a_value = getattr(b, "value", None), getattr(a, "value", None)
    if type(b) is not type(a) and not {type(b), type(a)} <= {ast.Assign, ast.AnnAssign}:
        return False, f"bound by a {type(b).__name__} before, a {type(a).__name__} after", set()
    reads = _reads(a)
    if _dump(b_value) == _dump(a_value):
        moved = "__name__" in reads and before.module != after.module
        note = f"reads __name__: {before.module} before, {after.module} after" if moved else "the same statement"
        return True, note, reads - {"__name__"}
    entry = _first_entry_difference(before, b_value, after, a_value)
    if entry:
        return False, entry, reads
    if _dump(before.expanded(b_value)) == _dump(after.expanded(a_value)):
        return True, "equal once the globals it reads are expanded to their values", reads
    return False, "the value differs", reads


def _dump(node) -> str:
    return ast.dump(node) if isinstance(node, ast.AST) else repr(node)


def _reads(stmt: ast.stmt) -> set[str]:
    """The globals a binding reads (`__name__` included, other builtins not)."""
    if isinstance(stmt, DEFS):
        return global_reads(stmt)
    names = loaded_names(stmt) - stored_names(getattr(stmt, "value", None) or ast.Pass())
    return {n for n in names if not hasattr(builtins, n) or n == "__name__"}


def _first_entry_difference(before: _Side, b, after: _Side, a) -> str:
    """For two literal containers of one kind: the first entry added, removed or changed."""
    if type(b) is not type(a) or not isinstance(b, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return ""
    b_text, a_text = before.tree.text(before.rel), after.tree.text(after.rel)

    def show(text, node):
        return f"{source_segment(text, node)} (line {node.lineno})"

    if isinstance(b, ast.Dict):
        b_items = {_dump(k): (k, v) for k, v in zip(b.keys, b.values)}
        a_items = {_dump(k): (k, v) for k, v in zip(a.keys, a.values)}
        for key, (k, v) in b_items.items():
            if key not in a_items:
                return f"entry {show(b_text, k)} removed"
            if _dump(v) != _dump(a_items[key][1]):
                return f"entry {ast.unparse(k)}: {show(b_text, v)} before, {show(a_text, a_items[key][1])} after"
        for key, (k, v) in a_items.items():
            if key not in b_items:
                return f"entry {show(a_text, k)} added"
        return "entries in another order" if list(b_items) != list(a_items) else ""
    for i, (x, y) in enumerate(zip(b.elts, a.elts)):
        if _dump(x) != _dump(y):
            return f"element {i}: {show(b_text, x)} before, {show(a_text, y)} after"
    if len(b.elts) != len(a.elts):
        longer, text, how = (b, b_text, "removed") if len(b.elts) > len(a.elts) else (a, a_text, "added")
        return f"element {show(text, longer.elts[min(len(b.elts), len(a.elts))])} {how}"
    return ""
