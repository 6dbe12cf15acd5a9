"""Branch coverage of the code under test, from the instructions each call ran (no new dependency).

While tracing, the offset of every executed instruction of the watched code objects is
recorded per call (opcode tracing, `f_trace_opcodes`), with the offsets where an exception was
raised. Branch points come from the AST of the function:
- `if`/`elif`/`else` (true / false), conditional expressions, each short-circuit operand of
  `and`/`or` (continues / short-circuits);
- loops `for` / `while` (body entered / not entered: the header ran, the body did not);
- `try`: each `except` handler entered;
- `assert`: holds / fails (the instruction loading AssertionError ran).
A branch outcome is hit when, in one call, an instruction positioned inside the taken part ran
(and, for an outcome that runs nothing, the test ran without raising and the guarded part did
not).
"""

from __future__ import annotations

import ast
import dis
import random
import sys
import types
from dataclasses import dataclass, field


@dataclass
class Branch:
    line: int
    label: str  # e.g. "if true", "elif false", "and: operand 2 short-circuits", "for: body not entered"
    hit: bool = False
    unit: str = ""  # which function ("method", "wrapper", "function", "call site"), when several


@dataclass
class Coverage:
    branches: list[Branch] = field(default_factory=list)

    def to_json(self) -> dict:
        missed = [f"{b.unit + ' ' if b.unit else ''}line {b.line}: {b.label}" for b in self.branches if not b.hit]
        units = {}
        for b in self.branches:
            if b.unit:
                counts = units.setdefault(b.unit, {"unit": b.unit, "branches": 0, "hit": 0})
                counts["branches"] += 1
                counts["hit"] += b.hit
        return {"branches": len(self.branches), "hit": len(self.branches) - len(missed), "missed": missed,
                **({"units": list(units.values())} if units else {})}

    @property
    def complete(self) -> bool:
        return all(b.hit for b in self.branches)


@dataclass
class Ran:
    """One call: the positions of the instructions it ran, of those that raised, and the offsets."""

    positions: set
    raised: set
    offsets: set


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _inside(pos, span) -> bool:
    line, end_line, col, end_col = pos
    if line is None or col is None:
        return False
    return (span[0], span[1]) <= (line, col) and (end_line, end_col) <= (span[2], span[3])


def _ran(span):
    return lambda ran: any(_inside(p, span) for p in ran.positions)


def _none_of(started, handlers):
    """`started` ran and none of `handlers` did (in the same call)."""
    return lambda ran: (any(_inside(p, started) for p in ran.positions)
                        and not any(_inside(p, h) for h in handlers for p in ran.positions))


def _skipped(test, guarded):
    """The test ran without raising, and nothing of the guarded part did."""

    def predicate(ran):
        return (not any(_inside(p, test) for p in ran.raised)
                and any(_inside(p, test) for p in ran.positions)
                and not any(_inside(p, guarded) for p in ran.positions))

    return predicate


class _Points:
    """Branch outcomes as predicates over one call's `Ran`."""

    def __init__(self, fn: ast.AST, code: types.CodeType, unit: str = ""):
        self.unit = unit
        self.items: list[tuple[Branch, callable]] = []
        positions = list(code.co_positions())
        self._assert_offsets = {i.offset: positions[i.offset // 2] for i in dis.get_instructions(code)
                                if i.opname == "LOAD_ASSERTION_ERROR"}
        elifs = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.If):
                self._if(node, "elif" if id(node) in elifs else "if")
                if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                    elifs.add(id(node.orelse[0]))
            elif isinstance(node, ast.IfExp):
                self._add(node.lineno, "conditional expression true", _ran(_span(node.body)))
                self._add(node.lineno, "conditional expression false", _ran(_span(node.orelse)))
            elif isinstance(node, ast.BoolOp):
                op = "and" if isinstance(node.op, ast.And) else "or"
                for i, (value, nxt) in enumerate(zip(node.values, node.values[1:]), 1):
                    self._add(value.lineno, f"{op}: operand {i} continues", _ran(_span(nxt)))
                    self._add(value.lineno, f"{op}: operand {i} short-circuits", _skipped(_span(value), _span(nxt)))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                word = "while" if isinstance(node, ast.While) else "for"
                header = _span(node.test if isinstance(node, ast.While) else node.iter)
                self._add(node.lineno, f"{word}: body entered", _ran(_span(node.body[0])))
                self._add(node.lineno, f"{word}: body not entered", _skipped(header, _span(node.body[0])))
            elif isinstance(node, (ast.Try, ast.TryStar)):
                for handler in node.handlers:
                    what = ast.unparse(handler.type) if handler.type is not None else "(bare)"
                    self._add(handler.lineno, f"except {what}: handler entered", _ran(_span(handler.body[0])))
                if node.handlers:  # else a body that always raises (a missing optional import) hides what follows
                    self._add(node.lineno, "try: no handler entered", _none_of(
                        _span(node.body[0]), [_span(h.body[0]) for h in node.handlers]))
            elif isinstance(node, ast.Assert):
                self._assert(node)

    def _if(self, node: ast.If, word: str) -> None:
        body = _span(node.body[0])
        self._add(node.lineno, f"{word} true", _ran(body))
        if node.orelse:
            self._add(node.lineno, f"{word} false", _ran(_span(node.orelse[0])))
        else:
            self._add(node.lineno, f"{word} false (skips body)", _skipped(_span(node.test), body))

    def _assert(self, node: ast.Assert) -> None:
        test = _span(node.test)
        # the instruction raising sits at the test, or (a test spanning several lines) at the whole statement
        offsets = {o for o, p in self._assert_offsets.items() if _inside(p, _span(node))}

        def fails(ran):
            return bool(ran.offsets & offsets)

        def holds(ran):
            return not fails(ran) and _skipped(test, (0, 0, 0, 0))(ran)

        self._add(node.lineno, "assert holds", holds)
        self._add(node.lineno, "assert fails", fails)

    def _add(self, line, label, predicate):
        self.items.append((Branch(line, label, unit=self.unit), predicate))


class BranchTracer:
    """Traces calls of the given code objects; `feed()` folds finished calls into the branches."""

    def __init__(self, units: dict[types.CodeType, ast.AST], roles: dict[types.CodeType, str] | None = None):
        self.codes = units
        self.points = {code: _Points(node, code, (roles or {}).get(code, "")) for code, node in units.items()}
        self.positions = {code: list(code.co_positions()) for code in units}
        self.calls: list[tuple[types.CodeType, set, set]] = []

    def _trace(self, frame, event, arg):
        if event != "call" or frame.f_code not in self.codes:
            return None
        offsets: set = set()
        raised: set = set()
        self.calls.append((frame.f_code, offsets, raised))
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False

        def local(frame, event, arg):
            if event == "opcode":
                offsets.add(frame.f_lasti)
            elif event == "exception":
                raised.add(frame.f_lasti)  # a test that raised took neither way
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
        for code, offsets, raised in self.calls:
            positions = self.positions[code]
            ran = Ran({positions[o // 2] for o in offsets}, {positions[o // 2] for o in raised}, offsets)
            for branch, predicate in self.points[code].items:
                if not branch.hit and predicate(ran):
                    branch.hit = True
        self.calls.clear()

    def done(self) -> bool:
        return all(b.hit for p in self.points.values() for b, _ in p.items)

    def coverage(self) -> Coverage:
        return Coverage([b for p in self.points.values() for b, _ in p.items])


def trace_until_done(tracer: BranchTracer, run, configs: list) -> Coverage:
    """Run configurations under `tracer` (a fixed shuffle, so that varied ones come first) until
    every branch is hit; if some never are, every configuration has been traced."""
    order = list(configs)
    random.Random(0).shuffle(order)
    batch = 64
    for start in range(0, len(order), batch):
        with tracer:
            for config in order[start: start + batch]:
                run(config)
        if tracer.done():
            break
    return tracer.coverage()
