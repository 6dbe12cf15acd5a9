"""Branch coverage of the code under test, from instruction positions (no new dependency).

While tracing, every executed instruction of the watched code objects is recorded per call
(opcode tracing, `f_trace_opcodes`).  Branch points come from the AST of the function:
`if`/`elif`/`else`, conditional expressions, and each short-circuit operand of `and`/`or`.
A branch outcome is hit when, in one call, an instruction positioned inside the taken part
ran (and, for an outcome that runs nothing, the test ran and the guarded part did not).
The functions under test have no loops, so "in one call" is exact.
"""

from __future__ import annotations

import ast
import sys
import types
from dataclasses import dataclass, field


@dataclass
class Branch:
    line: int
    label: str  # e.g. "if true", "elif false", "and: operand 2 short-circuits"
    hit: bool = False


@dataclass
class Coverage:
    branches: list[Branch] = field(default_factory=list)

    def to_json(self) -> dict:
        missed = [f"line {b.line}: {b.label}" for b in self.branches if not b.hit]
        return {"branches": len(self.branches), "hit": len(self.branches) - len(missed), "missed": missed}

    @property
    def complete(self) -> bool:
        return all(b.hit for b in self.branches)


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _inside(pos, span) -> bool:
    if len(pos) != 4:
        return False
    line, end_line, col, end_col = pos
    if line is None or col is None:
        return False
    return (span[0], span[1]) <= (line, col) and (end_line, end_col) <= (span[2], span[3])


class _Points:
    """Branch outcomes as predicates over the set of instruction positions run in one call."""

    def __init__(self, fn: ast.AST):
        self.items: list[tuple[Branch, callable]] = []
        for node in ast.walk(fn):
            if isinstance(node, ast.If):
                body = [_span(s) for s in node.body]
                test = _span(node.test)
                word = "elif" if getattr(node, "_is_elif", False) else "if"
                self._add(node.lineno, f"{word} true", lambda ran, b=body: any(_inside(p, s) for p in ran for s in b[:1]))
                if node.orelse:
                    first = _span(node.orelse[0])
                    if isinstance(node.orelse[0], ast.If) and len(node.orelse) == 1:
                        node.orelse[0]._is_elif = True
                    self._add(node.lineno, f"{word} false", lambda ran, f=first: any(_inside(p, f) for p in ran))
                else:
                    self._add(node.lineno, f"{word} false (skips body)", self._skipped(test, body[0]))
            elif isinstance(node, ast.IfExp):
                self._add(node.lineno, "conditional expression true", self._ran(_span(node.body)))
                self._add(node.lineno, "conditional expression false", self._ran(_span(node.orelse)))
            elif isinstance(node, ast.BoolOp):
                op = "and" if isinstance(node.op, ast.And) else "or"
                for i, (value, nxt) in enumerate(zip(node.values, node.values[1:]), 1):
                    self._add(value.lineno, f"{op}: operand {i} continues", self._ran(_span(nxt)))
                    self._add(value.lineno, f"{op}: operand {i} short-circuits", self._skipped(_span(value), _span(nxt)))

    def _add(self, line, label, predicate):
        self.items.append((Branch(line, label), predicate))

    @staticmethod
    def _ran(span):
        return lambda ran: any(_inside(p, span) for p in ran)

    @staticmethod
    def _skipped(test, guarded):
        def predicate(ran):
            raised_in_test = any(p[0] == "exc" and _inside(p[1], test) for p in ran if len(p) == 2)
            return (
                not raised_in_test
                and any(_inside(p, test) for p in ran)
                and not any(_inside(p, guarded) for p in ran)
            )

        return predicate


class BranchTracer:
    """Traces calls of the given code objects; `feed()` folds finished calls into the branches."""

    def __init__(self, units: dict[types.CodeType, ast.AST]):
        self.codes = units
        self.points = {code: _Points(node) for code, node in units.items()}
        self.positions = {code: list(code.co_positions()) for code in units}
        self.calls: list[tuple[types.CodeType, set]] = []

    def _trace(self, frame, event, arg):
        if event != "call" or frame.f_code not in self.codes:
            return None
        code = frame.f_code
        ran: set = set()
        self.calls.append((code, ran))
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        positions = self.positions[code]

        def local(frame, event, arg):
            if event == "opcode":
                ran.add(positions[frame.f_lasti // 2])
            elif event == "exception":
                # a test that raised took neither way
                ran.add(("exc", positions[frame.f_lasti // 2]))
            return local

        return local

    def __enter__(self):
        self._saved = sys.gettrace()
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._saved)
        self.feed()
        return False

    def feed(self) -> None:
        for code, ran in self.calls:
            for branch, predicate in self.points[code].items:
                if not branch.hit and predicate(ran):
                    branch.hit = True
        self.calls.clear()

    def done(self) -> bool:
        return all(b.hit for p in self.points.values() for b, _ in p.items)

    def coverage(self) -> Coverage:
        return Coverage([b for p in self.points.values() for b, _ in p.items])
