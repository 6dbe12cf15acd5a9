"""Small helpers over LibCST nodes shared by the steps."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.core.errors import BadInput, Refusal
from pysource import parsing


def parse(path: Path, text: str) -> cst.Module:
    try:
        return parse_text(text)
    except cst.ParserSyntaxError as exc:
        raise BadInput(f"syntax error: {exc.message}", path, exc.raw_line) from None


def parse_text(text: str) -> cst.Module:
    """`libcst.parse_module(text)`, once per text in a run (`pysource.parsing`)."""
    return parsing.once("libcst", text, cst.parse_module)


def dotted(node: cst.CSTNode) -> Optional[str]:
    """`self.a.b` for a chain of names, `self.a.b()` for such a chain called without args."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted(node.value)
        return None if inner is None or inner.endswith(")") else f"{inner}.{node.attr.value}"
    if isinstance(node, cst.Call) and not node.args:
        inner = dotted(node.func)
        return None if inner is None or inner.endswith(")") else inner + "()"
    return None


def module_function(code: str, path: Path, name: str):
    """(module, its one top-level function `name`, line-of-node) for a fix to rewrite; refuses
    when `name` is not defined exactly once at module level."""
    wrapper = MetadataWrapper(cst.parse_module(code))
    pos = wrapper.resolve(PositionProvider)
    line = lambda node: pos[node].start.line  # noqa: E731
    funcs = [s for s in wrapper.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(funcs) != 1:
        raise Refusal(f"{name} is not defined exactly once at module level", path, line(funcs[1]) if funcs else 1)
    return wrapper.module, funcs[0], line


def stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


def is_docstring(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr) and \
        isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def top_class(module: cst.Module, name: str, path: Path, text: str = "") -> tuple[int, cst.ClassDef]:
    found = [(i, s) for i, s in enumerate(module.body) if isinstance(s, cst.ClassDef) and s.name.value == name]
    if not found:
        raise BadInput(f"no top-level class {name}", path)
    if len(found) > 1:
        raise Refusal(f"class {name} is defined {len(found)} times at module level", path,
                      text_line(text or cst.Module([]).code_for_node(module), rf"^class\s+{re.escape(name)}\b", 1))
    return found[0]


def class_members(cls: cst.ClassDef, name: str) -> list[tuple[int, cst.CSTNode]]:
    """Indices and statements in the class body that define or assign `name`."""
    out = []
    for i, s in enumerate(cls.body.body):
        if isinstance(s, cst.FunctionDef) and s.name.value == name:
            out.append((i, s))
        elif isinstance(s, cst.SimpleStatementLine) and any(
            isinstance(x, cst.Assign) and any(m.matches(t.target, m.Name(name)) for t in x.targets)
            for x in s.body
        ):
            out.append((i, s))
    return out


def def_line(text: str, class_name: str, name: str, nth: int = 0) -> Optional[int]:
    """1-based line of the `nth` `def name(` (or `name =`) after `class class_name`."""
    cls = re.search(rf"^class\s+{re.escape(class_name)}\b", text, re.M)
    start = cls.start() if cls else 0
    pat = re.compile(rf"^[ \t]+(?:async\s+)?def\s+{re.escape(name)}\s*\(|^[ \t]+{re.escape(name)}\s*=", re.M)
    hits = list(pat.finditer(text, start))
    if len(hits) <= nth:
        return None
    return text.count("\n", 0, hits[nth].start()) + 1


def text_line(text: str, pattern: str, nth: int = 0) -> Optional[int]:
    """1-based line of the `nth` match of the multi-line regex `pattern` in `text` (None: no such match)."""
    hits = list(re.finditer(pattern, text, re.M))
    return text.count("\n", 0, hits[nth].start()) + 1 if len(hits) > nth else None


def binding_line(text: str, name: str, nth: int = 0) -> Optional[int]:
    """The `nth` line binding `name` at column 0 (assignment, def, class or import), if any."""
    n = re.escape(name)
    return text_line(text, rf"^(?:{n}\s*(?::[^=\n]*)?=(?!=)|(?:async\s+)?def\s+{n}\b|class\s+{n}\b"
                           rf"|(?:from\s+\S+\s+)?import\b[^\n]*\b{n}\b)", nth)


class LineMap:
    """Line numbers of nodes inside one function, computed on that function alone (fast)."""

    def __init__(self, func: cst.FunctionDef, first_line: Optional[int]):
        bare = func.with_changes(leading_lines=(), decorators=())
        self._first = (first_line or 1) - 1
        self._func = bare
        self._pos = MetadataWrapper(cst.Module(body=[bare]), unsafe_skip_copy=True).resolve(PositionProvider)

    def __call__(self, node: cst.CSTNode) -> Optional[int]:
        pos = self._pos.get(node)
        return None if pos is None else self._first + pos.start.line


class _PlainNames(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False


def plain_names(node: cst.CSTNode) -> set[str]:
    """Identifiers used as variables in `node` (not attribute names, not keyword names)."""
    v = _PlainNames()
    node.visit(v)
    return v.names


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node.value)


def comments_in(node: cst.CSTNode) -> list[str]:
    """Every comment inside `node`, in source order."""
    v = _Comments()
    node.visit(v)
    return v.found


def carry_lost_comments(original: cst.SimpleStatementLine, new: cst.SimpleStatementLine
                        ) -> cst.SimpleStatementLine:
    """`new` (a rewrite of `original`) with the comments the rewrite dropped - say from inside
    the parentheses of a call that became an assignment - put on their own lines before it."""
    left = list(comments_in(new))
    lost = []
    for c in comments_in(original):
        if c in left:
            left.remove(c)
        else:
            lost.append(c)
    if not lost:
        return new
    carried = [cst.EmptyLine(comment=cst.Comment(c)) for c in lost]
    return new.with_changes(leading_lines=[*new.leading_lines, *carried])


def statement_lines(body: list[ast.stmt]) -> list[tuple[int, int]]:
    """(first line, last line) of each source line group: `a = 1; b = 2` is one LibCST statement."""
    out: list[tuple[int, int]] = []
    for s in body:
        first = min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))])
        if out and first == out[-1][1]:
            out[-1] = (out[-1][0], s.end_lineno)
        else:
            out.append((first, s.end_lineno))
    return out
