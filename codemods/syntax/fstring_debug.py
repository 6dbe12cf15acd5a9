"""Spell out f-string self-documenting expressions (`{self.x=}`) whose text a step changes.

`f"{self.device=}"` prints the expression's own text, `self.device=`, before its value: once a
step rewrites the expression (`self.device` -> `device`, `model_runner.device`), the output
would change with it. Before such a rewrite, the expression becomes the text it printed and a
plain replacement field printing the value as `=` did: `self.device={self.device!r}` (`!r`
unless the field gives a conversion or a format spec, as Python does).
"""

from __future__ import annotations

from typing import Callable

import libcst as cst


def _debug_text(field: cst.FormattedStringExpression) -> str:
    """What Python prints before the value: the text between `{` and the value, `=` included."""
    bare = field.with_changes(conversion=None, format_spec=None)
    text = cst.Module([]).code_for_node(bare)
    return text[1:-1].replace("{", "{{").replace("}", "}}")


class _SpellOut(cst.CSTTransformer):
    def __init__(self, rewritten: Callable[[cst.BaseExpression], bool]):
        self.rewritten = rewritten

    def leave_FormattedString(self, original, updated):
        if not any(isinstance(p, cst.FormattedStringExpression) and p.equal is not None
                   and self.rewritten(p.expression) for p in updated.parts):
            return updated
        parts: list[cst.BaseFormattedStringContent] = []
        for part in updated.parts:
            if isinstance(part, cst.FormattedStringExpression) and part.equal is not None \
                    and self.rewritten(part.expression):
                conversion = part.conversion or (None if part.format_spec else "r")
                parts.append(cst.FormattedStringText(_debug_text(part)))
                part = part.with_changes(equal=None, conversion=conversion,
                                         whitespace_before_expression=cst.SimpleWhitespace(""),
                                         whitespace_after_expression=cst.SimpleWhitespace(""))
            parts.append(part)
        merged: list[cst.BaseFormattedStringContent] = []
        for part in parts:  # adjacent texts as one, as a person would write them
            if merged and isinstance(part, cst.FormattedStringText) and isinstance(merged[-1], cst.FormattedStringText):
                merged[-1] = cst.FormattedStringText(merged[-1].value + part.value)
            else:
                merged.append(part)
        return updated.with_changes(parts=merged)


def spell_out_debug_fields(node: cst.CSTNode, rewritten: Callable[[cst.BaseExpression], bool]) -> cst.CSTNode:
    """`node` with every `{EXPR=}` field whose EXPR `rewritten` says a step will change spelled out."""
    return node.visit(_SpellOut(rewritten))


def mentions_name(name: str) -> Callable[[cst.BaseExpression], bool]:
    """Whether an expression uses the name `name` (`self`), other than as an attribute's name."""

    def check(expression: cst.BaseExpression) -> bool:
        finder = _FindName(name)
        expression.visit(finder)
        return finder.found

    return check


class _FindName(cst.CSTVisitor):
    def __init__(self, name: str):
        self.name, self.found = name, False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False  # node.attr is no use of the name

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name
