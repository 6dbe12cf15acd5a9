"""The moved code checked statically: the AFTER version's logic against the BEFORE version's,
statement by statement, modulo the substitution map, and the module globals it reads value for
value.

Both versions are put in the old method's terms (`substitution.logic_of`): an extracted
function's parameters become what its call passes, its returned locals what the caller assigns
them to. The two bodies are then aligned block by block on their normalised statements
(`ast.dump` without positions; the docstrings apart) and every residual difference is listed:

- "added" / "removed" / "changed": a statement only one side has, or that differs;
- "mapping-mismatch": it differs only where the map put an expression in (a wrapper passing
  `tp_rank=self.tp_size` where the old body read `self.tp_rank`);
- "applied-by-caller": the function keeps a result in a local the caller applies itself
  (`resolved = X` where the old body did `self._record(X)`, and the caller does
  `if resolved is not None: self._record(resolved)`); verified when the caller's statement,
  with the local replaced by X, is exactly the old statement;
- "import": a function-level import that changed; "default": a parameter default that changed;
- "docstring": the docstring's text changed, was added or removed (explained: no behaviour).

A function-level import the old body needed only to reach what is now the function's own module
global (`from TARGET import f` in the method, `def f` in TARGET) is no difference: the global is
compared with it as the same object (`module_globals.py`). Docstrings are compared as Python shows
them (`inspect.cleandoc`: a method's docstring moved to module level keeps its text).

Residuals are for the reviewer, not failures by themselves; a changed module global is a
divergence (`module_globals.py`).
"""

from __future__ import annotations

import ast
import copy
import difflib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from pysource.modules import import_bindings, source_segment
from pysource.names import attribute_store, child_blocks, stored_names
from equivalence.engine.judge.call_sites import call_site_mismatches, site_source
from equivalence.engine.judge.construction import read_through
from equivalence.engine.judge.module_globals import ConstantCheck, _Side, compare_constants
from pysource.extraction import Extraction, locate
from equivalence.engine.judge.substitution import (Logic, MapEntry, StaticCheckError, assigned_targets, caller_note,
                                                   logic_of, own_parameters)

__all__ = ["check_trees", "static_check", "StaticReport", "Residual", "StaticCheckError", "to_markdown",
           "inline_code"]


EXPLAINED = {
    "docstring": "no behaviour: only the docstring's text differs (documentation, aligned apart from the code)",
    "applied-by-caller": "explained by the extraction: the function keeps the result in a local and the "
                         "caller applies it (checked against the old statement)",
}


@dataclass
class Residual:
    kind: str
    before_line: int | None
    after_line: int | None
    before: str  # the statement's source in BEFORE ("" if added)
    after: str  # its source in AFTER ("" if removed)
    after_mapped: str = ""  # the AFTER statement in the old method's terms
    note: str = ""
    method: str = ""  # a component's: the moved method whose body it is in

    @property
    def explained(self) -> bool:
        """The extraction accounts for it (EXPLAINED); any other residual is a change of the code
        that only running can clear: if no configuration tells the versions apart there, the
        check is inconclusive, never equivalent."""
        return self.kind in EXPLAINED

    @property
    def classification(self) -> str:
        return EXPLAINED.get(self.kind, "not explained by the extraction: a change only the runs can judge")

    def to_json(self) -> dict:
        return {"kind": self.kind, "before_line": self.before_line, "after_line": self.after_line,
                "before": self.before, "after": self.after, "after_mapped": self.after_mapped, "note": self.note,
                "explained": self.explained, "classification": self.classification,
                **({"method": self.method} if self.method else {})}


@dataclass
class StaticReport:
    before: str  # where the BEFORE logic is (file:line name)
    after: str
    map: list[MapEntry]
    residuals: list[Residual]
    constants: list[ConstantCheck]
    dropped_return: str = ""  # the final `return` of the returned locals, part of the map

    @property
    def divergent(self) -> bool:
        return any(not c.equal for c in self.constants)

    @classmethod
    def from_json(cls, data: dict) -> "StaticReport":
        """The report back from `to_json` (reports are rendered from their JSON)."""
        fields = ("kind", "before_line", "after_line", "before", "after", "after_mapped", "note", "method")
        return cls(data["before"], data["after"], [MapEntry(**e) for e in data["map"]],
                   [Residual(**{k: r[k] for k in fields if k in r}) for r in data["residuals"]],
                   [ConstantCheck(**c) for c in data["constants"]], data["dropped_return"])

    def to_json(self) -> dict:
        return {"before": self.before, "after": self.after, "map": [e.to_json() for e in self.map],
                "dropped_return": self.dropped_return,
                "residuals": [r.to_json() for r in self.residuals],
                "constants": [c.to_json() for c in self.constants], "divergent": self.divergent}


def check_trees(before_root: Path, after_root: Path, source_rel: str, class_name: str, method_name: str,
                function_name: str | None = None, *, before_overrides: dict[str, str] | None = None,
                after_overrides: dict[str, str] | None = None) -> StaticReport:
    """`static_check` of two trees (each folder holds the top-level package); LocateError or
    StaticCheckError, naming file and line, when a version does not hold the shape."""
    before = locate(before_root, source_rel, class_name, method_name, function_name, before_overrides)
    after = locate(after_root, source_rel, class_name, method_name, function_name, after_overrides)
    return static_check(before, after)


def static_check(before: Extraction, after: Extraction, together: tuple[tuple[str, str], ...] = (),
                 new_code_runs: bool = False) -> StaticReport:
    """`together`: (method, function) moved in the same change: `self.method(...)` before reads
    as `function(...)` after, and the function is no changed module global; `new_code_runs`: see
    `compare_constants`."""
    own = own_parameters(before) | own_parameters(after)
    old, new = logic_of(before, own), logic_of(after, own, assigned_targets(before))
    old_through, new_through = {}, {}
    if before.method_name == "__init__" or before.inherited is not None or after.inherited is not None:
        (old_through, _), (new_through, _) = read_through(before, old), read_through(after, new)
    if together:
        old.body = [_MovedAlong(dict(together)).visit(stmt) for stmt in old.body]
        # the instance passed whole to a function moved along is the receiver `self.m(...)` had
        instance = {n for e in new.entries if e.kind == "instance" for n in (e.name, e.expression)}
        new.body = [_ReceiverPassed({f for _, f in together}, instance).visit(stmt) for stmt in new.body]
        new.global_reads = new.global_reads - {function for _, function in together}
        # ... and the function-level import that only binds such a function is part of that call
        moved = {function for _, function in together}
        binding: dict[int, tuple[ast.stmt, set[str]]] = {}
        for name, stmt in _local_imports(new).items():
            binding.setdefault(id(stmt), (stmt, set()))[1].add(name)
        new.body = _without(new.body, {key for key, (_, names) in binding.items() if names <= moved})
    old_imports, new_imports = {**old_through, **_local_imports(old)}, {**new_through, **_local_imports(new)}
    old_spelled = _same_object_spelled_bare(old, before.files, old_imports, new, after.files, new_imports)
    new_spelled = _same_object_spelled_bare(new, after.files, new_imports, old, before.files, old_imports)
    uses = _dotted(old.body) | _dotted(new.body)
    constants = compare_constants(before.files, old.rel, after.files, new.rel, new.global_reads,
                                  {**old_imports, **old_spelled}, {**new_imports, **new_spelled}, uses,
                                  new_code_runs)
    _compare_spelled_defs(constants, {**old_spelled, **new_spelled}, before, after)
    same = {c.name for c in constants if c.equal}
    absorbed = {id(stmt) for name, stmt in old_imports.items() if name not in new_imports
                and all(b.name in same for b in import_bindings(stmt, old.rel))}
    old.body = _without(old.body, absorbed)
    for logic in (old, new):
        _clean_docstring(logic.body)
        logic.body = _aliases_inlined(_returned_temp_inlined(_stdlib_imports_sorted(logic.body)))
    docs = [_docstring(logic.body) for logic in (old, new)]
    old.body, new.body = [body[1:] if doc is not None else body for body, doc in zip((old.body, new.body), docs)]
    new.body = _commuted_into_order(old.body, new.body, constructs=before.method_name == "__init__")
    aligner = _Aligner(old, new)
    aligner.blocks(old.body, new.body)
    if (docs[0] is None) != (docs[1] is None) or (docs[0] is not None and _dump(docs[0]) != _dump(docs[1])):
        aligner._add("docstring", *docs)
    residuals = aligner.residuals + _default_changes(old, new)
    residuals.sort(key=lambda r: (r.before_line or 0, r.after_line or 0))
    residuals += _call_site_residuals(before, after)
    for entry in new.entries:
        entry.before_reads = sorted(aligner.mismatched.get(entry.name, ()))
    return StaticReport(old.where, new.where, new.entries, residuals, constants, new.dropped_return)


def _commuted_into_order(old: list[ast.stmt], new: list[ast.stmt], constructs: bool) -> list[ast.stmt]:
    """`new` with each statement that the old order has earlier moved back there, where it commutes
    with every statement it passes (`_commute`): the same code, not a difference."""
    new = list(new)
    for i, stmt in enumerate(old):
        if i >= len(new) or _dump(new[i]) == _dump(stmt):
            continue
        j = next((j for j in range(i + 1, len(new)) if _dump(new[j]) == _dump(stmt)), None)
        if j is None or not all(_commute(new[j], passed, constructs) for passed in new[i:j]):
            continue
        new.insert(i, new.pop(j))
    return new


def _commute(a: ast.stmt, b: ast.stmt, constructs: bool) -> bool:
    """Two stores of distinct attributes of the instance, neither value reading the other's
    attribute or calling a method of the instance; when a value may raise, only in a constructor
    (raising, it leaves no instance whose attributes anyone could see: compare.ABANDONED)."""
    stores = attribute_store(a), attribute_store(b)
    if None in stores or stores[0][0] == stores[1][0]:
        return False
    for (_, value), (other, _) in ((stores[0], stores[1]), (stores[1], stores[0])):
        for n in ast.walk(value):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" \
                    and n.attr == other:
                return False
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _rooted_at_self(n.func):
                return False
    return constructs or not any(_may_raise(value) for _, value in stores)


def _may_raise(value: ast.expr) -> bool:
    return not all(isinstance(n, (ast.Constant, ast.Name, ast.Load, ast.Tuple, ast.List, ast.UnaryOp, ast.USub))
                   for n in ast.walk(value))


def _aliases_inlined(body: list[ast.stmt]) -> list[ast.stmt]:
    """A local naming an attribute chain of the instance (`cfg = self.vae_config.arch_config`, a
    statement of the body's top level, the local bound nowhere else) read as the chain itself
    where it is used, when nothing from there to its last use could rebind a link of the chain:
    no write to an attribute of `self`, no method of the instance or of a link called, no link
    handed to a call, no function made. The moved code reading the chain through a parameter
    (`arch_config`, passed `self.vae_config.arch_config`) then reads alike."""
    for i, stmt in enumerate(body):
        chain = _alias_of(stmt)
        if chain is None:
            continue
        name = stmt.targets[0].id
        if any(isinstance(n, ast.Name) and n.id == name for s in body[:i] for n in ast.walk(s)) \
                or sum(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                       for s in body for n in ast.walk(s)) != 1:
            continue
        users = [k for k in range(i + 1, len(body)) if any(isinstance(n, ast.Name) and n.id == name
                                                             for n in ast.walk(body[k]))]
        if not users or not all(_keeps(body[k], chain) for k in range(i + 1, users[-1] + 1)):
            continue
        rest = [_Read(name, chain).visit(s) for s in body[i + 1:]]
        return _aliases_inlined(body[:i] + rest)
    return body


def _alias_of(stmt: ast.stmt) -> ast.Attribute | None:
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    node = stmt.value
    while isinstance(node, ast.Attribute):
        node = node.value
    return stmt.value if isinstance(stmt.value, ast.Attribute) and isinstance(node, ast.Name) and node.id == "self" \
        else None


def _keeps(stmt: ast.stmt, chain: ast.Attribute) -> bool:
    """Whether `stmt` cannot rebind a link of `chain` (see _aliases_inlined)."""
    links = set()
    node = chain.value
    while isinstance(node, (ast.Attribute, ast.Name)):
        links.add(ast.dump(node))
        node = node.value if isinstance(node, ast.Attribute) else None
    for n in ast.walk(stmt):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal)):
            return False
        if isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load) and _rooted_at_self(n):
            return False
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute) and ast.dump(n.func.value) in links:
                return False
            if any(ast.dump(a.value if isinstance(a, ast.Starred) else a) in links
                   for a in (*n.args, *(k.value for k in n.keywords))):
                return False
    return True


def _rooted_at_self(node: ast.expr) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


class _Read(ast.NodeTransformer):
    """Each read of a local replaced by a copy of the chain it names."""

    def __init__(self, name: str, chain: ast.expr):
        self.name, self.chain = name, chain

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.chain), node)
        return node


def _returned_temp_inlined(body: list[ast.stmt]) -> list[ast.stmt]:
    """`x = E` followed by `return x` reads as `return E`, in every block (Inline Temp: nothing
    runs between the two, and no function made in the body can see `x` rebound once it returns)."""
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for s in body for n in ast.walk(s)):
        return body
    return _inlined_in(body)


def _inlined_in(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        for name in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, name, None), list) and not isinstance(stmt, ast.ClassDef):
                setattr(stmt, name, _inlined_in(getattr(stmt, name)))
        for handler in getattr(stmt, "handlers", []):
            handler.body = _inlined_in(handler.body)
        last = out[-1] if out else None
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and isinstance(last, ast.Assign) \
                and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name) \
                and last.targets[0].id == stmt.value.id:
            out[-1] = ast.copy_location(ast.Return(last.value), last)
            continue
        out.append(stmt)
    return out


class _ReceiverPassed(ast.NodeTransformer):
    """`function(INSTANCE, ...)` / `function(..., NAME=INSTANCE)` of a function moved along,
    INSTANCE the parameter standing for the instance -> `function(...)`: what `self.m(...)` reads
    as once `_MovedAlong` took its receiver."""

    def __init__(self, functions: set[str], instance: set[str]):
        self.functions, self.instance = functions, instance

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.functions and self.instance:
            node.args = [a for a in node.args if not (isinstance(a, ast.Name) and a.id in self.instance)]
            node.keywords = [k for k in node.keywords if not (k.arg and isinstance(k.value, ast.Name)
                                                              and k.value.id in self.instance)]
        return node


class _MovedAlong(ast.NodeTransformer):
    """`self.m(...)` / `<receiver>.m(...)` of a method moved along -> `function(...)`."""

    def __init__(self, functions: dict[str, str]):
        self.functions = functions

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr in self.functions:
            node.func = ast.copy_location(ast.Name(self.functions[f.attr], ast.Load()), f)
        return node


def _stdlib_imports_sorted(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` with each run of adjacent imports of standard-library modules in one order (by
    their text), where no name is bound twice in the run: isort orders a moved function's own
    imports, and the standard library's modules do not depend on the order they are imported in."""
    out: list[ast.stmt] = []
    run: list[ast.stmt] = []

    def flush():
        names = [alias.asname or alias.name for stmt in run for alias in stmt.names]
        out.extend(sorted(run, key=ast.dump) if len(names) == len(set(names)) else run)
        run.clear()

    for stmt in body:
        if _stdlib_import(stmt):
            run.append(stmt)
            continue
        flush()
        out.append(stmt)
    flush()
    return out


def _stdlib_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(alias.name.partition(".")[0] in sys.stdlib_module_names for alias in stmt.names)
    return isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module is not None \
        and stmt.module.partition(".")[0] in sys.stdlib_module_names and all(a.name != "*" for a in stmt.names)


def _call_site_residuals(before: Extraction, after: Extraction) -> list[Residual]:
    """The call sites (lines of the class's file) whose rewrite is not the first site's."""
    return [Residual("call-site", b.line if b else None, a.line if a else None, site_source(before, b),
                     site_source(after, a), note=f"{after.source_rel}:{(a or b).line}: {why}")
            for b, a, why in call_site_mismatches(before, after)]


def _same_object_spelled_bare(logic: Logic, files, imports: dict[str, ast.stmt], other: Logic, other_files,
                              other_imports: dict[str, ast.stmt]) -> dict[str, ast.stmt]:
    """`ALIAS.f` / `pkg.mod.f` in `logic` (a module reached through a global of its module, then
    its attributes) naming the object that a bare global `f` of `other` names (its module's own
    `def f`, or what it imports) -> `f`, in place: the same function spelled from outside its
    module and from within. Returns, for each name so spelled, an import binding it to that object
    as `logic`'s module would (`from MOD import f`, placed at the dotted name), for the module
    globals' comparison; the globals `logic` reads are updated."""
    bare = {}  # object -> the bare global of `other` naming it
    other_side = _Side(other_files, other.rel, other_imports)
    for name in sorted(other.global_reads):
        found = other_side.object_name(name, other_side.bindings(name, True))
        if found is not None:
            bare.setdefault(found, name)
    if not bare:
        return {}
    side = _Side(files, logic.rel, imports)
    bound = stored_names(ast.Module(logic.body, []))
    out: dict[str, ast.stmt] = {}

    class Rewrite(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            parts, root = [], node
            while isinstance(root, ast.Attribute):
                parts.append(root.attr)
                root = root.value
            if not isinstance(node.ctx, ast.Load) or not isinstance(root, ast.Name) \
                    or root.id not in logic.global_reads or root.id in bound:
                return self.generic_visit(node)
            current = side.object_name(root.id, side.bindings(root.id, True))
            for attr in reversed(parts):
                if current is None or files.module_file(current) is None:
                    return self.generic_visit(node)
                current = files.canonical(f"{current}.{attr}")
            name = bare.get(current)
            if name is None or name in bound or (name in out and ast.unparse(out[name]) != _import_of(current, name)):
                return self.generic_visit(node)
            out[name] = ast.copy_location(ast.parse(_import_of(current, name)).body[0], node)
            out[name].end_lineno, out[name].end_col_offset = node.end_lineno, node.end_col_offset
            return ast.copy_location(ast.Name(name, node.ctx), node)

    logic.body = [Rewrite().visit(stmt) for stmt in logic.body]
    if out:
        loaded = {n.id for n in ast.walk(ast.Module(logic.body, [])) if isinstance(n, ast.Name)}
        logic.global_reads = {n for n in logic.global_reads if n in loaded} | set(out)
    return out


def _compare_spelled_defs(constants: list[ConstantCheck], spelled: dict[str, ast.stmt], before: Extraction,
                          after: Extraction) -> None:
    """A name one version spells `MOD.f` and the other `f` is the same object by name; it is the
    same definition only if `MOD`'s `def f` reads alike in both trees."""
    for check in constants:
        if not check.equal or check.name not in spelled:
            continue
        (binding,) = import_bindings(spelled[check.name], "")
        qualname = after.files.canonical(binding.qualname)
        defs = [_module_def(ext.files, qualname) for ext in (before, after)]
        if None not in defs and ast.dump(defs[0]) != ast.dump(defs[1]):
            check.equal = False
            check.detail = (f"the same name, {qualname}, but its definition differs: line {defs[0].lineno} "
                            f"before, line {defs[1].lineno} after")


def _module_def(files, qualname: str) -> ast.stmt | None:
    module, _, name = qualname.rpartition(".")
    rel = files.module_file(module) if module else None
    if rel is None:
        return None
    return next((s for s in files.parse(rel).body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and s.name == name), None)


def _import_of(qualname: str, name: str) -> str:
    module, _, attr = qualname.rpartition(".")
    return f"from {module} import {attr}" + (f" as {name}" if name != attr else "")


def _dotted(body: list[ast.stmt]) -> set[str]:
    """The dotted names `body` reads (`importlib.util.find_spec`)."""
    out = set()
    for node in ast.walk(ast.Module(body, [])):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and parts:
            out.add(".".join([node.id, *reversed(parts)]))
    return out


def _local_imports(logic: Logic) -> dict[str, ast.stmt]:
    """name -> the function-level import that binds it in the logic's body."""
    return {b.name: stmt for stmt in ast.walk(ast.Module(logic.body, [])) if isinstance(stmt, (ast.Import, ast.ImportFrom))
            for b in import_bindings(stmt, logic.rel)}


def _without(body: list[ast.stmt], dropped: set[int]) -> list[ast.stmt]:
    """`body` without the statements `dropped` (by id), in every block."""
    out = [stmt for stmt in body if id(stmt) not in dropped]
    for stmt in out:
        for name in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, name, None), list):
                setattr(stmt, name, _without(getattr(stmt, name), dropped))
        for handler in getattr(stmt, "handlers", []):
            handler.body = _without(handler.body, dropped)
    return out


def _docstring(body: list[ast.stmt]) -> ast.stmt | None:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _clean_docstring(body: list[ast.stmt]) -> None:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        first.value.value = inspect.cleandoc(first.value.value)


def _dump(stmt: ast.AST) -> str:
    return ast.dump(stmt)


def _header(stmt: ast.stmt) -> ast.stmt:
    """The statement with its blocks emptied (an `if` without its body and else)."""
    shallow = copy.copy(stmt)
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        if isinstance(getattr(stmt, name, None), list):
            setattr(shallow, name, [])
    return shallow


class _Aligner:
    """Aligns two blocks of normalised statements and records what differs."""

    def __init__(self, old: Logic, new: Logic):
        self.old, self.new = old, new
        self.residuals: list[Residual] = []
        self.mismatched: dict[str, set[str]] = {}

    def blocks(self, before: list[ast.stmt], after: list[ast.stmt]) -> None:
        matcher = difflib.SequenceMatcher(None, [_dump(s) for s in before], [_dump(s) for s in after], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                self._pair_up(before[i1:i2], after[j1:j2])

    def _pair_up(self, before: list[ast.stmt], after: list[ast.stmt]) -> None:
        """Statements of one kind are paired in order, and so are two simple statements of different
        kinds (`self._record(X)` against `resolved = X`); the rest are removed or added."""
        kinds = difflib.SequenceMatcher(None, [type(s).__name__ for s in before], [type(s).__name__ for s in after],
                                        autojunk=False)
        for tag, i1, i2, j1, j2 in kinds.get_opcodes():
            pairs = list(zip(before[i1:i2], after[j1:j2]))
            if tag == "replace":
                pairs = pairs[:next((k for k, (b, a) in enumerate(pairs) if child_blocks(b) or child_blocks(a)),
                                    len(pairs))]
            for b, a in pairs:
                self._changed(b, a)
            for b in before[i1 + len(pairs):i2]:
                self._add("removed", b, None)
            for a in after[j1 + len(pairs):j2]:
                self._add("added", None, a)

    def _changed(self, b: ast.stmt, a: ast.stmt) -> None:
        if isinstance(b, ast.If) and isinstance(a, ast.If):
            self._branches(b, a)
            return
        b_blocks, a_blocks = child_blocks(b), child_blocks(a)
        if not (b_blocks or a_blocks):
            self._add(self._kind(b, a), b, a)
            return
        if _dump(_header(b)) != _dump(_header(a)) or len(b_blocks) != len(a_blocks):
            self._add(self._kind(_header(b), _header(a)), b, a, header=True)
        for b_block, a_block in zip(b_blocks, a_blocks):
            self.blocks(b_block, a_block)
        for extra in a_blocks[len(b_blocks):]:
            self.blocks([], extra)
        for extra in b_blocks[len(a_blocks):]:
            self.blocks(extra, [])

    def _branches(self, b: ast.If, a: ast.If) -> None:
        """An if/elif chain is a sequence of branches: aligned on their tests, so that an `elif`
        added in the middle is one added branch, not a shift of all those after it."""
        (b_ifs, b_else), (a_ifs, a_else) = _chain(b), _chain(a)
        tests = difflib.SequenceMatcher(None, [_dump(x.test) for x in b_ifs], [_dump(x.test) for x in a_ifs],
                                        autojunk=False)
        for tag, i1, i2, j1, j2 in tests.get_opcodes():
            pairs = list(zip(b_ifs[i1:i2], a_ifs[j1:j2]))
            for x, y in pairs:
                if _dump(x.test) != _dump(y.test):
                    self._add(self._kind(x.test, y.test), x, y, header=True)
                self.blocks(x.body, y.body)
            for x in b_ifs[i1 + len(pairs):i2]:
                self._add("removed", _branch(x), None)
            for y in a_ifs[j1 + len(pairs):j2]:
                self._add("added", None, _branch(y))
        self.blocks(b_else, a_else)

    def _kind(self, b: ast.AST, a: ast.AST) -> str:
        if isinstance(b, (ast.Import, ast.ImportFrom)) or isinstance(a, (ast.Import, ast.ImportFrom)):
            return "import"
        if self._applied_by_caller(b, a):
            return "applied-by-caller"
        points = []
        _differences(b, a, self.new, None, points)
        if points and all(name is not None for _, name in points):
            for before_expr, name in points:
                shown = ast.unparse(before_expr) if isinstance(before_expr, ast.AST) else repr(before_expr)
                self.mismatched.setdefault(name, set()).add(shown)
            return "mapping-mismatch"
        return "changed"

    def _applied_by_caller(self, b: ast.AST | None, a: ast.AST) -> bool:
        """`a` keeps a result in a local the caller applies; with `b` given, the caller's statement
        on that local, with the value substituted, is exactly `b`; without, `a` sets it to None."""
        target = a.targets[0] if isinstance(a, ast.Assign) and len(a.targets) == 1 else getattr(a, "target", None)
        if not isinstance(target, ast.Name) or target.id not in self.new.caller_locals:
            return False
        if b is None:
            return isinstance(a.value, ast.Constant) and a.value.value is None
        for stmt in self.new.caller_locals[target.id]:
            for candidate in [stmt, *[s for block in child_blocks(stmt) for s in block]]:
                replaced = _Replace(target.id, a.value).visit(copy.deepcopy(candidate))
                if _dump(replaced) == _dump(b):
                    return True
        return False

    def _add(self, kind: str, b: ast.stmt | None, a: ast.stmt | None, header: bool = False) -> None:
        if kind == "added" and isinstance(a, (ast.Assign, ast.AnnAssign)) and self._applied_by_caller(None, a):
            kind = "applied-by-caller"
        if kind in ("added", "removed") and isinstance(b or a, (ast.Import, ast.ImportFrom)):
            kind = "import"
        note = ""
        if kind == "applied-by-caller":
            local = (a.targets[0] if isinstance(a, ast.Assign) else a.target).id
            note = caller_note(self.new.caller_locals[local])
        through = [f"{'before' if s is b else 'after'}: line {s.lineno} of {s.read_through[0]}, read through "
                   f"super()" for s in (b, a) if s is not None and getattr(s, "read_through", None)]
        note = "; ".join([note, *through]) if note else "; ".join(through)
        self.residuals.append(Residual(
            kind, b.lineno if b else None, a.lineno if a else None,
            _source(_text_of(b, self.old.text), b, header), _source(_text_of(a, self.new.text), a, header),
            _mapped(a, header) if a else "", note))


def _chain(stmt: ast.If) -> tuple[list[ast.If], list[ast.stmt]]:
    """The branches of an if/elif chain, and its final else block."""
    ifs = [stmt]
    while len(ifs[-1].orelse) == 1 and isinstance(ifs[-1].orelse[0], ast.If):
        ifs.append(ifs[-1].orelse[0])
    return ifs, ifs[-1].orelse


def _branch(node: ast.If) -> ast.If:
    """One branch of a chain alone (its `elif` line and body)."""
    return ast.If(node.test, node.body, [], lineno=node.lineno, col_offset=node.col_offset,
                  end_lineno=node.body[-1].end_lineno, end_col_offset=node.body[-1].end_col_offset)


def _text_of(stmt: ast.stmt | None, text: str) -> str:
    """The text of the file `stmt` is in: its logic's, or the base's it was read through from."""
    through = getattr(stmt, "read_through", None) if stmt is not None else None
    return through[1] if through else text


def _source(text: str, stmt: ast.stmt | None, header: bool) -> str:
    if stmt is None:
        return ""
    if header:
        blocks = child_blocks(stmt)
        last = blocks[0][0].lineno - 1 if blocks and blocks[0] else stmt.end_lineno
        return "\n".join(text.splitlines()[stmt.lineno - 1:max(last, stmt.lineno)]).strip()
    lines = text.splitlines()[stmt.lineno - 1:stmt.end_lineno]
    return "\n".join(lines).strip() if isinstance(stmt, ast.If) else source_segment(text, stmt) or ""


def _mapped(stmt: ast.stmt, header: bool) -> str:
    return ast.unparse(_header(stmt)).rstrip(":").strip() if header else ast.unparse(stmt)


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy.deepcopy(self.value) if node.id == self.name and isinstance(node.ctx, ast.Load) else node


def _differences(b, a, new: Logic, name: str | None, out: list) -> None:
    """The outermost places two trees differ, each with the map entry whose expression holds the
    AFTER side there (None outside the map's expressions); for a mismatch, the BEFORE node aligned
    with the map's expression is recorded."""
    if isinstance(a, ast.AST) and id(a) in new.roots:
        name, out_len = new.marks[id(a)], len(out)
        _differences_inner(b, a, new, name, out)
        if len(out) > out_len:
            del out[out_len:]
            out.append((b, name))
        return
    _differences_inner(b, a, new, name, out)


def _differences_inner(b, a, new: Logic, name: str | None, out: list) -> None:
    if type(b) is not type(a):
        out.append((b, name))
        return
    if isinstance(b, list):
        if len(b) != len(a):
            out.append((b, name))
            return
        for x, y in zip(b, a):
            _differences(x, y, new, name, out)
        return
    if not isinstance(b, ast.AST):
        if b != a:
            out.append((b, name))
        return
    for field_name in b._fields:
        _differences(getattr(b, field_name, None), getattr(a, field_name, None), new, name, out)


def _default_changes(old: Logic, new: Logic) -> list[Residual]:
    return [Residual("default", None, None, f"{name}={old.defaults[name]}", f"{name}={new.defaults.get(name)}")
            for name in old.defaults if name in new.defaults and old.defaults[name] != new.defaults[name]]


def inline_code(text: str, max_lines: int = 6) -> str:
    """`text` as one Markdown code span (its first `max_lines` lines joined by ⏎); "" for ""."""
    lines = text.splitlines() or [""]
    shown = " ⏎ ".join(line.strip() for line in lines[:max_lines]) + (" …" if len(lines) > max_lines else "")
    return "`" + shown.replace("`", "'") + "`" if text else ""


def to_markdown(report: StaticReport, max_lines: int = 6) -> str:
    """The report as Markdown for a PR comment: the map, the residual differences, the constants."""
    def code(text: str) -> str:
        return inline_code(text, max_lines)

    verdict = "**divergent** (a module global changed)" if report.divergent else "no changed module global"
    out = [f"### Static check: {verdict}", "", f"before: `{report.before}`  ", f"after: `{report.after}`", "",
           "| name | kind | stands for |", "|---|---|---|"]
    for e in report.map:
        extra = f" (old body read: {', '.join(e.before_reads)})" if e.before_reads else ""
        out.append(f"| `{e.name}` | {e.kind} | {code(e.expression)}{extra}{' — ' + e.note if e.note else ''} |")
    if report.dropped_return:
        out.append(f"| return | result | {code(report.dropped_return)}: the caller applies what it returns |")
    out += ["", f"Residual differences: {len(report.residuals)}", ""]
    if report.residuals:
        out += ["| kind | before | after | after, mapped | classification |", "|---|---|---|---|---|"]
        for r in report.residuals:
            b = f"L{r.before_line} {code(r.before)}" if r.before_line else code(r.before)
            a = f"L{r.after_line} {code(r.after)}" if r.after_line else code(r.after)
            out.append(f"| {r.kind} | {b} | {a} | {code(r.after_mapped)}{' — ' + r.note if r.note else ''} "
                       f"| {r.classification} |")
    out += ["", "| module global | equal | lines (before / after) | detail |", "|---|---|---|---|"]
    for c in report.constants:
        lines = " / ".join("-".join(map(str, c.lines[k])) if k in c.lines else "—" for k in ("before", "after"))
        out.append(f"| `{c.name}` | {'yes' if c.equal else '**no**'} | {lines} | {c.detail} |")
    return "\n".join(out) + "\n"
