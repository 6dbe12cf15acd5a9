"""Where the class uses its method, and the rewrites of those uses each step makes.

`find_sites` visits only the class members whose text spells `.name` (found by regex on the
text and Python's `ast` for the members' line ranges: visiting a whole 3000-line class with
LibCST costs more than parsing it). Each `Site` knows its call, the statement holding it and
its nesting depth, so that a step can replace that statement (formatted alone) or, for a call
in a compound statement's header (`if self.m():`), just the call.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Union

import libcst as cst

from pysource.parsing import parse as python_ast
from codemods.syntax.nodes import dotted, statement_lines
from codemods.core.errors import Refusal
from codemods.core.formatting import Style, format_statement
from codemods.extract_method.recipe import Recipe


@dataclass
class Site:
    node: cst.Attribute  # `<receiver>.name`
    call: Optional[cst.Call]  # the call of it, None when it is not called
    statement: cst.BaseStatement  # innermost statement holding it
    holder: Optional[cst.FunctionDef]  # class member holding it
    depth: int  # nesting depth of `statement` (class body = 1)
    line: Optional[int]
    path: tuple = ()  # the nodes from the class member down to `node`'s parent

    @property
    def in_simple_statement(self) -> bool:
        return isinstance(self.statement, cst.SimpleStatementLine)


class _Finder(cst.CSTVisitor):
    """`member`: the class member whose body's statements are visited one by one (else the
    member, or the whole class, is visited)."""

    def __init__(self, name: str, depth: int, member: Optional[cst.FunctionDef] = None):
        self.name = name
        self.sites: list[Site] = []
        self._statements: list[cst.BaseStatement] = []
        self._member: list[cst.FunctionDef] = [member] if member is not None else []
        self._depth = depth
        self._called: dict[int, cst.Call] = {}
        self._path: list[cst.CSTNode] = [member, member.body] if member is not None else []

    def visit_IndentedBlock(self, node) -> None:
        self._depth += 1

    def leave_IndentedBlock(self, node) -> None:
        self._depth -= 1

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.append(node)
        if isinstance(node, cst.FunctionDef):
            self._member.append(node)
        if isinstance(node, cst.Call):
            self._called[id(node.func)] = node
        if isinstance(node, cst.Attribute) and node.attr.value == self.name:
            self.sites.append(Site(node, self._called.get(id(node)), self._statements[-1],
                                   self._member[0] if self._member else None, self._depth, None,
                                   tuple(self._path)))
        self._path.append(node)
        return super().on_visit(node)

    def on_leave(self, node) -> None:
        self._path.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statements.pop()
        if isinstance(node, cst.FunctionDef):
            self._member.pop()
        super().on_leave(node)


@dataclass
class Holder:
    """A method of the class whose text spells `.name`."""

    lines: list[int]  # where it does (refusals point there)
    statements: Optional[set[int]]  # indices of the statements of its body that do (None: elsewhere too)
    count: int  # how many statements its body had then (a later step's body may differ: search it all)


def holders(text: str, class_name: str, name: str) -> Optional[dict[str, Holder]]:
    """{method of the class whose text spells `.name`: where}; None when some other class
    member spells it (then the whole class is searched)."""
    hits = call_lines(text, name)
    if not hits:
        return {}
    tree = python_ast(text)
    found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name]
    if len(found) != 1:
        return None
    out: dict[str, Holder] = {}
    for member in found[0].body:
        first = min([member.lineno, *(d.lineno for d in getattr(member, "decorator_list", ()))])
        inside = [h for h in hits if first <= h <= member.end_lineno]
        if not inside:
            continue
        if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) or member.name in out:
            return None
        groups = statement_lines(member.body)
        statements = {i for h in inside for i, (a, b) in enumerate(groups) if a <= h <= b}
        out[member.name] = Holder(inside, statements if len(statements) and all(
            any(a <= h <= b for a, b in groups) for h in inside) else None, len(groups))
    return out


def find_sites(cls: cst.ClassDef, name: str, text: str, members: Optional[dict[str, Holder]],
               path: Optional[Path] = None) -> list[Site]:
    """Every `<x>.name` in the class, in order; `members`: only those methods hold any (`holders`),
    in those statements of their bodies when known (visiting a long `__init__` whole costs).
    `path` (the file of `text`): leave out `m.name` where `m` is a module the file imports
    (`module_names`): a same-named function of that module, not the method."""
    if path is not None:
        modules = module_names(text, path)
        return [s for s in find_sites(cls, name, text, members)
                if (dotted(s.node.value) or "").partition(".")[0] not in modules]
    if members is None:
        finder = _Finder(name, 0)
        cls.visit(finder)
        _number(finder.sites, call_lines(text, name))
        return finder.sites
    sites = []
    for s in cls.body.body:
        holder = members.get(s.name.value) if isinstance(s, cst.FunctionDef) else None
        if holder is None:
            continue
        if holder.statements is not None and isinstance(s.body, cst.IndentedBlock) \
                and len(s.body.body) == holder.count:
            finder = _Finder(name, 2, s)
            for i in sorted(holder.statements):
                s.body.body[i].visit(finder)
        else:
            finder = _Finder(name, 1)
            s.visit(finder)
        _number(finder.sites, holder.lines)
        sites += finder.sites
    return sites


def module_names(text: str, path: Path) -> frozenset[str]:
    """The names the file binds only by importing a module: `import a.b` (`a`), `import a.b as m`,
    `from p import m` where `p/m.py` (or `p/m/__init__.py`) is a file beside the package the file
    is in (or, relative, beside the file); a name also bound any other way (assigned, a parameter,
    a `def`, imported from elsewhere, `global`) is left out, as may be anything."""
    tree = python_ast(text)
    ancestors = [path.parent, *path.parent.parents]
    imported: dict[str, bool] = {}
    other: set[str] = set()

    def is_module(dotted_name: str, base: Optional[Path] = None) -> bool:
        rel = Path(*dotted_name.split("."))
        places = [base] if base is not None else ancestors
        return any((a / rel).with_suffix(".py").is_file() or (a / rel / "__init__.py").is_file() for a in places)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.partition(".")[0]
                imported[bound] = imported.get(bound, True)
        elif isinstance(node, ast.ImportFrom):
            base = None
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
            for a in node.names:
                full = f"{node.module}.{a.name}" if node.module else a.name
                bound = a.asname or a.name
                imported[bound] = imported.get(bound, True) and a.name != "*" and is_module(full, base)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            other.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            other.add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name or isinstance(node, ast.MatchStar) and node.name:
            other.add(node.name)
    return frozenset(n for n, ok in imported.items() if ok and n not in other)


def _number(sites: list[Site], lines: list[int]) -> None:
    """Lines of the sites, from the text's matches in the same order (a match in a string may
    shift them: they only point refusals at their line)."""
    for site, line in zip(sites, [*lines, *[None] * len(sites)]):
        site.line = line


def call_lines(text: str, name: str) -> list[int]:
    return [text.count("\n", 0, h.start()) + 1 for h in re.finditer(rf"\.[\s\\]*{re.escape(name)}\b", text)]


def require_calls(sites: list[Site], receiver: str, path: Path, what: str) -> None:
    """Every site is a call `receiver.name(...)`; else refused naming the first other use."""
    for site in sites:
        if dotted(site.node.value) != receiver:
            raise Refusal(f"{dotted(site.node) or what} is not {receiver}.{site.node.attr.value}(...): the "
                          f"rewrite follows calls on {receiver} only", path, site.line)
        if site.call is None:
            raise Refusal(f"{receiver}.{site.node.attr.value} is used other than by calling it (passed as a "
                          f"value?): {what} would no longer be the same callable", path, site.line)


def require_sites(sites: list[Site], recipe: Recipe, path: Path, callee: str) -> None:
    """A strict recipe's method has exactly one call site, `callee(...)`."""
    if recipe.infer:
        return
    if len(sites) != 1:
        raise Refusal(f"expected exactly one call of {recipe.method_name} in {recipe.class_name}, "
                      f"found {len(sites)}", path, sites[1].line if len(sites) > 1 else None)
    if dotted(sites[0].node) != callee or sites[0].call is None:
        raise Refusal(f"the call of {recipe.method_name} is not {callee}(...)", path, sites[0].line)


@dataclass(frozen=True)
class Header:
    """A whole compound-statement header expression to put back (`if <this>:`), not a call."""

    node: cst.CSTNode


Replacement = Union[cst.Call, Header, list[cst.BaseStatement]]
# compound statements whose header expression a site may sit in, and that header's field
_HEADERS = {cst.If: "test", cst.While: "test", cst.For: "iter"}


def header_of(site: Site) -> Optional[cst.CSTNode]:
    """The header expression of the compound statement holding `site` (`if <header>:`), if any."""
    if site.in_simple_statement:
        return None
    nodes = [*site.path, site.node]
    at = next(i for i, n in enumerate(nodes) if n is site.statement)
    return nodes[at + 1] if at + 1 < len(nodes) else None


def _formatted_header(statement: cst.BaseCompoundStatement, old: cst.CSTNode, header: cst.CSTNode, depth: int,
                      style: Style):
    """`header` (replacing `old`) as black lays it out in `statement`'s header (a bare
    `if`/`while`/`for` around it)."""
    field = _HEADERS.get(type(statement))
    if field is None or getattr(statement, field) is not old or not style.enabled:
        return header
    stub = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
    shell = statement.with_changes(body=stub, leading_lines=(), **{field: header}, **(
        {"orelse": None} if hasattr(statement, "orelse") else {}))
    return getattr(format_statement(shell, depth, style), field)


def rewrite_sites(cls: cst.ClassDef, sites: list[Site], new: Callable[[Site], Replacement], style: Style
                  ) -> cst.ClassDef:
    """`cls` with each site replaced: `new(site)` gives a new call (the statement holding it, or
    the compound statement's header, is formatted again), a `Header` to put back whole, or the
    statements replacing its statement."""
    by_statement: dict[int, list] = {}
    for site in sites:
        by_statement.setdefault(id(site.statement), []).append((site, new(site)))
    swaps: dict[int, object] = {}
    for group in by_statement.values():
        site = group[0][0]
        statements = [r for _, r in group if isinstance(r, list)]
        headers = [r for _, r in group if isinstance(r, Header)]
        calls = {id(s.call if s.call is not None else s.node): r for s, r in group if isinstance(r, cst.Call)}
        if statements:
            swaps[id(site.statement)] = statements[0]
        elif headers:
            swaps[id(header_of(site))] = headers[0].node
        elif site.in_simple_statement:
            line = site.statement.visit(_SwapCalls(calls))
            swaps[id(site.statement)] = [format_statement(line, site.depth, style)]
        else:
            header = header_of(site)
            swaps[id(header)] = _formatted_header(site.statement, header, header.visit(_SwapCalls(calls)), site.depth,
                                                  style)
    return apply_swaps(cls, sites, swaps)


def apply_swaps(cls: cst.ClassDef, sites: list[Site], swaps: dict) -> cst.ClassDef:
    """`cls` with `swaps` ({id(statement or call): replacement}) made in the members holding `sites`:
    along the path from the member when it holds one site (cheap), else by a transformer."""
    members = list(cls.body.body)
    by_holder: dict[int, list[Site]] = {}
    for site in sites:
        by_holder.setdefault(id(site.holder), []).append(site)
    if id(None) in by_holder:
        return cls.visit(_Swap(swaps))
    for i, member in enumerate(members):
        held = by_holder.get(id(member))
        if held is None:
            continue
        path = _swap_path(held[0], swaps) if len(held) == 1 else None
        if path is None:
            members[i] = member.visit(_Swap(swaps))
            continue
        *ancestors, old = path
        new = swaps[id(old)]
        for parent in reversed(ancestors):
            new = replace_child(parent, old, new)
            old = parent
        members[i] = new
    return cls.with_changes(body=cls.body.with_changes(body=members))


def _swap_path(site: Site, swaps: dict) -> Optional[list]:
    """The nodes from the member down to the one `swaps` replaces for `site`."""
    nodes = [*site.path, site.node]
    for i, node in enumerate(nodes):
        if id(node) in swaps:
            return nodes[:i + 1] if nodes[0] is site.holder else None
    return None


def replace_child(parent: cst.CSTNode, old: cst.CSTNode, new) -> cst.CSTNode:
    """`parent` with its child `old` replaced by `new` (a node, or a list of statements)."""
    for f in dataclasses.fields(parent):
        value = getattr(parent, f.name)
        if value is old:
            return parent.with_changes(**{f.name: new[0] if isinstance(new, list) else new})
        if isinstance(value, (list, tuple)) and any(x is old for x in value):
            items = []
            for x in value:
                items += (new if isinstance(new, list) else [new]) if x is old else [x]
            return parent.with_changes(**{f.name: items})
    raise ValueError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


class _SwapCalls(cst.CSTTransformer):
    def __init__(self, calls: dict):
        self.calls = calls

    def leave_Call(self, original, updated):
        return self.calls.get(id(original), updated)

    def leave_Attribute(self, original, updated):  # a property's read, replaced by a call
        return self.calls.get(id(original), updated)


class _Swap(cst.CSTTransformer):
    """Statements (by identity) -> lists of statements; calls (by identity) -> new calls."""

    def __init__(self, swaps: dict):
        self.swaps = swaps

    def on_leave(self, original, updated):
        new = self.swaps.get(id(original))
        if new is None:
            return updated
        if isinstance(new, list):
            return cst.FlattenSentinel(new) if len(new) != 1 else new[0]
        return new
