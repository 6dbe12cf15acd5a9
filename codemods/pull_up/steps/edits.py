"""What both steps do to files: edit a class of a module (LibCST), each file as the steps so far
left it, rendering only what changed (`core.render.Renderer`)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Optional

import libcst as cst

from codemods.core.render import Renderer
from codemods.core.runner import Tree
from codemods.syntax.import_placement import add_import
from codemods.syntax.import_statements import is_import_line
from codemods.syntax.nodes import code, parse, top_class

Edit = Callable[[cst.ClassDef], cst.ClassDef]


def edit_classes(module: cst.Module, path: Path, edits: Mapping[str, Edit]) -> cst.Module:
    """`module` with each named top-level class edited."""
    body = list(module.body)
    for name, edit in edits.items():
        index, cls = top_class(module, name, path)
        body[index] = edit(cls)
    return module.with_changes(body=body)


def function(cls: cst.ClassDef, name: str) -> tuple[int, cst.FunctionDef]:
    return next((i, s) for i, s in enumerate(cls.body.body) if isinstance(s, cst.FunctionDef) and s.name.value == name)


def with_body(cls: cst.ClassDef, body: list) -> cst.ClassDef:
    """The class with `body`, `pass` when nothing (but a docstring) is left."""
    from codemods.syntax.nodes import is_docstring

    if all(is_docstring(s) for s in body):
        body = [*body, cst.SimpleStatementLine(body=[cst.Pass()])]
    return cls.with_changes(body=cls.body.with_changes(body=body))


def blank_above(node: cst.CSTNode, blanks: int = 1) -> cst.CSTNode:
    """`node` with `blanks` blank lines above it and its comments kept."""
    comments = [line for line in node.leading_lines if line.comment is not None]
    return node.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * blanks + comments)


def _spaced_after_imports(module: cst.Module) -> cst.Module:
    """Two blank lines between the last import and a class or def right after it (an import placed
    into a module that had none sits right above it)."""
    body = list(module.body)
    last = max((i for i, s in enumerate(body) if is_import_line(s)), default=None)
    if last is None or last + 1 >= len(body) or not isinstance(body[last + 1], (cst.ClassDef, cst.FunctionDef)):
        return module
    nxt = body[last + 1]
    blanks = 0
    for line in nxt.leading_lines:
        if line.comment is not None:
            break
        blanks += 1
    if blanks >= 2:
        return module
    body[last + 1] = nxt.with_changes(leading_lines=[cst.EmptyLine(indent=False)] * (2 - blanks)
                                      + list(nxt.leading_lines))
    return module.with_changes(body=body)


def apply(tree: Tree, render: Callable[[cst.Module], str], edits: Mapping[Path, Mapping[str, Edit]],
          imports: Mapping[Path, list[cst.SimpleStatementLine]], style, package_of: Callable[[Path], str]
          ) -> tuple[cst.Module, dict[Path, str], dict[Path, Optional[str]]]:
    """(the source module after the edits, the other files' new texts, their texts before)."""
    module = tree.module
    files: dict[Path, str] = {}
    originals: dict[Path, Optional[str]] = {}
    for path in sorted(set(edits) | set(imports)):
        same = path == tree.source
        text = tree.text if same else tree.current.get(path)
        if text is None:
            text = path.read_text(encoding="utf-8")
        mod = module if same else parse(path, text)
        new = edit_classes(mod, path, edits.get(path, {}))
        for line in imports.get(path, []):
            new = add_import(new, line, style, package_of(path))
        if imports.get(path):
            new = _spaced_after_imports(new)
        if same:
            module = new
        else:
            files[path] = code(new, Renderer(mod, text).render)
            originals[path] = text
    return module, files, originals
