"""Generic mutants of an extraction: small non-equivalent edits of the function holding the logic
(the moved function, the static method, or the original method) and of the code that calls it
and applies its results (the wrapper, else the call sites), to check that a harness notices.

Kinds: "cmp-flip" (`==`/`!=`, `<`/`>=`, `>`/`<=`, `is`/`is not`, `in`/`not in`), "const" (int + 1,
string altered, True/False swapped, None made a value), "drop" (a simple statement becomes
`pass`), "branch-swap" (if body and else swapped, or the test negated without a plain else; the
two arms of `a if c else b`), "bool-swap" (`and`/`or`), "arg-order" (two positional arguments
swapped; in the call of the extracted function, two keyword values), "write" (a result assigned to
another attribute, or not written; in a method, `self.Y = ...` becomes `self.Y_mutant = ...`),
"param-source" (the call passes a parameter from another attribute).

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
    units = _units(ext)
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
                base = f"{kind}@L{edit.line}"
                seen_ids[base] = seen_ids.get(base, 0) + 1
                mutant_id = base if seen_ids[base] == 1 else f"{base}#{seen_ids[base]}"
                out.append(Mutant(mutant_id, edit.description, kind, unit.rel, edit.line, {unit.rel: text}))
                break
    return out


def _alternate(lists: list[list]) -> list:
    """One from each list in turn (the function's edits, then the wrapper's, then the function's...)."""
    out = []
    for i in range(max(map(len, lists), default=0)):
        out += [items[i] for items in lists if i < len(items)]
    return out


class _Unit:
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

    def apply(self, edit: Edit) -> str | None:
        """The file's text with `edit` applied, or None if the function no longer parses or its
        AST is unchanged."""
        text, delta = self.text, 0
        for start, end, new in sorted(edit.spans, reverse=True):
            text = text[:start] + new + text[end:]
            delta += len(new) - (end - start)
        mutated = self._parse(text[self.span[0]:self.span[1] + delta])
        return text if mutated is not None and mutated != self.original else None

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


def _units(ext: Extraction) -> list[_Unit]:
    core, rel = ext.core
    units = [_Unit(ext, rel, core, list(core.body), "core")]
    if ext.wrapper is not None:
        units.append(_Unit(ext, ext.source_rel, ext.wrapper, list(ext.wrapper.body), "caller",
                           [(ext.call.node, ext.call.statement)]))
    elif ext.shape in ("static", "moved"):
        methods = {f.name: f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for site in ext.call_sites:
            units.append(_Unit(ext, ext.source_rel, methods[site.method], site.statements, "caller",
                               [(site.call, site.statements[0])]))
    return units
