"""Step 2 (with --rebase S1,S2): each subclass named inherits from BASE instead of CLASS, and
`isinstance(x, CLASS)` / `issubclass(x, CLASS)` across the checkout read BASE.

Why the behaviour is the same: a subclass S that overrides every member CLASS keeps after step 1
(and reaches none of them through `super()`) finds each attribute where it found it, CLASS
having nothing left it reads; and BASE's subclasses are then exactly CLASS's old ones (CLASS, S,
theirs), so `isinstance(x, BASE)` holds exactly where `isinstance(x, CLASS)` held before. The
check (`check`) refuses, every place at once, a member S would no longer find, a `super()` of
one, `super(CLASS, ...)` in S, and an `isinstance` whose CLASS the file does not import by name
from CLASS's module.

A file whose CLASS is then unused has its import of CLASS renamed to BASE; else BASE is added
beside it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.core.errors import Conflicts, Location
from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.extract_superclass.models import Reading, SuperclassRun, names_base
from codemods.syntax.import_statements import absolute_module
from codemods.syntax.nodes import parse
from pysource import parsing
from pysource.modules import resolve_relative

CHECKS = ("isinstance", "issubclass")


@dataclass(frozen=True)
class Sub:
    """A subclass to re-parent: where it is."""

    name: str
    path: Path
    node: ast.ClassDef


def _members(cls: ast.ClassDef) -> set[str]:
    out = set()
    for s in cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        for t in (s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []):
            if isinstance(t, ast.Name):
                out.add(t.id)
    return out


def check(cls_name: str, kept: set[str], subs: list[Sub], problems: list[Location]) -> None:
    """Refuse (into `problems`) what re-parenting `subs` would change; `kept`: what CLASS keeps."""
    for sub in subs:
        missing = sorted(kept - _members(sub.node))
        if missing:
            problems.append(Location(sub.path, sub.node.lineno, f"{sub.name} does not override {', '.join(missing)}, "
                                                                f"which {cls_name} keeps: on another base it would "
                                                                f"no longer find them"))
        for n in ast.walk(sub.node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                    and n.value.func.id == "super":
                args = n.value.args
                if args and isinstance(args[0], ast.Name) and args[0].id == cls_name:
                    problems.append(Location(sub.path, n.lineno, f"super({cls_name}, ...) in {sub.name}: it would "
                                                                 f"no longer be a {cls_name}"))
                elif not args and n.attr in kept:
                    problems.append(Location(sub.path, n.lineno, f"super().{n.attr} reaches {cls_name}.{n.attr}, "
                                                                 f"which {sub.name} would no longer inherit"))


class _Rewrite(cst.CSTTransformer):
    def __init__(self, cls_name: str, base: str, subs: set[str]):
        self.cls_name, self.base, self.subs = cls_name, base, subs
        self.count = 0

    def _swap(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, cst.Name) and node.value == self.cls_name:
            self.count += 1
            return node.with_changes(value=self.base)
        if isinstance(node, cst.Tuple):
            return node.with_changes(elements=[e.with_changes(value=self._swap(e.value)) for e in node.elements])
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):  # `CLASS | Other`
            return node.with_changes(left=self._swap(node.left), right=self._swap(node.right))
        return node

    def leave_ClassDef(self, original, updated):
        if updated.name.value not in self.subs:
            return updated
        return updated.with_changes(bases=[a.with_changes(value=self._swap(a.value)) if a.keyword is None else a
                                           for a in updated.bases])

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value in CHECKS and len(updated.args) == 2:
            second = updated.args[1]
            return updated.with_changes(args=[updated.args[0], second.with_changes(value=self._swap(second.value))])
        return updated


class _Imports(cst.CSTTransformer):
    """`from M import CLASS` -> `from M import BASE` (CLASS unused now) or `from M import CLASS, BASE`."""

    def __init__(self, module: str, package: str, cls_name: str, base: str, rename: bool):
        self.module, self.package, self.cls_name, self.base, self.rename = module, package, cls_name, base, rename

    def leave_ImportFrom(self, original, updated):
        if isinstance(updated.names, cst.ImportStar) or absolute_module(updated, self.package) != self.module:
            return updated
        names = list(updated.names)
        if any(a.asname is None and getattr(a.name, "value", None) == self.base for a in names):
            return updated
        out = []
        for a in names:
            if a.asname is None and getattr(a.name, "value", None) == self.cls_name:
                if self.rename:
                    out.append(a.with_changes(name=cst.Name(self.base)))
                    continue
                out.append(a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
                out.append(cst.ImportAlias(cst.Name(self.base), comma=a.comma))
                continue
            out.append(a)
        return updated.with_changes(names=out)


def _imports_class(tree: ast.Module, module: str, cls_name: str, package: str) -> bool:
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any(a.name == cls_name and a.asname is None for a in n.names):
            if resolve_relative(n.module, n.level, package) == module:
                return True
    return False


def _uses(tree: ast.Module, name: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))


def rewrite_file(path: Path, text: str, run: SuperclassRun, subs: set[str], defines: bool,
                 problems: list[Location]) -> Optional[str]:
    """`text` re-parented and its checks rewritten (None: nothing to do here)."""
    spec = run.spec
    tree = parsing.parse(text, str(path))
    wanted = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in CHECKS
                 and len(n.args) == 2 and spec.class_name in _named(n.args[1]) for n in ast.walk(tree))
    wanted |= any(isinstance(s, ast.ClassDef) and s.name in subs and names_base(s, spec.class_name)
                  for s in ast.walk(tree))
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in CHECKS and len(n.args) == 2 \
                and any(isinstance(e, ast.Attribute) and e.attr == spec.class_name for e in _elements(n.args[1])):
            problems.append(Location(path, n.lineno, f"{n.func.id}(..., ...{spec.class_name}) through a module: "
                                                     f"rewrite it to {spec.base} by hand first"))
    if not wanted:
        return None
    package = run.ctx.checkout.package_of(path) or ""
    if not defines and not _imports_class(tree, run.source_module, spec.class_name, package):
        line = next((n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == spec.class_name), 1)
        problems.append(Location(path, line, f"{spec.class_name} here is not imported by name from "
                                             f"{run.source_module}: rewrite it to {spec.base} by hand first"))
        return None
    rewrite = _Rewrite(spec.class_name, spec.base, subs)
    module = parse(path, text).visit(rewrite)
    if not defines:
        unused = _uses(parsing.parse(module.code, str(path)), spec.class_name) == 0
        module = module.visit(_Imports(run.source_module, package, spec.class_name, spec.base, unused))
    return module.code


def _elements(node: ast.expr) -> list[ast.expr]:
    """The classes a check's second argument names: through tuples and `|` unions, nested."""
    if isinstance(node, ast.Tuple):
        return [e for elt in node.elts for e in _elements(elt)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _elements(node.left) + _elements(node.right)
    return [node]


def _named(node: ast.expr) -> set[str]:
    return {e.id for e in _elements(node) if isinstance(e, ast.Name)}


class Rebase(Step[SuperclassRun, None]):
    number = 2

    def done(self, reading: Reading) -> bool:
        return all(not names_base(s, reading.spec.class_name) and names_base(s, reading.spec.base)
                   for s in reading.subclasses.values())

    def run(self, run: SuperclassRun, tree: Tree, carry: None) -> Outcome[None]:
        spec = run.spec
        subs = {s.name for s in run.subclasses}
        problems: list[Location] = []
        files: dict[Path, str] = {}
        originals: dict[Path, Optional[str]] = {}
        module = tree.module
        known = {p.resolve(): p for p in tree.current}
        paths = {Path(run.ctx.checkout.path(p)) for p in run.ctx.checkout.select(
            lambda b: True, mentioning=spec.class_name.encode())} | {s.path for s in run.subclasses}
        paths = {known.get(p.resolve(), p) for p in paths}
        for path in sorted(paths):
            text = tree.current.get(path) if path in tree.current else run.ctx.read(path)
            if text is None:
                continue
            new = rewrite_file(path, text, run, subs, path == run.source, problems)
            if new is None or new == text:
                continue
            if path == tree.source:
                module = parse(path, new)
            else:
                files[path] = new
                originals[path] = run.originals.get(path, text) if path in run.originals else text
        if problems:
            raise Conflicts(problems)
        names = ", ".join(sorted(subs))
        return Outcome(f"Re-parent {names} onto {spec.base}", module, files=files, originals=originals,
                       messages=[f"  {names} inherit(s) from {spec.base}; isinstance/issubclass of "
                                 f"{spec.class_name} read {spec.base} in {len(files) + (module is not tree.module)} "
                                 f"file(s)"])
