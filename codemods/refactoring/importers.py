"""Other files of the tree that import a moved global from the source module.

Text is searched first (cheap); only files that mention both the source module and a moved
name are parsed. `from source import NAME` becomes `from target import NAME`.

A moved name read as an attribute of the source module (`model_runner.NAME` after
`from sglang.srt.model_executor import model_runner`, `mr.NAME` after `import ... as mr`, or
the full dotted path after a plain `import`) is refused, naming the file and line: the
rewrite would need a new import in that file, whose name may clash with its locals, so the
maintainer should point it at the new module first.
"""

from __future__ import annotations

import os
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.refactoring.cstutil import dotted
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_import
from codemods.refactoring.imports import absolute_module, bound_name, module_name
from codemods.refactoring.recipe import Recipe


def candidate_files(root: Path, recipe: Recipe, skip: set[Path]) -> list[tuple[Path, str]]:
    names = [n.encode() for n in recipe.moved_globals]
    tail = recipe.source_module.rpartition(".")[2].encode()
    out = []
    for folder, dirs, files in os.walk(root / recipe.source_module.split(".")[0]):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for f in files:
            if not f.endswith(".py"):
                continue
            p = Path(folder, f)
            if p in skip:
                continue
            try:
                data = p.read_bytes()
            except OSError:
                continue
            if tail in data and any(n in data for n in names):
                out.append((p, data.decode("utf-8")))
    return out


class _Redirect(cst.CSTTransformer):
    def __init__(self, package: str, recipe: Recipe, style: Style):
        self.package, self.recipe, self.style = package, recipe, style
        self.changed = False

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.ImportFrom):
            return updated
        small = updated.body[0]
        if isinstance(small.names, cst.ImportStar) or absolute_module(small, self.package) != self.recipe.source_module:
            return updated
        moved = [a for a in small.names if module_name(a.name) in self.recipe.moved_globals]
        if not moved:
            return updated
        self.changed = True
        rest = [a for a in small.names if a not in moved]
        new = cst.SimpleStatementLine(body=[cst.ImportFrom(
            module=cst.parse_expression(self.recipe.target_module),
            names=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in moved])])
        new = format_import(new, self.style)
        if not rest:
            return new.with_changes(leading_lines=updated.leading_lines)
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        kept = format_import(updated.with_changes(body=[small.with_changes(names=rest, lpar=None, rpar=None)]), self.style)
        return cst.FlattenSentinel([kept, new])


class _ModuleRefs(cst.CSTVisitor):
    """Names (or dotted paths) by which a file refers to the source module, anywhere in it."""

    def __init__(self, package: str, source: str):
        self.package, self.source = package, source
        self.refs: set[str] = set()

    def visit_Import(self, node: cst.Import) -> None:
        for a in node.names:
            full = module_name(a.name)
            if a.asname is not None and full == self.source:
                self.refs.add(bound_name(a, False))
            elif a.asname is None and (full == self.source or full.startswith(self.source + ".")):
                self.refs.add(self.source)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        mod = absolute_module(node, self.package)
        for a in node.names:
            if f"{mod}.{module_name(a.name)}" == self.source:
                self.refs.add(bound_name(a, True))


class _AttributeReads(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, refs: set[str], names: tuple[str, ...]):
        self.refs, self.names = refs, names
        self.hits: list[tuple[int, str]] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.names and dotted(node.value) in self.refs:
            line = self.get_metadata(PositionProvider, node).start.line
            self.hits.append((line, f"{dotted(node.value)}.{node.attr.value}"))


def refuse_attribute_reads(path: Path, module: cst.Module, package: str, recipe: Recipe,
                           gone: tuple[str, ...]) -> None:
    if not gone:
        return
    refs = _ModuleRefs(package, recipe.source_module)
    module.visit(refs)
    if not refs.refs:
        return
    reads = _AttributeReads(refs.refs, gone)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(reads)
    if reads.hits:
        line, spelled = min(reads.hits)
        name = spelled.rpartition(".")[2]
        raise Refusal(f"reads {spelled} through the module {recipe.source_module}, which will no longer "
                      f"define {name}: import it from {recipe.target_module} there first", path, line)


def redirect_importers(root: Path, recipe: Recipe, skip: set[Path], style: Style,
                       still_bound: frozenset[str] = frozenset()) -> dict[Path, tuple[str, str]]:
    """{path: (old text, new text)} for every file that imported a moved name from the source module.

    `still_bound`: moved names the source module imports back (it still uses them), so that
    reading them as its attributes keeps working."""
    gone = tuple(n for n in recipe.moved_globals if n not in still_bound)
    out = {}
    for path, text in candidate_files(root, recipe, skip):
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue
        rel = path.relative_to(root).with_suffix("")
        package = ".".join(rel.parts[:-1]) if rel.name != "__init__" else ".".join(rel.parts[:-1])
        refuse_attribute_reads(path, module, package, recipe, gone)
        redirect = _Redirect(package, recipe, style)
        new = module.visit(redirect)
        if redirect.changed:
            out[path] = (text, new.code)
    return out
