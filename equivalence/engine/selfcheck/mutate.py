"""Generic mutants of an extraction: small non-equivalent edits of the function holding the logic
(the moved function, the static method, or the original method) and of the code that calls it
and applies its results (the wrapper, else the call sites), to check that a harness notices.

Kinds: "cmp-flip" (`==`/`!=`, `<`/`>=`, `>`/`<=`, `is`/`is not`, `in`/`not in`), "const" (int + 1,
string altered, True/False swapped, None made a value), "drop" (a simple statement becomes
`pass`), "branch-swap" (if body and else swapped, or the test negated without a plain else; the
two arms of `a if c else b`), "bool-swap" (`and`/`or`), "arg-order" (two positional arguments
swapped; in the call of the extracted function, two keyword values, and any two neighbouring
positional ones), "write" (a result assigned to another attribute, or not written; in a method,
`self.Y = ...` becomes `self.Y_mutant = ...`), "param-source" (the call passes a parameter, by
keyword or by position, from another attribute).

Each mutant edits the file's text at node positions, leaving every other byte as it was, and is
kept only when the edited function still parses and its AST differs. `overrides` holds the one
file a mutant changes (merge it over the version's own overrides). Selection is deterministic and
spread: per kind, candidates in source order, the function's and the caller's in turn; then one
of each kind in turn up to `limit` (a smaller limit gives a prefix of a larger one's list). Ids
are `KIND@LLINE`, `#2`, `#3` for a second and third one of a kind on a line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from equivalence.engine.load.literals import fixed_names
from equivalence.engine.run.coverage import dead_code
from equivalence.engine.selfcheck import mutations
from pysource.extraction import Extraction, locate
from equivalence.engine.selfcheck.mutations import Edit

KINDS = ("cmp-flip", "const", "drop", "branch-swap", "bool-swap", "arg-order", "write", "param-source")


@dataclass(frozen=True)
class Mutant:
    id: str  # "cmp-flip@L12"
    description: str
    kind: str
    file_rel: str
    line: int
    overrides: dict[str, str] = field(hash=False)  # file -> its full new text (one file)


def method_mutants(root: Path, source_rel: str, class_name: str, method_name: str,
                   function_name: str | None = None, limit: int = 30,
                   overrides: dict[str, str] | None = None) -> list[Mutant]:
    return mutants_of(locate(root, source_rel, class_name, method_name, function_name, overrides), limit)


def mutants_of(ext: Extraction, limit: int = 30) -> list[Mutant]:
    return from_units(_units(ext), limit)


def from_units(units: list[Unit], limit: int = 30,
               where: Callable[[Unit, Edit], str] = lambda unit, edit: f"L{edit.line}") -> list[Mutant]:
    """Up to `limit` mutants of the units' code, the kinds taken in turn and each kind's edits
    alternating between the units; a mutant is named `KIND@WHERE` (`#2`, ... when repeated)."""
    per_unit = [{kind: [] for kind in KINDS} for _ in units]
    for unit, kinds in zip(units, per_unit):
        for edit in unit.candidates():
            kinds[edit.kind].append((unit, edit))
    queues = {kind: _alternate([kinds[kind] for kinds in per_unit]) for kind in KINDS}
    out, seen_ids = [], {}
    while len(out) < limit and any(queues.values()):
        for kind in KINDS:
            while queues[kind] and len(out) < limit:
                unit, edit = queues[kind].pop(0)
                text = unit.apply(edit)
                if text is None:
                    continue
                base = f"{kind}@{where(unit, edit)}"
                seen_ids[base] = seen_ids.get(base, 0) + 1
                mutant_id = base if seen_ids[base] == 1 else f"{base}#{seen_ids[base]}"
                out.append(Mutant(mutant_id, edit.description, kind, unit.rel, edit.line, {unit.rel: text}))
                break
    return out


CONTROL_KINDS = ("control-comment", "control-noop", "control-swap", "control-rename")


def controls_of(ext: Extraction) -> list[Mutant]:
    """Edits of the function holding the logic that change nothing it does, which the check must
    therefore let survive: a comment line, a no-op statement, two adjacent independent
    statements swapped, a local renamed. A self-check that calls one of them killed sees
    differences that are not there (or does not run the mutant at all); one that lets the real
    mutants survive sees too little."""
    core, rel = ext.core
    return controls_from([Unit(ext, rel, core, list(core.body), "core")])


def controls_from(units: list["Unit"], where: Callable[["Unit", Edit], str] = lambda unit, edit: f"L{edit.line}") \
        -> list[Mutant]:
    """One control of each kind (`controls_of`), from the first of the units that admits it
    (several functions hold the logic: a component's methods); named `KIND@WHERE`."""
    out = []
    for kind in CONTROL_KINDS:
        for unit in units:
            edit = dict(_control_edits(unit)).get(kind)
            text = unit.apply(edit, same_ast_ok=kind in ("control-comment",)) if edit is not None else None
            if text is not None:
                out.append(Mutant(f"{kind}@{where(unit, edit)}", edit.description, kind, unit.rel, edit.line,
                                  {unit.rel: text}))
                break
    return out


def _control_edits(unit: "Unit"):
    body = [s for s in unit.fn.body if s is not _docstring(unit.fn)] or unit.fn.body
    first = body[0]
    indent = " " * first.col_offset
    start = unit.starts[first.lineno - 1]
    if _own_line(unit, first):
        yield "control-comment", Edit("control-comment", first.lineno, "a comment line added before the first statement",
                                      [(start, start, f"{indent}# a comment changes nothing\n")])
        yield "control-noop", Edit("control-noop", first.lineno, "a `pass` statement added before the first statement",
                                   [(start, start, f"{indent}pass\n")])
    yield "control-swap", _independent_swap(unit)
    yield "control-rename", _local_rename(unit)


def _own_line(unit: "Unit", stmt: ast.stmt) -> bool:
    line = unit.lines[stmt.lineno - 1]
    return not line.encode()[: stmt.col_offset].strip() and stmt.end_lineno is not None


def _independent_swap(unit: "Unit") -> Edit | None:
    """Two adjacent simple statements of one block, each on lines of its own, one binding a local
    to a literal (no effect, cannot raise) and the other not naming that local, outside any `try`
    (whose handler could read it): their order cannot show."""
    inside_try = {id(s) for t in ast.walk(unit.fn) if isinstance(t, (ast.Try, ast.TryStar))
                  for s in ast.walk(t) if isinstance(s, ast.stmt)}
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    for block in _blocks(unit.fn):
        for a, b in zip(block, block[1:]):
            if id(a) in inside_try or not (isinstance(a, simple) and isinstance(b, simple)):
                continue
            for bind, other in ((a, b), (b, a)):
                if not (isinstance(bind, ast.Assign) and len(bind.targets) == 1 and isinstance(bind.targets[0], ast.Name)
                        and isinstance(bind.value, ast.Constant)):
                    continue
                name = bind.targets[0].id
                if name in {n.id for n in ast.walk(other) if isinstance(n, ast.Name)} \
                        or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(other)):
                    continue
                if not (_own_line(unit, a) and _own_line(unit, b)) or a.end_lineno >= b.lineno:
                    continue
                first = (unit.starts[a.lineno - 1], unit.starts[a.end_lineno])
                second = (unit.starts[b.lineno - 1], unit.starts[b.end_lineno])
                return Edit("control-swap", a.lineno, f"lines {a.lineno} and {b.lineno} swapped (independent)",
                            [(*first, unit.text[second[0]:second[1]]), (*second, unit.text[first[0]:first[1]])])
    return None


def _blocks(fn: ast.AST):
    for node in ast.walk(fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not fn:
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _local_rename(unit: "Unit") -> Edit | None:
    """A local first bound by a top-level plain assignment of the function, never in an f-string,
    a nested scope, a `global`/`nonlocal` or `del`, renamed `NAME_renamed` at each of its uses."""
    fn = unit.fn
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    hidden = set()
    for node in ast.walk(fn):
        if isinstance(node, (ast.JoinedStr, ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) and node is not fn:
            hidden |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            hidden |= set(node.names)
        elif isinstance(node, ast.Delete):
            hidden |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("locals", "vars", "eval", "exec"):
            return None
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | params
    for stmt in fn.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name = stmt.targets[0].id
        if name in params or name in hidden or f"{name}_renamed" in taken:
            continue
        uses = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name),
                      key=lambda n: (n.lineno, n.col_offset))
        if not uses or uses[0] is not stmt.targets[0]:
            continue  # read before this binding somewhere: not a plain local of the function
        return Edit("control-rename", stmt.lineno, f"the local `{name}` renamed `{name}_renamed`",
                    [(unit.start(n), unit.end(n), f"{name}_renamed") for n in uses])
    return None


def _alternate(lists: list[list]) -> list:
    """One from each list in turn (the function's edits, then the wrapper's, then the function's...)."""
    out = []
    for i in range(max(map(len, lists), default=0)):
        out += [items[i] for items in lists if i < len(items)]
    return out


class Unit:
    """A function of one file to mutate: `regions` are the nodes edits may touch (its body, or the
    call-site statements of a method); `role` is "core" (the logic) or "caller"."""

    def __init__(self, ext: Extraction, rel: str, fn: ast.FunctionDef, regions: list[ast.AST], role: str,
                 calls: list[tuple[ast.Call, ast.stmt]] = ()):
        self.ext, self.rel, self.fn, self.regions, self.role, self.calls = ext, rel, fn, regions, role, list(calls)
        in_class = rel == ext.source_rel and fn in ext.class_node.body
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
        self.self_name = fn.args.args[0].arg if in_class and not static and fn.args.args else None
        self.parents = {id(child): parent for parent in ast.walk(fn) for child in ast.iter_child_nodes(parent)}
        self.text = ext.text(rel)
        self.lines = self.text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        self.span = (self.starts[first - 1], self.starts[fn.end_lineno])
        self.original = self._parse(self.text[self.span[0]:self.span[1]])

    def offset(self, line: int, col: int) -> int:
        """Character offset of a node position (ast columns count UTF-8 bytes)."""
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:col].decode(errors="ignore"))

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def source(self, node: ast.AST) -> str:
        return self.text[self.start(node):self.end(node)]

    def _parse(self, code: str) -> str | None:
        wrapped = "class _Mutated:\n" + code if self.fn.col_offset else code
        try:
            return ast.dump(ast.parse(wrapped))
        except SyntaxError:
            return None

    def apply(self, edit: Edit, same_ast_ok: bool = False) -> str | None:
        """The file's text with `edit` applied, or None if the function no longer parses or its
        AST is unchanged (`same_ast_ok`: a control edit may leave it unchanged, a comment)."""
        text, delta = self.text, 0
        for start, end, new in sorted(edit.spans, reverse=True):
            text = text[:start] + new + text[end:]
            delta += len(new) - (end - start)
        mutated = self._parse(text[self.span[0]:self.span[1] + delta])
        return text if mutated is not None and (same_ast_ok or mutated != self.original) else None

    def nodes(self):
        """The nodes edits may touch, in source order, docstrings and f-string parts left out."""
        skip = set()
        for region in self.regions:
            for n in ast.walk(region):
                if isinstance(n, ast.JoinedStr) or isinstance(n, (ast.arg, ast.arguments)):
                    skip.update(id(m) for m in ast.walk(n))
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not region:
                    skip.update(id(m) for m in ast.walk(n))
                for annotation in (getattr(n, "annotation", None), getattr(n, "returns", None)):
                    if annotation is not None:
                        skip.update(id(m) for m in ast.walk(annotation))
        docstring = _docstring(self.fn)
        if docstring is not None:
            skip.update(id(m) for m in ast.walk(docstring))
        # code no input can run (`if DEBUG:` with DEBUG = False): a mutant there changes nothing
        for dead in dead_code(self.fn, fixed_names(self.ext.files.parse(self.rel), self.fn)):
            skip.update(id(m) for m in ast.walk(dead))
        found = [n for region in self.regions for n in ast.walk(region) if id(n) not in skip and hasattr(n, "lineno")]
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def candidates(self):
        for node in self.nodes():
            yield from mutations.for_node(self, node)
        for call, statement in self.calls:
            yield from mutations.for_caller(self, call, statement)


def _docstring(fn: ast.FunctionDef) -> ast.stmt | None:
    first = fn.body[0] if fn.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _units(ext: Extraction) -> list[Unit]:
    core, rel = ext.core
    units = [Unit(ext, rel, core, list(core.body), "core")]
    if ext.wrapper is not None:
        units.append(Unit(ext, ext.source_rel, ext.wrapper, list(ext.wrapper.body), "caller",
                           [(ext.call.node, ext.call.statement)]))
    elif ext.shape in ("static", "moved"):
        methods = {f.name: f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for site in ext.call_sites:
            units.append(Unit(ext, ext.source_rel, methods[site.method], site.statements, "caller",
                               [(site.call, site.statements[0])]))
    return units
