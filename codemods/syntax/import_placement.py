"""Add an import to a module the way isort would, touching no other line.

The import joins the module's import block: the last run of import lines before the first def
or class (the leading one, unless statements come between, such as `suppress_noisy_warnings()`,
that the later imports may rely on having run). A name from a module that block already imports
from (`from X import a, b`) joins that line, which is formatted again alone; any other import is
a new line placed in the block by isort's order: section (future, stdlib, third party, first
party, local), then plain `import`s before `from` imports (unless the tree's isort setting
`force_sort_within_sections` says otherwise), then module name, case-insensitively.
"""

from __future__ import annotations

from typing import Optional

import isort
import libcst as cst

from codemods.syntax.nodes import is_docstring
from codemods.core.formatting import Style, format_import
from codemods.syntax.import_statements import absolute_module, bound_name, is_import_line, module_name

SECTIONS = ("FUTURE", "STDLIB", "THIRDPARTY", "FIRSTPARTY", "LOCALFOLDER")


def from_import(mod: str, names: list[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.ImportFrom(module=cst.parse_expression(mod),
                                                        names=[cst.ImportAlias(cst.Name(n)) for n in names])])


def find_from_line(module: cst.Module, mod: str, package: str) -> Optional[int]:
    """Index of the first top-level `from mod import a, ...` line (not `*`), if any."""
    for i, s in enumerate(module.body):
        if is_import_line(s) and len(s.body) == 1 and isinstance(s.body[0], cst.ImportFrom) \
                and not isinstance(s.body[0].names, cst.ImportStar) and absolute_module(s.body[0], package) == mod:
            return i
    return None


def add_import(module: cst.Module, new: cst.SimpleStatementLine, style: Style, package: str = "") -> cst.Module:
    """`module` with the import `new` merged into a `from` line of the same module, or placed anew."""
    small = new.body[0]
    if isinstance(small, cst.ImportFrom):
        at = find_from_line(module, absolute_module(small, package), package)
        if at is not None and at in _import_block(list(module.body)):  # an earlier line would load a
            # submodule it names before what the later block relies on ran
            line = module.body[at]
            merged = _with_names(line, list(small.names), style)
            return module.with_changes(body=(*module.body[:at], merged, *module.body[at + 1:]))
    return _place(module, format_import(new, style), style, package)


def _with_names(line: cst.SimpleStatementLine, names: list[cst.ImportAlias], style: Style) -> cst.SimpleStatementLine:
    small = line.body[0]
    have = {bound_name(a, True) for a in small.names}
    extra = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in names if bound_name(a, True) not in have]
    old = list(small.names)
    if old and isinstance(old[-1].comma, cst.MaybeSentinel) and extra:
        old[-1] = old[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    if small.lpar is None and extra:  # a one-line import stays valid even unformatted
        extra[-1] = extra[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    merged = line.with_changes(body=[small.with_changes(names=[*old, *extra])])
    return format_import(merged, style) if "#" not in cst.Module(body=[line]).code else merged


def _key(s: cst.SimpleStatementLine, style: Style, package: str) -> tuple:
    small = s.body[0]
    is_from = isinstance(small, cst.ImportFrom)
    if is_from and small.relative:
        section, mod = "LOCALFOLDER", absolute_module(small, package)
    else:
        mod = absolute_module(small, package) if is_from else module_name(small.names[0].name)
        section = isort.place_module(mod, config=style.isort_config())
    within = () if style.isort_settings.get("force_sort_within_sections") else (is_from,)
    return (SECTIONS.index(section) if section in SECTIONS else len(SECTIONS), *within, mod.lower())


def _import_block(body: list) -> list[int]:
    """The indices of the block a new import joins: the last run of import lines before the first
    def or class. Imports placed after other statements (`os.environ.setdefault(...)`,
    `suppress_noisy_warnings()`) may rely on them having run: an import that joined an earlier
    block would load what it brings before they did. What a new import brings is used only once
    the module's defs and classes run, so the later block is always early enough."""
    start = 1 if body and is_docstring(body[0]) else 0
    blocks, block = [], []
    for i in range(start, len(body)):
        if isinstance(body[i], (cst.FunctionDef, cst.ClassDef)):
            break
        if is_import_line(body[i]) and len(body[i].body) == 1:
            block.append(i)
        elif block:
            blocks.append(block)
            block = []
    if block:
        blocks.append(block)
    return blocks[-1] if blocks else []


def _place(module: cst.Module, new: cst.SimpleStatementLine, style: Style, package: str) -> cst.Module:
    body = list(module.body)
    start = 1 if body and is_docstring(body[0]) else 0
    block = _import_block(body)
    if not block:
        body.insert(start, new.with_changes(leading_lines=[cst.EmptyLine()] if start else ()))
        return module.with_changes(body=body)
    key = _key(new, style, package)
    before = [i for i in block if _key(body[i], style, package) <= key]
    at = before[-1] + 1 if before else block[0]
    prev_same = bool(before) and _key(body[at - 1], style, package)[0] == key[0]
    nxt = body[at] if at <= block[-1] else None
    if not prev_same and nxt is not None and _key(nxt, style, package)[0] == key[0]:
        # the new line opens its section: it takes the blank (or comment) lines that opened it
        body[at] = nxt.with_changes(leading_lines=())
        new = new.with_changes(leading_lines=nxt.leading_lines)
    elif prev_same:
        new = new.with_changes(leading_lines=())
    elif nxt is not None and not before:  # a section of its own, first in the file
        body[at] = nxt.with_changes(leading_lines=[cst.EmptyLine()])
        new = new.with_changes(leading_lines=nxt.leading_lines)
    else:  # a section of its own after another
        new = new.with_changes(leading_lines=[cst.EmptyLine()])
    body.insert(at, new)
    return module.with_changes(body=body)
