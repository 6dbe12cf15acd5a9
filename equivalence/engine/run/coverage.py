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
not; for an `if` without `else`, also when one evaluation of its test jumped past the body:
inside a loop, another pass of the same call may enter it). For an outcome never hit, the tracer also says why (`why.missed_reasons`): each call that
ended by an exception is recorded with where it stopped and the exception, and each outcome's
test (its gate) with how often it ran.
"""

from __future__ import annotations

import ast
import dis
import random
import sys
import types
from dataclasses import dataclass, field
from typing import Optional

from equivalence.engine.load.literals import constant_value, is_known
from equivalence.engine.run import why


@dataclass
class Branch:
    line: int
    label: str  # e.g. "if true", "elif false", "and: operand 2 short-circuits", "for: body not entered"
    hit: bool = False
    unit: str = ""  # which function ("method", "wrapper", "function", "call site"), when several
    unreachable: str = ""  # why no input can take it (its test depends only on constants), else ""

    def where(self) -> str:
        return f"{self.unit + ' ' if self.unit else ''}line {self.line}: {self.label}"


@dataclass
class Coverage:
    branches: list[Branch] = field(default_factory=list)
    never_entered: list[str] = field(default_factory=list)  # units no configuration called ("method", ...)
    lines: dict[str, set[int]] = field(default_factory=dict)  # unit -> the lines the traced runs ran (not in JSON)
    why_missed: list[dict] = field(default_factory=list)  # {"branches", "why"}: why those were never hit

    def to_json(self) -> dict:
        """`branches` counts those some input can take; `unreachable` lists the others, with why."""
        reachable = [b for b in self.branches if not b.unreachable]
        missed = [b.where() for b in reachable if not b.hit]
        units = {}
        for b in reachable:
            if b.unit:
                counts = units.setdefault(b.unit, {"unit": b.unit, "branches": 0, "hit": 0})
                counts["branches"] += 1
                counts["hit"] += b.hit
        unreachable = [f"{b.where()} ({b.unreachable})" for b in self.branches if b.unreachable]
        return {"branches": len(reachable), "hit": len(reachable) - len(missed), "missed": missed,
                **({"units": list(units.values())} if units else {}),
                **({"unreachable": unreachable} if unreachable else {}),
                **({"why_missed": list(self.why_missed)} if self.why_missed else {}),
                **({"never_entered": list(self.never_entered)} if self.never_entered else {})}

    @property
    def complete(self) -> bool:
        return all(b.hit or b.unreachable for b in self.branches)


@dataclass
class Ran:
    """One call: the positions of the instructions it ran, of those that raised, and the offsets."""

    positions: set
    raised: set
    offsets: set
    jumps: set = frozenset()  # (position, position): a conditional jump that ran, then the instruction after it


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _inside(pos, span) -> bool:
    line, end_line, col, end_col = pos
    if line is None or col is None:
        return False
    return (span[0], span[1]) <= (line, col) and (end_line, end_col) <= (span[2], span[3])


def _body_span(body: list[ast.stmt]) -> tuple:
    return (body[0].lineno, body[0].col_offset, body[-1].end_lineno, body[-1].end_col_offset)


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


def _skipped_once(test, statement, body):
    """As `_skipped`, or a conditional jump of the `if` (placed in the statement, outside its
    body) went past the body in one evaluation: a test in a loop skips its body in one pass and
    enters it in another."""
    whole_call = _skipped(test, body)

    def predicate(ran):
        return whole_call(ran) or any(_inside(a, statement) and not _inside(a, body) and not _inside(b, body)
                                      and not _inside(b, test) for a, b in ran.jumps)

    return predicate


def _literal_set(node: ast.AST) -> frozenset | None:
    """The literals of `[a, b]` / `(a, b)` / `{a, b}` (str, int, bool, None only)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
            isinstance(e, ast.Constant) and type(e.value) in (str, int, bool, type(None)) for e in node.elts):
        return frozenset(e.value for e in node.elts)
    return None


def _membership(test: ast.AST) -> tuple[str, frozenset, bool] | None:
    """`NAME == L` / `NAME != L` / `NAME in (..)` / `NAME not in (..)`: (NAME, the literals that
    make it true, whether the test is negated)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) \
            and type(right.value) in (str, int, bool, type(None)):
        return test.left.id, frozenset([right.value]), isinstance(op, ast.NotEq)
    if isinstance(op, (ast.In, ast.NotIn)) and _literal_set(right) is not None:
        return test.left.id, _literal_set(right), isinstance(op, ast.NotIn)
    return None


def implied_outcomes(fn: ast.AST) -> dict[tuple[int, bool], str]:
    """Outcomes earlier tests of the same value rule out: after `assert kind in ["a", "b"]` (or
    `if kind not in (...): raise`), an `if kind == "a": ... elif kind == "b": ... ` chain cannot take
    its last `elif`'s false way. (id of the if node, outcome) -> why. Only for a local bound once
    in the function (no other assignment can change it)."""
    bound: dict[str, int] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound[n.id] = bound.get(n.id, 0) + 1
    out: dict[tuple[int, bool], str] = {}

    def block(stmts: list[ast.stmt], known: dict[str, tuple[frozenset, int, frozenset]]) -> None:
        known = dict(known)
        for stmt in stmts:
            if isinstance(stmt, ast.Assert):
                found = _membership(stmt.test)
                if found and not found[2] and bound.get(found[0], 0) <= 1:
                    known[found[0]] = (found[1], stmt.lineno, found[1])
            elif isinstance(stmt, ast.If):
                chain(stmt, known)
                found = _membership(stmt.test)
                exits = stmt.body and isinstance(stmt.body[-1], (ast.Raise, ast.Return)) and not stmt.orelse
                if found and found[2] and exits and bound.get(found[0], 0) <= 1:
                    known[found[0]] = (found[1], stmt.lineno, found[1])
                continue
            for sub in (getattr(stmt, f, None) for f in ("body", "orelse", "finalbody")):
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    block(sub, known)
            for handler in getattr(stmt, "handlers", []):
                block(handler.body, known)

    def chain(node: ast.If, known: dict[str, tuple[frozenset, int, frozenset]]) -> None:
        known = dict(known)
        found = _membership(node.test)
        if found and found[0] in known:
            name, matching, negated = found
            possible, line, asserted = known[name]
            true_set = possible - matching if negated else possible & matching
            false_set = possible & matching if negated else possible - matching
            shown = lambda values: ", ".join(map(repr, sorted(values, key=repr)))  # noqa: E731
            where = f"`{name}` is one of {shown(asserted)} (line {line})" + (
                f" and the tests before this one leave only {shown(possible)}" if possible != asserted else "")
            if not true_set:
                out[(id(node), True)] = f"`{ast.unparse(node.test)}` is never true: {where}"
            if not false_set:
                out[(id(node), False)] = f"`{ast.unparse(node.test)}` is never false: {where}"
            block(node.body, {**known, name: (true_set, line, asserted)})
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                chain(node.orelse[0], {**known, name: (false_set, line, asserted)})
            else:
                block(node.orelse, {**known, name: (false_set, line, asserted)})
            return
        block(node.body, known)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            chain(node.orelse[0], known)
        else:
            block(node.orelse, known)

    block(getattr(fn, "body", []), {})
    return out


def dead_code(fn: ast.AST, constants: dict[str, object]) -> list[ast.AST]:
    """The statements of `fn` no input can run: the block a constant test never enters
    (`if DEBUG:` with `DEBUG = False`, the else of `if True:`, `while False:`'s body)."""
    constants = {"TYPE_CHECKING": False, **constants}
    out = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.If, ast.While)):
            v = constant_value(node.test, constants)
            if not is_known(v):
                continue
            out += node.orelse if v else node.body
        elif isinstance(node, ast.IfExp):
            v = constant_value(node.test, constants)
            if is_known(v):
                out.append(node.orelse if v else node.body)
    return out


def _fixed_length(iterated: ast.AST, constants: dict[str, object]) -> Optional[int]:
    """How many items a loop over `iterated` takes, where the source alone says it (a literal
    display without `*`; `range` of constants; a constant string): else None."""
    if isinstance(iterated, (ast.Tuple, ast.List)):
        return None if any(isinstance(e, ast.Starred) for e in iterated.elts) else len(iterated.elts)
    v = constant_value(iterated, constants)
    return len(v) if is_known(v) and isinstance(v, (range, str, bytes, tuple)) else None


_GROWING = {"append", "extend", "insert"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp, ast.ClassDef)


_VIEWS = {"items", "keys", "values"}  # a dict's views: as many items as the dict
_READS = {"get", "copy", "__contains__"}  # calls on a container that leave its items as they are


def _never_empty(fn: ast.AST, iterated: ast.AST) -> str:
    """Why a loop over the local `iterated` always has an item ("" unless the source says so): the
    function binds it once, to a list or dict display of at least one item (no `*`, `**`), and
    otherwise only grows it (`.append`, `.extend`, `.insert`, `d[k] = v`), reads it (`d[k]`,
    `.get`, `.items()`) or loops over it; no nested scope names it. A dict's `.items()`,
    `.keys()`, `.values()` are looped over as the dict."""
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr in _VIEWS \
            and not iterated.args and not iterated.keywords:
        iterated = iterated.func.value
    if not isinstance(iterated, ast.Name) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return ""
    name = iterated.id
    kept = {id(n.func.value) for n in ast.walk(fn) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWING | _VIEWS | _READS}
    kept |= {id(n.iter) for n in ast.walk(fn) if isinstance(n, (ast.For, ast.AsyncFor))}
    kept |= {id(n.value) for n in ast.walk(fn) if isinstance(n, ast.Subscript) and not isinstance(n.ctx, ast.Del)}
    bound = [n for n in fn.body if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name]
    if len(bound) != 1:
        return ""
    display = bound[0].value
    if isinstance(display, ast.List) and display.elts and not any(isinstance(e, ast.Starred) for e in display.elts):
        what, count = "a list", len(display.elts)
    elif isinstance(display, ast.Dict) and display.keys and None not in display.keys:
        what, count = "a dict", len(display.keys)
    else:
        return ""
    target = bound[0].targets[0]
    for node in ast.walk(fn):
        if isinstance(node, _SCOPES) and node is not fn and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
            return ""
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names \
                or isinstance(node, ast.ExceptHandler) and node.name == name \
                or isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name \
                or isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name:
            return ""
        if isinstance(node, ast.Name) and node.id == name and node is not target \
                and not (isinstance(node.ctx, ast.Load) and id(node) in kept):
            return ""
    return (f"it iterates `{name}`, bound at line {bound[0].lineno} to {what} of {count} "
            f"item(s) that the code only grows")


_CONTAINERS = {"list", "tuple", "dict", "set", "frozenset", "str", "bytes"}


def _leaves(stmts: list[ast.stmt]) -> bool:
    """The block always leaves the function (its last statement returns or raises)."""
    return bool(stmts) and isinstance(stmts[-1], (ast.Return, ast.Raise))


def _guarded_non_empty(fn: ast.AST, loop: ast.For) -> str:
    """Why a loop over the local `X` always has an item ("" unless the source says so): before it,
    in the function's own body, `if not X: return` (or raise) and `if not isinstance(X, T): raise`
    with T builtin containers, whose truth is their length, and X not bound again in between, nor
    anywhere but before both (0.5.19 `_validate_token_ids_logprob`)."""
    if not isinstance(loop.iter, ast.Name) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or loop not in fn.body:
        return ""
    name = loop.iter.id
    before = fn.body[:fn.body.index(loop)]
    falsy_leaves = typed_leaves = None
    for i, stmt in enumerate(before):
        if not (isinstance(stmt, ast.If) and not stmt.orelse and _leaves(stmt.body)):
            continue
        test = stmt.test
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            continue
        inner = test.operand
        if isinstance(inner, ast.Name) and inner.id == name:
            falsy_leaves = i
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "isinstance" \
                and len(inner.args) == 2 and isinstance(inner.args[0], ast.Name) and inner.args[0].id == name:
            types_ = inner.args[1].elts if isinstance(inner.args[1], ast.Tuple) else [inner.args[1]]
            if all(isinstance(t, ast.Name) and t.id in _CONTAINERS for t in types_):
                typed_leaves = i
    if falsy_leaves is None or typed_leaves is None:
        return ""
    first = min(falsy_leaves, typed_leaves)
    for node in ast.walk(fn):
        stores = isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) \
            or isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names
        if stores and not any(node in ast.walk(s) for s in before[:first]):
            return ""
        if isinstance(node, _SCOPES) and node is not fn and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
            return ""
    return (f"`{name}` is non-empty there: the code left at line {before[falsy_leaves].lineno} when it was falsy "
            f"and at line {before[typed_leaves].lineno} when it was no builtin container, whose truth is its length")


class _Points:
    """Branch outcomes as predicates over one call's `Ran`; an outcome a constant test can never
    take is marked unreachable (with why)."""

    def __init__(self, fn: ast.AST, code: types.CodeType, unit: str = "", constants: dict | None = None):
        self.unit = unit
        self.constants = {"TYPE_CHECKING": False, **(constants or {})}
        self.implied = implied_outcomes(fn)
        self.items: list[tuple[Branch, callable, why.Gate]] = []
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
                gate = _gate(node.test)
                self._add(node.lineno, "conditional expression true", _ran(_span(node.body)), gate,
                          self._never(node.test, True))
                self._add(node.lineno, "conditional expression false", _ran(_span(node.orelse)), gate,
                          self._never(node.test, False))
            elif isinstance(node, ast.BoolOp):
                op = "and" if isinstance(node.op, ast.And) else "or"
                for i, (value, nxt) in enumerate(zip(node.values, node.values[1:]), 1):
                    goes_on = op == "and"  # the operand's truth that continues to the next one
                    self._add(value.lineno, f"{op}: operand {i} continues", _ran(_span(nxt)), _gate(value),
                              self._never(value, goes_on))
                    self._add(value.lineno, f"{op}: operand {i} short-circuits", _skipped(_span(value), _span(nxt)),
                              _gate(value), self._never(value, not goes_on))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                word = "while" if isinstance(node, ast.While) else "for"
                header = _span(node.test if isinstance(node, ast.While) else node.iter)
                test = node.test if isinstance(node, ast.While) else None
                entered, skipped = self._never(test, True), self._never(test, False)
                n = _fixed_length(node.iter, self.constants) if isinstance(node, (ast.For, ast.AsyncFor)) else None
                if n is not None:  # a literal display, `range(128)`: its length is fixed by the source
                    fixed = f"it iterates `{ast.unparse(node.iter)}`, fixed by the source at {n} item(s)"
                    entered, skipped = (fixed, "") if n == 0 else ("", fixed)
                elif isinstance(node, (ast.For, ast.AsyncFor)):
                    skipped = skipped or _never_empty(fn, node.iter) or _guarded_non_empty(fn, node)
                gate = _gate(node.test if isinstance(node, ast.While) else node.iter)
                self._add(node.lineno, f"{word}: body entered", _ran(_span(node.body[0])), gate, entered)
                self._add(node.lineno, f"{word}: body not entered", _skipped(header, _span(node.body[0])), gate, skipped)
            elif isinstance(node, (ast.Try, ast.TryStar)):
                body = (node.body[0].lineno, node.body[0].col_offset, node.body[-1].end_lineno,
                        node.body[-1].end_col_offset)
                gate = why.Gate(body, ast.unparse(node.body[0]) + (" …" if len(node.body) > 1 else ""))
                for handler in node.handlers:
                    what = ast.unparse(handler.type) if handler.type is not None else "(bare)"
                    self._add(handler.lineno, f"except {what}: handler entered", _ran(_span(handler.body[0])), gate)
                if node.handlers:  # else a body that always raises (a missing optional import) hides what follows
                    self._add(node.lineno, "try: no handler entered", _none_of(
                        _span(node.body[0]), [_span(h.body[0]) for h in node.handlers]), gate)
            elif isinstance(node, ast.Assert):
                self._assert(node)

    def _never(self, test: ast.AST, outcome: bool) -> str:
        """Why a test can never come out `outcome` ("" when it can)."""
        v = None if test is None else constant_value(test, self.constants)
        if test is None or not is_known(v) or bool(v) != (not outcome):
            return ""
        return f"its test `{ast.unparse(test)}` is always {'true' if v else 'false'}: it depends only on constants"

    def _if(self, node: ast.If, word: str) -> None:
        body = _span(node.body[0])
        never_true = self._never(node.test, True) or self.implied.get((id(node), True), "")
        never_false = self._never(node.test, False) or self.implied.get((id(node), False), "")
        gate = _gate(node.test)
        self._add(node.lineno, f"{word} true", _ran(body), gate, never_true)
        if node.orelse:
            self._add(node.lineno, f"{word} false", _ran(_span(node.orelse[0])), gate, never_false)
        else:
            self._add(node.lineno, f"{word} false (skips body)", _skipped_once(_span(node.test), _span(node), _body_span(node.body)),
                      gate, never_false)

    def _assert(self, node: ast.Assert) -> None:
        test = _span(node.test)
        # placed at the test, or at the whole statement when the test is a constant (`assert False`)
        offsets = {o for o, p in self._assert_offsets.items() if _inside(p, _span(node))}

        def fails(ran):
            return bool(ran.offsets & offsets)

        def holds(ran):
            return not fails(ran) and _skipped(test, (0, 0, 0, 0))(ran)

        self._add(node.lineno, "assert holds", holds, _gate(node.test), self._never(node.test, True))
        self._add(node.lineno, "assert fails", fails, _gate(node.test), self._never(node.test, False))

    def _add(self, line, label, predicate, gate: why.Gate, unreachable: str = ""):
        # each outcome its own gate (what the calls did there counts for the outcomes never hit only)
        gate = why.Gate(gate.span, gate.text)
        self.items.append((Branch(line, label, unit=self.unit, unreachable=unreachable), predicate, gate))


def _nested_codes(code: types.CodeType):
    """The code objects nested in `code` (functions, lambdas, comprehensions), at any depth."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested_codes(const)


def _gate(node: ast.AST) -> why.Gate:
    """The test (or loop header) a branch outcome comes out of."""
    return why.Gate(_span(node), ast.unparse(node))


def _borrowed(code: types.CodeType) -> set[int]:
    """Offsets of instructions that run where their position says something else ran: a failing
    `assert` raises from instructions placed at its test's last operand (`assert a and b` with a
    false: LOAD_ASSERTION_ERROR ... RAISE_VARARGS sit at `b`, which never ran)."""
    out, block = set(), None
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_ASSERTION_ERROR":
            block = ins.positions
        if block is not None:
            p = ins.positions
            if (p.lineno, p.col_offset, p.end_lineno, p.end_col_offset) == \
                    (block.lineno, block.col_offset, block.end_lineno, block.end_col_offset):
                out.add(ins.offset)
            if ins.opname == "RAISE_VARARGS":
                block = None
    return out


class BranchTracer:
    """Traces calls of the given code objects; `feed()` folds finished calls into the branches."""

    def __init__(self, units: dict[types.CodeType, ast.AST], roles: dict[types.CodeType, str] | None = None,
                 constants: dict[types.CodeType, dict] | None = None, files: set[str] | None = None):
        """`constants`: per code object, the names its module fixes by a literal (unreachable branches);
        `files`: the version's own files, where a stop's exception is said to be raised (default:
        those of the units)."""
        self.codes = units
        self.files = set(files) if files else {code.co_filename for code in units}
        self.roles = roles or {}
        self.points = {code: _Points(node, code, self.roles.get(code, ""), (constants or {}).get(code))
                       for code, node in units.items()}
        # the code of the functions, lambdas and comprehensions nested in a unit runs in frames of
        # its own: traced as its unit's, whose branch points (positions in the file) cover it too
        self.unit_of = {inner: code for code in units for inner in _nested_codes(code)}
        self.unit_of.update({code: code for code in units})
        self.positions = {code: list(code.co_positions()) for code in self.unit_of}
        self.borrowed = {code: _borrowed(code) for code in self.unit_of}
        self.returns = {code: {i.offset for i in dis.get_instructions(code) if i.opname in _RETURNS}
                        for code in self.unit_of}
        self.conditional = {code: {i.offset for i in dis.get_instructions(code) if i.opcode in _CONDITIONAL}
                            for code in self.unit_of}
        self.calls: list[list] = []  # [code, offsets, raised, how it stopped (why.Stop) or None, jumps]
        self.ends = {code: why.Ends() for code in units}
        self.entered: set[types.CodeType] = set()
        self.lines: dict[types.CodeType, set[int]] = {code: set() for code in units}

    def _trace(self, frame, event, arg):
        if event != "call" or frame.f_code not in self.unit_of:
            return None
        offsets: set = set()
        raised: set = set()
        jumps: set = set()
        conditional = self.conditional[frame.f_code]
        previous = [None]  # the conditional jump that ran last, when it was the last instruction
        call = [frame.f_code, offsets, raised, None, jumps]
        self.calls.append(call)
        last: list = [None]  # the last exception the frame saw: (offset, exception, traceback)
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False

        def local(frame, event, arg):
            if event == "opcode":
                offsets.add(frame.f_lasti)
                if previous[0] is not None:
                    jumps.add((previous[0], frame.f_lasti))
                previous[0] = frame.f_lasti if frame.f_lasti in conditional else None
            elif event == "exception":
                raised.add(frame.f_lasti)  # a test that raised took neither way
                previous[0] = None
                last[0] = (frame.f_lasti, arg[1], arg[2])
            elif event == "return" and last[0] is not None:
                offset, error, tb = last[0]
                last[0] = None
                if frame.f_lasti not in self.returns[frame.f_code]:  # left by that exception, not a return
                    call[3] = why.stop(self.positions[frame.f_code][offset // 2], error, self.files, tb)
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
        for code, offsets, raised, stopped, jumps in self.calls:
            unit = self.unit_of[code]
            if code is unit:  # a nested function's call is not one of the unit's (the reasons count those)
                self.entered.add(code)
                ends = self.ends[code]
                ends.calls += 1
                if stopped is not None:
                    ends.stops[stopped] += 1
            positions, borrowed = self.positions[code], self.borrowed[code]
            self.lines[unit] |= {positions[o // 2][0] for o in offsets if o not in borrowed}
            ran = Ran({positions[o // 2] for o in offsets if o not in borrowed}, {positions[o // 2] for o in raised},
                      offsets, {(positions[a // 2], positions[b // 2]) for a, b in jumps
                                if a not in borrowed and b not in borrowed})
            for branch, predicate, gate in self.points[unit].items:
                if branch.hit:
                    continue
                if predicate(ran):
                    branch.hit = True
                elif any(_inside(p, gate.span) for p in ran.positions):  # why it is not (yet) hit
                    gate.reached += 1
                    if stopped is not None and _inside(stopped.position, gate.span):
                        gate.raised[stopped] += 1
        self.calls.clear()

    def done(self) -> bool:
        return len(self.entered) == len(self.codes) and all(
            b.hit or b.unreachable for p in self.points.values() for b, _, _ in p.items)

    def missed_gates(self) -> list[why.Gate]:
        """The tests of the outcomes never taken that calls ran (`Gate.reached`)."""
        return [gate for p in self.points.values() for b, _, gate in p.items
                if not b.hit and not b.unreachable and gate.reached]

    def coverage(self, notes: dict[int, str] | None = None) -> Coverage:
        """`notes`: id of a gate -> what else explains it (`why.literal_note`)."""
        never = [self.roles.get(code, "") or getattr(code, "co_qualname", code.co_name)
                 for code in self.codes if code not in self.entered]
        lines: dict[str, set[int]] = {}
        for code, found in self.lines.items():
            lines.setdefault(self.roles.get(code, ""), set()).update(found)
        missed = [(b.where(), gate, self.ends[code], self.codes[code], self.roles.get(code, ""))
                  for code, p in self.points.items() for b, _, gate in p.items if not b.hit and not b.unreachable]
        return Coverage([b for p in self.points.values() for b, _, _ in p.items], never, lines,
                        why.missed_reasons(missed, notes or {}))


_RETURNS = {"RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE"}
_CONDITIONAL = {dis.opmap[name] for name in dis.opmap if "JUMP" in name and "IF" in name}  # POP_JUMP_*_IF_*, ...


def trace_until_done(tracer: BranchTracer, run, configs: list) -> Coverage:
    """Run configurations under `tracer` (a fixed shuffle, so that varied ones come first) until
    every function has been entered and every branch is hit (or unreachable); if some never are,
    every configuration has been traced."""
    order = list(configs)
    random.Random(0).shuffle(order)
    batch = 64
    for start in range(0, len(order), batch):
        with tracer:
            for config in order[start: start + batch]:
                run(config)
        if tracer.done():
            break
    notes = {}
    for gate in tracer.missed_gates():
        note = why.literal_note(gate, configs, run)
        if note:
            notes[id(gate)] = note
    return tracer.coverage(notes)
