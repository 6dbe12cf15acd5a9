"""A module's text after a step, without generating the code of what the step left alone.

LibCST's `Module.code` generates every node: on a 3400-line runner that costs about a third of
parsing it, and each step needs the text (for its commit, and the next step's line numbers).
A step changes a few class members and top-level statements and keeps every other node as
the same object, so `Renderer` copies those nodes' lines from the original text and generates
only the new ones. The original spans come from Python's `ast` (line ranges) and LibCST's own
leading lines (blank and comment lines above a statement belong to it), so that a regenerated
statement replaces exactly the lines LibCST would have printed for it. Any doubt about the
correspondence (a count that differs, a changed last member of a class) falls back to
`Module.code`. The same holds one level down: a changed method whose header is the original's
(a call site rewritten inside `__init__`) keeps the lines of every statement of its body the
step left alone.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from codemods.syntax.nodes import statement_lines
from pysource.parsing import parse as python_ast


@dataclass
class _Class:
    prefix: tuple[int, int]  # decorators, header line(s), up to the first member's span
    members: dict[int, tuple[int, int]]  # id(member) -> its span
    last: int  # id of the last member (regenerating it would take the body's footer along)
    suffix: tuple[int, int]
    indent: Optional[str]
    methods: dict[int, tuple[cst.FunctionDef, ast.AST]]  # id(method name node) -> (method, its ast)


_HEADER = tuple(f.name for f in dataclasses.fields(cst.FunctionDef) if f.name not in ("name", "body"))


def _spans(nodes, groups: list[tuple[int, int]], end: int) -> Optional[list[tuple[int, int]]]:
    """0-based [start, stop) line spans of `nodes` (LibCST statements), their leading lines included."""
    if len(nodes) != len(groups):
        return None
    starts = [first - 1 - len(n.leading_lines) for n, (first, _) in zip(nodes, groups)]
    return [(a, b) for a, b in zip(starts, [*starts[1:], end])]


class Renderer:
    def __init__(self, module: cst.Module, text: str):
        self.module = module  # keeps the original nodes (and so their ids) alive
        self.lines = text.splitlines(keepends=True)
        self.top: dict[int, tuple[int, int]] = {}
        self.classes: dict[int, _Class] = {}  # id(class name node) -> its layout
        tree = python_ast(text)
        end = len(self.lines) - len(module.footer)
        groups = statement_lines(tree.body)
        spans = _spans(module.body, groups, end)
        self.ok = spans is not None
        if spans is None:
            return
        self.header = (0, spans[0][0] if spans else end)
        self.footer = (end, len(self.lines))
        for node, (first, _), span in zip(module.body, groups, spans):
            self.top[id(node)] = span
            if isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
                self._class(node, tree, first, span)

    def _class(self, node: cst.ClassDef, tree: ast.Module, first: int, span: tuple[int, int]) -> None:
        found = [s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == node.name.value
                 and min([s.lineno, *(d.lineno for d in s.decorator_list)]) == first]
        if len(found) != 1 or not node.body.body:
            return
        members = _spans(node.body.body, statement_lines(found[0].body), span[1])
        if members is None:
            return
        last_end = found[0].body[-1].end_lineno
        layout = _Class((span[0], members[0][0]), {}, id(node.body.body[-1]), (last_end, span[1]), node.body.indent,
                        {})
        by_line = {min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]): s for s in found[0].body}
        for member, (a, b), (first, _) in zip(node.body.body, members, statement_lines(found[0].body)):
            layout.members[id(member)] = (a, b)
            if isinstance(member, cst.FunctionDef) and isinstance(by_line.get(first), ast.FunctionDef):
                layout.methods[id(member.name)] = (member, by_line[first])
        layout.members[id(node.body.body[-1])] = (members[-1][0], last_end)
        self.classes[id(node.name)] = layout

    def _slice(self, span: tuple[int, int]) -> str:
        return "".join(self.lines[span[0]:span[1]])

    def render(self, module: cst.Module) -> str:
        """`module.code`, reusing the original text of every node the steps kept."""
        if not self.ok or module.header is not self.module.header or module.footer is not self.module.footer:
            return module.code
        parts = [self._slice(self.header)]
        for node in module.body:
            parts.append(self._statement(node, module))
        parts.append(self._slice(self.footer))
        return "".join(parts)

    def _statement(self, node: cst.CSTNode, module: cst.Module) -> str:
        if id(node) in self.top:
            return self._slice(self.top[id(node)])
        layout = self.classes.get(id(node.name)) if isinstance(node, cst.ClassDef) else None
        if layout is None or not self._same_header(node) or not isinstance(node.body, cst.IndentedBlock) \
                or node.body.footer is not self._original_class(node).body.footer:
            return module.code_for_node(node)
        if not node.body.body or id(node.body.body[-1]) != layout.last:
            return module.code_for_node(node)  # the last member's footer would be misplaced
        parts = [self._slice(layout.prefix)]
        for member in node.body.body:
            span = layout.members.get(id(member))
            if span is not None:
                parts.append(self._slice(span))
            else:
                parts.append(self._method(module, member, layout) or _member_code(module, member, layout.indent))
        parts.append(self._slice(layout.suffix))
        return "".join(parts)

    def _method(self, module: cst.Module, member: cst.CSTNode, layout: _Class) -> Optional[str]:
        """A changed method's code keeping the lines of the body statements it kept; None when
        its header or the frame of its body changed (or its last statement: the footer)."""
        if not isinstance(member, cst.FunctionDef) or id(member.name) not in layout.methods:
            return None
        old, tree = layout.methods[id(member.name)]
        body, old_body = member.body, old.body
        if not (isinstance(body, cst.IndentedBlock) and isinstance(old_body, cst.IndentedBlock)) \
                or any(getattr(member, f) is not getattr(old, f) for f in _HEADER) \
                or body.header is not old_body.header or body.footer is not old_body.footer \
                or body.indent != old_body.indent \
                or not body.body or body.body[-1] is not old_body.body[-1]:
            return None
        start, end = layout.members[id(old)]
        spans = _spans(old_body.body, statement_lines(tree.body), end)
        if spans is None:
            return None
        kept = {id(s): span for s, span in zip(old_body.body, spans)}
        last_end = tree.body[-1].end_lineno
        kept[id(old_body.body[-1])] = (spans[-1][0], last_end)
        parts = [self._slice((start, spans[0][0]))]
        for statement in body.body:
            span = kept.get(id(statement))
            parts.append(self._slice(span) if span is not None
                         else _statement_code(module, statement, layout.indent, body.indent))
        parts.append(self._slice((last_end, end)))
        return "".join(parts)

    def _original_class(self, node: cst.ClassDef) -> cst.ClassDef:
        return next(s for s in self.module.body if isinstance(s, cst.ClassDef) and s.name is node.name)

    def _same_header(self, node: cst.ClassDef) -> bool:
        old = self._original_class(node)
        return all(getattr(node, f) is getattr(old, f) for f in (
            "decorators", "leading_lines", "bases", "keywords", "lpar", "rpar", "whitespace_before_colon",
            "lines_after_decorators", "whitespace_after_class", "whitespace_after_name", "type_parameters"))


def _member_code(module: cst.Module, member: cst.CSTNode, indent: Optional[str]) -> str:
    """`member`'s code as a statement of a class body indented by `indent`."""
    holder = cst.ClassDef(cst.Name("C"), cst.IndentedBlock(body=[member], indent=indent))
    code = module.code_for_node(holder)
    return code[code.index("\n") + 1:]


def _statement_code(module: cst.Module, statement: cst.CSTNode, class_indent: Optional[str],
                    body_indent: Optional[str]) -> str:
    """`statement`'s code as a statement of a method body (indented by `body_indent`) of a class body
    indented by `class_indent`."""
    method = cst.FunctionDef(cst.Name("f"), cst.Parameters(), cst.IndentedBlock(body=[statement], indent=body_indent))
    holder = cst.ClassDef(cst.Name("C"), cst.IndentedBlock(body=[method], indent=class_indent))
    code = module.code_for_node(holder)
    return code[code.index("\n", code.index("\n") + 1) + 1:]
