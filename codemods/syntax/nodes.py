"""Small helpers over LibCST nodes shared by the steps."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Callable, Iterator, Optional

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.core.errors import BadInput, Refusal
from pysource import parsing


def parse(path: Path, text: str) -> cst.Module:
    """`parse_text(text)`; a syntax error is a `BadInput` naming the line and message Python names
    (LibCST's parser places an error where its tokenizer gave up, a line or two further on)."""
    try:
        return parse_text(text)
    except cst.ParserSyntaxError as exc:
        try:
            parsing.parse(text, str(path))
        except SyntaxError as python:
            raise BadInput(f"syntax error: {python.msg}", path, python.lineno) from None
        except ValueError as python:  # a null byte: Python names no line
            raise BadInput(f"syntax error: {python}", path) from None
        raise BadInput(f"LibCST cannot parse this file (Python can): {exc.message}", path, exc.raw_line) from None


def parse_text(text: str) -> cst.Module:
    """`libcst.parse_module(text)`, once per text in a run (`pysource.parsing`)."""
    return parsing.once("libcst", text, cst.parse_module)


def code(module: cst.Module, render: Optional[Callable[[cst.Module], str]] = None) -> str:
    """`module.code` (what `render` gives, which must be the same text: `core.render.Renderer`); a
    parse of that text later in the run gives `module` back (`parsing.known`)."""
    text = render(module) if render is not None else module.code
    parsing.known("libcst", text, module)
    return text


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
    r"""1-based line of the `nth` `def name(` (or `name =`) after `class class_name`: the `nth`
    match of `^[ \t]+(?:async\s+)?def\s+NAME\s*\(|^[ \t]+NAME\s*=` (re.M) from the first line
    starting `class\s+CLASS\b`, found from the places that spell the name (tried at every line, the
    pattern costs a scan of the file per call)."""
    header = re.compile(rf"class\s+{re.escape(class_name)}\b")
    starts = (at for at in _finds(text, "class", 0) if (at == 0 or text[at - 1] == "\n") and header.match(text, at))
    start = next(starts, 0)
    after = re.compile(r"\s*\(|\s*=")
    hits = []
    for at in _finds(text, name, start):
        m = after.match(text, at + len(name))
        if m is None:
            continue
        begins = _def_start(text, at) if m.group().endswith("(") else _indented_start(text, at)
        if begins:  # each after the class's line, which starts with `class`
            hits.append(min(begins))
    if len(hits) <= nth:
        return None
    return text.count("\n", 0, hits[nth]) + 1


def _finds(text: str, word: str, start: int) -> Iterator[int]:
    at = text.find(word, start)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def _indented_start(text: str, at: int) -> list[int]:
    """[the start of the line holding `at`] when only spaces and tabs (one at least) come before it there."""
    line = text.rfind("\n", 0, at) + 1
    return [line] if line < at and not text[line:at].strip(" \t") else []


def _def_start(text: str, at: int) -> list[int]:
    r"""Where `^[ \t]+(?:async\s+)?def\s+` can start so as to end at `at` (the name)."""
    d = _before_space(text, at)
    if d == at or not text.endswith("def", 0, d):
        return []
    d -= 3
    out = _indented_start(text, d)
    a = _before_space(text, d)
    if a < d and text.endswith("async", 0, a):
        out += _indented_start(text, a - 5)
    return out


def _before_space(text: str, at: int) -> int:
    r"""The start of the run of white space (`\s`) that ends at `at`."""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at


def text_line(text: str, pattern: str, nth: int = 0) -> Optional[int]:
    """1-based line of the `nth` match of the multi-line regex `pattern` in `text` (None: no such match)."""
    hits = list(re.finditer(pattern, text, re.M))
    return text.count("\n", 0, hits[nth].start()) + 1 if len(hits) > nth else None


def use_line_from(text: str, name: str, def_at: Optional[int]) -> int:
    """The line where the moved method first spells `name` (else the first line that does)."""
    pat = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    start = sum(len(ln) for ln in text.splitlines(True)[:(def_at or 1) - 1])
    hit = pat.search(text, start) or pat.search(text)
    return text.count("\n", 0, hit.start()) + 1 if hit else (def_at or 1)


def binding_line(text: str, name: str, nth: int = 0) -> Optional[int]:
    """The `nth` line binding `name` at column 0 (assignment, def, class or import), if any."""
    n = re.escape(name)
    return text_line(text, rf"^(?:{n}\s*(?::[^=\n]*)?=(?!=)|(?:async\s+)?def\s+{n}\b|class\s+{n}\b"
                           rf"|(?:from\s+\S+\s+)?import\b[^\n]*\b{n}\b)", nth)


def use_line_in(text: str, name: str, class_name: str, methods) -> int:
    """The line where one of `class_name`'s `methods` (the moved code) first reads `name`, else
    the line binding it at module level, indented or not (`if is_npu(): import torch_npu`), else 1:
    what a refusal about `name` points at."""
    from pysource import parsing

    tree = parsing.parse(text)
    wanted = set(methods)
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == class_name:
            lines = [n.lineno for fn in cls.body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and fn.name in wanted for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
            if lines:
                return min(lines)
    n = re.escape(name)
    return text_line(text, rf"^[ \t]*(?:{n}\s*(?::[^=\n]*)?=(?!=)|(?:async\s+)?def\s+{n}\b|class\s+{n}\b"
                           rf"|(?:from\s+\S+\s+)?import\b[^\n]*\b{n}\b)") or 1


class _OwnCode(cst.CSTVisitor):
    """The `Return`/`Yield` nodes of one function's own code: nested functions, lambdas and
    classes return (or yield) for themselves."""

    def __init__(self):
        self.returns: list[cst.Return] = []
        self.yields: list[cst.CSTNode] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Return(self, node) -> None:
        self.returns.append(node)

    def visit_Yield(self, node) -> None:
        self.yields.append(node)


def own_code(func: cst.FunctionDef) -> _OwnCode:
    """What `func`'s own body returns and yields (`.returns`, `.yields`), not its nested functions'."""
    found = _OwnCode()
    func.body.visit(found)
    return found


def returns_a_value(func: cst.FunctionDef) -> bool:
    """Some `return <value>` of `func`'s own (a nested function's does not count)."""
    return any(r.value is not None for r in own_code(func).returns)


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
