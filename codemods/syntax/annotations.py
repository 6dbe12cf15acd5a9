"""Annotations as moved code needs them: whether a module's annotations are ever run (`is_lazy`),
the names only annotations use (`annotation_only`), and what a class says an attribute's type is
(`attribute_types`: `self.X: T = ...`, a class-level `X: T`, or `self.X = p` from a parameter
annotated `T`, all agreeing; bases in the tree included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterator, Optional

import libcst as cst

from pysource.classes import classes
from pysource.names import is_attribute_of
from codemods.syntax.import_statements import module_name
from codemods.syntax.travelling_code import free_names


def is_lazy(module: cst.Module) -> bool:
    """Whether `module` has `from __future__ import annotations` (its annotations are never run)."""
    for s in module.body:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.ImportFrom) and small.module is not None \
                        and module_name(small.module) == "__future__" and not isinstance(small.names, cst.ImportStar) \
                        and any(module_name(a.name) == "annotations" for a in small.names):
                    return True
    return False


class _Unannotated(cst.CSTTransformer):
    def leave_Param(self, original, updated):
        return updated.with_changes(annotation=None)

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(returns=None)


def annotation_only(stmts: list[cst.BaseStatement]) -> set[str]:
    """The free names of `stmts` that only their functions' annotations use."""
    bare = [s.visit(_Unannotated()) for s in stmts]
    return free_names(stmts) - free_names(bare)


def attribute_types(text: str, class_name: str, root: Path, module: str, wanted: set[str]
                    ) -> dict[str, Optional[str]]:
    """{attribute: its annotation, None when the class does not say it unambiguously} for the
    `wanted` attributes the class (or a base of it in the tree) declares or assigns through
    `self`. Only the methods whose text spells `self.<wanted>` are walked."""
    declared: dict[str, set[str]] = {}
    assigned: dict[str, set[Optional[str]]] = {}
    spelled = re.compile(r"self\s*\.\s*(?:" + "|".join(map(re.escape, sorted(wanted))) + r")\b")
    for cls, source in classes(text, class_name, root, module) if wanted else ():
        lines = set(_lines(source, spelled))
        for s in cls.body:
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id in wanted:
                declared.setdefault(s.target.id, set()).add(ast.unparse(s.annotation))
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    s.lineno <= line <= s.end_lineno for line in lines):
                _method(s, wanted, declared, assigned)
    out: dict[str, Optional[str]] = {}
    for name in {*declared, *assigned}:
        found = declared.get(name) or assigned[name]
        out[name] = next(iter(found)) if len(found) == 1 else None
    return out


def _lines(text: str, pattern: re.Pattern) -> Iterator[int]:
    """The 1-based line of each match of `\b` + `pattern` (which starts `self`) in `text`, in
    order: `pattern.finditer` with the `\b` in front, tried only where `self` is spelled (a
    pattern opening with `\b` is tried at every character of the class)."""
    line, at, end = 1, 0, 0
    start = text.find("self")
    while start != -1:
        if start >= end and (start == 0 or not _word(text[start - 1])):
            hit = pattern.match(text, start)
            if hit is not None:
                line += text.count("\n", at, start)
                at, end = start, max(hit.end(), start + 1)
                yield line
        start = text.find("self", start + 1)


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"  # what `\w` matches


def _method(func, wanted: set[str], declared: dict, assigned: dict) -> None:
    params = {a.arg: a.annotation for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    rebound: set[str] = set()
    values: list[tuple[str, Optional[ast.expr]]] = []  # (attribute, the value assigned to it, if one)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            rebound.add(node.id)
        elif isinstance(node, ast.AnnAssign) and is_attribute_of(node.target, "self"):
            if node.target.attr in wanted:
                declared.setdefault(node.target.attr, set()).add(ast.unparse(node.annotation))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            targets = node.targets if isinstance(node, ast.Assign) else [i.optional_vars for i in node.items] \
                if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target]
            values += [(t.attr, node.value if isinstance(node, ast.Assign) and t is target else None)
                       for target in targets for t in _assigned(target) if t.attr in wanted]
    for attribute, value in values:
        annotation = params.get(value.id) if isinstance(value, ast.Name) and value.id not in rebound else None
        assigned.setdefault(attribute, set()).add(ast.unparse(annotation) if annotation else None)


def _assigned(target: Optional[ast.expr]) -> list[ast.Attribute]:
    """The `self.X` an assignment target binds (`self.x`, `a, self.x`, `*self.rest`), not those
    it only reads (`self.x.y = ...` binds nothing of `self`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for e in target.elts for t in _assigned(e)]
    if isinstance(target, ast.Starred):
        return _assigned(target.value)
    return [target] if is_attribute_of(target, "self") else []
