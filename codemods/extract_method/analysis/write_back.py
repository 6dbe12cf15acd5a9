"""`--write-back ATTR[=FLAG]`: a method that writes `self.ATTR` on some paths only becomes a
function returning whether it would have written (`True`/`False`), its callers writing it.

Behaviour is kept exactly only where the write is the last thing on its path, so that is the
condition: each `self.ATTR = VALUE` is a statement of its own, `VALUE` a literal (the same at
every write), and after it on its path come only `pass` or a bare `return` up to the end of the
method, through enclosing `if`/`elif`/`else` only (no loop, `with`, `try` or `match`: they could
run something after it, or run it twice). The method reads `self.ATTR` nowhere, returns no value
and yields nothing. The write then becomes `return True`, every other bare `return` `return
False`, and the end of the body `return False`; each caller does `if f(...): self.ATTR = VALUE`
(`FLAG = f(...)` first when FLAG is given), right where the method returned: nothing ran between
the old write and that return, so nothing can tell the two apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import libcst.matchers as m

from codemods.core.errors import Refusal

_code = cst.Module([]).code_for_node
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return isinstance(node.operand, (cst.Integer, cst.Float, cst.Imaginary))
    return False


def writes(func: cst.FunctionDef, attribute: str) -> bool:
    """Whether the method's body assigns `self.ATTR` anywhere."""
    target = m.Attribute(value=m.Name("self"), attr=m.Name(attribute))
    return bool(m.findall(func.body, m.AssignTarget(target=target) | m.AugAssign(target=target)
                          | m.AnnAssign(target=target)))


class _Walk:
    """Finds each write, checking it is the last thing on its path; collects the bare returns."""

    def __init__(self, attribute: str, path: Path, line_of: Callable[[cst.CSTNode], Optional[int]], what: str):
        self.attribute, self.path, self.line_of, self.what = attribute, path, line_of, what
        self.writes: list[cst.SimpleStatementLine] = []
        self.values: list[cst.BaseExpression] = []
        self.returns: list[cst.Return] = []
        self.trailing: set[int] = set()  # ids of the `pass`/`return` lines right after a write (dropped)

    def refuse(self, node: cst.CSTNode, why: str) -> Refusal:
        return Refusal(f"--write-back {self.attribute}: {why}", self.path, self.line_of(node))

    def is_write(self, s: cst.CSTNode) -> bool:
        target = m.Attribute(value=m.Name("self"), attr=m.Name(self.attribute))
        return bool(m.findall(s, m.AssignTarget(target=target) | m.AugAssign(target=target)
                              | m.AnnAssign(target=target)))

    def block(self, stmts, chain: list[tuple[list, int, str]]) -> None:
        """`chain`: the enclosing blocks, each (statements, index of the statement holding this one,
        what holds it: 'if' or another construct's name)."""
        for i, s in enumerate(stmts):
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    if isinstance(small, cst.Return) and (small.value is None or m.matches(small.value,
                                                                                           m.Name("None"))):
                        self.returns.append(small)
                if self.is_write(s):
                    self.write(s, [*chain, (stmts, i, "")])
                continue
            if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
                if self.is_write(s):
                    raise self.refuse(s, f"written inside nested {s.name.value}")
                continue
            if isinstance(s, cst.If):
                self.if_(s, [*chain, (stmts, i, "if")])
                continue
            kind = {cst.For: "a loop", cst.While: "a loop", cst.With: "a `with` block", cst.Try: "a `try`",
                    cst.TryStar: "a `try`", cst.Match: "a `match`"}.get(type(s), type(s).__name__)
            for block in _blocks(s):
                self.block(block, [*chain, (stmts, i, kind)])

    def if_(self, s: cst.If, chain) -> None:
        self.block(s.body.body, chain)
        if isinstance(s.orelse, cst.If):
            self.if_(s.orelse, chain)
        elif s.orelse is not None:
            self.block(s.orelse.body.body, chain)

    def write(self, line: cst.SimpleStatementLine, chain) -> None:
        small = line.body[0]
        target = m.Attribute(value=m.Name("self"), attr=m.Name(self.attribute))
        if len(line.body) != 1 or not isinstance(small, cst.Assign) or len(small.targets) != 1 \
                or not m.matches(small.targets[0].target, target):
            raise self.refuse(line, f"`{_code(small).strip()}`: only a plain `self.{self.attribute} = VALUE`, a statement "
                                    f"of its own, can become the caller's write")
        if not is_literal(small.value):
            raise self.refuse(line, f"self.{self.attribute} = {_code(small.value)}: the value is no literal, so the "
                                    f"function could not return 'written' as a flag the caller rewrites it from")
        self.writes.append(line)
        self.values.append(small.value)
        for stmts, i, holder in reversed(chain):
            if holder not in ("", "if"):
                raise self.refuse(line, f"written inside {holder}: something of it could run after the write, "
                                        f"and the caller would write only after that (by hand, or --pass-self NAME)")
            for after in stmts[i + 1:]:
                if _ends_quietly(after):
                    self.trailing.add(id(after))
                    return
                if _is_pass(after):
                    self.trailing.add(id(after))
                    continue
                first = _code(after).strip().splitlines()[0]
                raise self.refuse(line, f"this write is followed on its path by `{first}`, which could raise or read "
                                        f"it: the caller writing after the call would change when it is written "
                                        f"(move the write last on its path by hand, or --pass-self NAME)")


def _blocks(s: cst.CSTNode) -> list:
    out = []
    for name in ("body", "orelse", "finalbody"):
        part = getattr(s, name, None)
        if part is None:
            continue
        out.append(part.body.body if hasattr(part, "body") and hasattr(part.body, "body") else part.body)
    for h in getattr(s, "handlers", ()):
        out.append(h.body.body)
    for c in getattr(s, "cases", ()):
        out.append(c.body.body)
    return out


def _ends_quietly(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Return) \
        and (s.body[0].value is None or m.matches(s.body[0].value, m.Name("None")))


def _is_pass(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)


class _Rewrite(cst.CSTTransformer):
    def __init__(self, walk: _Walk):
        self.w = walk
        self.writes = {id(s) for s in walk.writes}
        self.returns = {id(r) for r in walk.returns}

    def visit_FunctionDef(self, node) -> bool:
        return False  # a nested function's returns are its own

    def visit_ClassDef(self, node) -> bool:
        return False

    def leave_Return(self, original, updated):
        if id(original) in self.returns:
            return updated.with_changes(value=cst.Name("False"), whitespace_after_return=cst.SimpleWhitespace(" "))
        return updated

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._body(original.body, updated.body))

    def _body(self, originals, updated):
        out = []
        for old, new in zip(originals, updated):
            if id(old) in self.writes:
                line = old.with_changes(body=[cst.Return(cst.Name("True"))])
                out.append(line)
                continue
            out.append(new)
        return _drop_after_true(out)


def _drop_after_true(stmts: list) -> list:
    """Nothing after `return True` (only `pass`/`return` were there) in the same block."""
    for i, s in enumerate(stmts):
        if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Return) \
                and m.matches(s.body[0].value, m.Name("True")):
            return stmts[: i + 1]
    return stmts


def flag_writes(func: cst.FunctionDef, attribute: str, path: Path, line_of, qualified: str, line: Optional[int]
                ) -> tuple[cst.FunctionDef, str]:
    """(the method with each write of `self.ATTR` turned into `return True`, other returns into
    `return False`; the value the callers write), refusing what would change when it is written."""
    walk = _Walk(attribute, path, line_of, qualified)
    walk.block(func.body.body, [])
    if not walk.writes:
        raise Refusal(f"--write-back {attribute}: {qualified} never writes self.{attribute}", path, line)
    values = {_code(v) for v in walk.values}
    if len(values) != 1:
        raise walk.refuse(walk.writes[1], f"self.{attribute} is written {' and '.join(sorted(values))}: the function "
                                          f"returns only whether it wrote, so every write must write one literal")
    target = m.Attribute(value=m.Name("self"), attr=m.Name(attribute))
    targets = {id(s.body[0].targets[0].target) for s in walk.writes}
    for node in m.findall(func.body, target):
        if id(node) not in targets:
            raise walk.refuse(node, f"{qualified} also uses self.{attribute} other than by those writes: it "
                                    f"would not see them")
    for node in m.findall(func.body, m.Return()):
        if node.value is not None and not m.matches(node.value, m.Name("None")):
            raise walk.refuse(node, f"{qualified} returns a value: the function's value is whether it wrote")
    for node in m.findall(func.body, m.Yield()):
        raise walk.refuse(node, f"{qualified} yields")
    body = func.body.visit(_Rewrite(walk))
    stmts = list(body.body)
    if not (stmts and isinstance(stmts[-1], cst.SimpleStatementLine) and isinstance(stmts[-1].body[-1],
                                                                                     (cst.Return, cst.Raise))):
        stmts.append(cst.SimpleStatementLine([cst.Return(cst.Name("False"))], leading_lines=[cst.EmptyLine()]))
    return func.with_changes(body=body.with_changes(body=stmts)), values.pop()
