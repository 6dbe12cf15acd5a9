"""The candidate edits `mutate` chooses from: for one node of a function, or for the call of the
extracted function, which text replaces which span. Nothing here checks that an edit parses or
changes the AST; `mutate` does."""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass

from pysource.names import attribute_chain, is_attribute_of

FLIPPED = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
           ast.Is: "is not", ast.IsNot: "is", ast.In: "not in", ast.NotIn: "in"}
OPERATOR = re.compile(r"==|!=|<=|>=|<|>|\bis\s+not\b|\bis\b|\bnot\s+in\b|\bin\b")
BOOL_OPERATOR = {ast.And: (re.compile(r"\band\b"), "or"), ast.Or: (re.compile(r"\bor\b"), "and")}
DROPPABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Assert, ast.Delete)
NONE_BECOMES = '"<mutant>"'  # truthy, and plain to see in a log


@dataclass
class Edit:
    kind: str
    line: int
    description: str
    spans: list[tuple[int, int, str]]  # (start, end, replacement), character offsets in the file


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def for_node(unit, node: ast.AST):
    """Every edit of `node` itself (the kinds that apply to any function)."""
    if isinstance(node, ast.Compare):
        yield from _flip_comparisons(unit, node)
    elif isinstance(node, ast.Constant):
        yield from _change_constant(unit, node)
    elif isinstance(node, ast.BoolOp):
        yield from _swap_bool_operator(unit, node)
    elif isinstance(node, ast.If):
        yield from _swap_branches(unit, node)
    elif isinstance(node, ast.IfExp):
        yield Edit("branch-swap", node.lineno, f"`{_short(unit.source(node))}`: the two arms swapped",
                   [(unit.start(node.body), unit.end(node.body), unit.source(node.orelse)),
                    (unit.start(node.orelse), unit.end(node.orelse), unit.source(node.body))])
    elif isinstance(node, ast.Call):
        yield from _swap_positional(unit, node)
    if (isinstance(node, DROPPABLE) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))) \
            and not _holds_the_only_call(unit, node):
        yield Edit("drop", node.lineno, f"`{_short(unit.source(node))}` dropped", [(unit.start(node), unit.end(node), "pass")])
    if unit.role == "core" and unit.self_name and isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        for target in _targets(node):
            if is_attribute_of(target, unit.self_name):
                yield Edit("write", node.lineno, f"writes {unit.source(target)}_mutant instead of {unit.source(target)}",
                           [(unit.end(target), unit.end(target), "_mutant")])


def _holds_the_only_call(unit, node: ast.AST) -> bool:
    """A call site's statement calling the extracted function (no wrapper): without it the version
    calls the function nowhere, is no extraction at all, and the harness refuses to load it."""
    if unit.role != "caller" or unit.fn is getattr(unit.ext, "wrapper", None):
        return False
    calls = {id(call) for call, _ in unit.calls}
    return any(id(n) in calls for n in ast.walk(node))


def _flip_comparisons(unit, node: ast.Compare):
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        start, end = unit.end(operands[i]), unit.start(operands[i + 1])
        gap = unit.text[start:end]
        match = OPERATOR.search(gap)
        if "#" in gap or match is None:
            continue
        flipped = FLIPPED[type(op)]
        yield Edit("cmp-flip", node.lineno, f"`{_short(unit.source(node))}`: `{match.group()}` becomes `{flipped}`",
                   [(start + match.start(), start + match.end(), flipped)])


def _change_constant(unit, node: ast.Constant):
    parent = unit.parents.get(id(node))
    if isinstance(parent, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
        return  # `x is None` is flipped by cmp-flip; `x is 0` would only warn
    value = node.value
    if isinstance(value, bool):
        new = repr(not value)
    elif isinstance(value, int):
        new = repr(value + 1)
    elif isinstance(value, float):
        new = repr(value + 1.0)
    elif isinstance(value, str):
        new = _quoted(value + "_mutant", unit.source(node))
    elif value is None:
        new = _none_becomes(unit, node)
        if new is None:
            return
    else:
        return
    yield Edit("const", node.lineno, f"`{_short(unit.source(node))}` becomes `{_short(new)}`",
               [(unit.start(node), unit.end(node), new)])


def _none_becomes(unit, node: ast.Constant) -> str | None:
    """What a `None` becomes: when it is (part of) the value of `v = ...` and the code compares `v`
    (or `v.m()`) with a string literal, that literal, which takes another path than None where a
    mere string may not (`getattr(c, "algo", None)` then `isinstance(algo, str) and algo.upper() ==
    "FP8"`: any other string goes where None goes); else NONE_BECOMES. None (no mutant) when `v` is
    only ever read by `getattr(v, "name", ...)` / `hasattr(v, "name")` of a name no string has:
    a string there is None's equal, and the mutant could not be told apart by any input."""
    statement = node
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = unit.parents.get(id(statement))
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 \
            or not isinstance(statement.targets[0], ast.Name):
        return NONE_BECOMES
    name = statement.targets[0].id
    if _only_probed(unit.fn, name):
        return None
    for n in ast.walk(unit.fn):
        if not isinstance(n, ast.Compare) or not all(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops):
            continue
        sides = [n.left, *n.comparators]
        if any(_rooted_at(x, name) for x in sides):
            literal = next((x for x in sides if isinstance(x, ast.Constant) and isinstance(x.value, str)), None)
            if literal is not None:
                return unit.source(literal)  # as the code spells it
    return NONE_BECOMES


def _only_probed(fn: ast.AST, name: str) -> bool:
    """Every read of `name` in `fn` is the object of getattr/hasattr with a literal attribute `str` lacks."""
    probed, reads = set(), []
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            reads.append(n)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") \
                and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == name \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str) \
                and not hasattr(str, n.args[1].value):
            probed.add(id(n.args[0]))
    return bool(reads) and all(id(r) in probed for r in reads)


def _rooted_at(node: ast.AST, name: str) -> bool:
    """`name`, `name.a`, `name.m()`, `name.m().n()`: a value read off the name."""
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id == name


def _quoted(value: str, source: str) -> str:
    """`repr(value)`, with double quotes when the source used them and the value allows it."""
    text = repr(value)
    double = source.lstrip("rRbBuU")[:1] == '"'
    if double and text.startswith("'") and '"' not in value:
        text = '"' + text[1:-1].replace("\\'", "'") + '"'
    return text


def _swap_bool_operator(unit, node: ast.BoolOp):
    pattern, new = BOOL_OPERATOR[type(node.op)]
    spans = []
    for left, right in zip(node.values, node.values[1:]):
        start, end = unit.end(left), unit.start(right)
        gap = unit.text[start:end]
        match = pattern.search(gap)
        if "#" in gap or match is None:
            return
        spans.append((start + match.start(), start + match.end(), new))
    old = "and" if new == "or" else "or"
    yield Edit("bool-swap", node.lineno, f"`{_short(unit.source(node))}`: `{old}` becomes `{new}`", spans)


def _swap_branches(unit, node: ast.If):
    """A plain else: the two blocks swap places (whole lines); otherwise the test is negated."""
    orelse = node.orelse
    is_elif = len(orelse) == 1 and unit.text.startswith("elif", unit.start(orelse[0]))
    header = _short(unit.text[unit.start(node):unit.end(node.test)])
    if orelse and not is_elif and _own_lines(unit, node.body) and _own_lines(unit, orelse) \
            and node.body[0].col_offset == orelse[0].col_offset:
        body, other = _line_span(unit, node.body), _line_span(unit, orelse)
        yield Edit("branch-swap", node.lineno, f"`{header}`: body and else swapped",
                   [(*body, unit.text[other[0]:other[1]]), (*other, unit.text[body[0]:body[1]])])
        return
    yield Edit("branch-swap", node.lineno, f"`{header}`: test negated",
               [(unit.start(node.test), unit.end(node.test), f"not ({unit.source(node.test)})")])


def _own_lines(unit, block: list[ast.stmt]) -> bool:
    """The block starts its first line and ends its last one (no `if x: y` on one line)."""
    first, last = block[0], block[-1]
    before = unit.lines[first.lineno - 1].encode()[: first.col_offset]
    after = unit.lines[last.end_lineno - 1].encode()[last.end_col_offset:]
    return not before.strip() and not after.split(b"#")[0].strip()


def _line_span(unit, block: list[ast.stmt]) -> tuple[int, int]:
    return unit.starts[block[0].lineno - 1], unit.starts[block[-1].end_lineno]


# builtins whose two arguments commute: swapping them is an equivalent mutant, which no input can
# kill (their order shows only between equal values of different types, `min(1, 1.0)`)
COMMUTING = ("min", "max")


def _swap_positional(unit, node: ast.Call):
    args = node.args
    if len(args) < 2 or any(isinstance(a, ast.Starred) for a in args[:2]):
        return
    if isinstance(node.func, ast.Name) and node.func.id in COMMUTING and len(args) == 2 and not node.keywords:
        return
    first, second = unit.source(args[0]), unit.source(args[1])
    if first != second:
        yield Edit("arg-order", node.lineno, f"`{_short(unit.source(node))}`: arguments 1 and 2 swapped",
                   [(unit.start(args[0]), unit.end(args[0]), second), (unit.start(args[1]), unit.end(args[1]), first)])


def for_caller(unit, call: ast.Call, statement: ast.stmt):
    """Edits of the call of the extracted function and of how its result is written. Arguments
    passed by position (`--positional`) get the edits of those passed by keyword: each two
    neighbours swapped (the first two are `_swap_positional`'s, as in any call), each one read
    from `self` passed another one's value."""
    keywords = [k for k in call.keywords if k.arg is not None]
    for a, b in zip(keywords, keywords[1:]):
        x, y = unit.source(a.value), unit.source(b.value)
        if x != y:
            yield Edit("arg-order", a.value.lineno, f"`{a.arg}` and `{b.arg}` passed each other's value",
                       [(unit.start(a.value), unit.end(a.value), y), (unit.start(b.value), unit.end(b.value), x)])
    positional = list(itertools.takewhile(lambda a: not isinstance(a, ast.Starred), call.args))
    for i, (a, b) in enumerate(zip(positional, positional[1:])):
        x, y = unit.source(a), unit.source(b)
        if i and x != y:
            yield Edit("arg-order", a.lineno, f"`{_short(unit.source(call))}`: arguments {i + 1} and {i + 2} swapped",
                       [(unit.start(a), unit.end(a), y), (unit.start(b), unit.end(b), x)])
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is call:
        for target in _targets(statement):
            if isinstance(target, ast.Attribute):
                old = unit.source(target)
                yield Edit("write", target.lineno, f"the result goes to {old}_mutant instead of {old}",
                           [(unit.end(target), unit.end(target), "_mutant")])
                yield Edit("write", target.lineno, f"the result is not written to {old}",
                           [(unit.start(target), unit.end(target), "_")])
    chains = [k for k in keywords if unit.self_name and attribute_chain(k.value, unit.self_name)]
    for i, keyword in enumerate(chains):
        other = next((c for c in chains[i + 1:] + chains[:i] if unit.source(c.value) != unit.source(keyword.value)), None)
        if other is not None:
            yield Edit("param-source", keyword.value.lineno,
                       f"`{keyword.arg}` passed {unit.source(other.value)} instead of {unit.source(keyword.value)}",
                       [(unit.start(keyword.value), unit.end(keyword.value), unit.source(other.value))])
    read = [(n, a) for n, a in enumerate(positional, 1) if unit.self_name and attribute_chain(a, unit.self_name)]
    values = [a for _, a in read] + [k.value for k in chains]
    for i, (n, arg) in enumerate(read):
        other = next((v for v in values[i + 1:] + values[:i] if unit.source(v) != unit.source(arg)), None)
        if other is not None:
            yield Edit("param-source", arg.lineno, f"argument {n} passed {unit.source(other)} instead of "
                                                   f"{unit.source(arg)}",
                       [(unit.start(arg), unit.end(arg), unit.source(other))])


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]


