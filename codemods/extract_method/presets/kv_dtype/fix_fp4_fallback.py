"""Fix: make an announced fallback really take the fallback branch.

The shape it rewrites, in a module-level function with an `if`/`elif` chain on a parameter::

    if param == "auto":
        ...                                  # the fallback's real resolution
    elif param == "fp4_e2m1":
        if <supported>:
            <supported case>
        else:
            <announcement>                   # e.g. logger.warning("... falls back to 'auto' ...")
            <shortcut assignment>            # what the code did instead of falling back

becomes::

    if param == "fp4_e2m1" and not <supported>:
        <announcement>
        param = "auto"
    if param == "auto":
        ...
    elif param == "fp4_e2m1":
        <supported case>

The announcement is kept word for word and still comes first, so configurations where the
shortcut already gave what the fallback gives behave exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst
import libcst.matchers as m

from codemods.syntax.nodes import module_function
from codemods.core.errors import AlreadyApplied, Refusal
from codemods.core.formatting import Style, format_module


@dataclass(frozen=True)
class Fallback:
    function: str  # module-level function holding the chain
    param: str  # the parameter the chain compares
    value: str  # the branch that announces a fallback, e.g. "fp4_e2m1"
    fallback: str  # the branch it announces, e.g. "auto"
    comment: str = ""  # put above the new guard (without "# ")


def _equals(param: str, value: str) -> m.BaseMatcherNode:
    return m.Comparison(left=m.Name(param), comparisons=[m.ComparisonTarget(
        operator=m.Equal(), comparator=m.SimpleString(
            m.MatchIfTrue(lambda s: s[1:-1] == value and s[0] == s[-1] and s[0] in "'\"")))])


def _chain(node: cst.If) -> list[cst.If]:
    out = [node]
    while isinstance(out[-1].orelse, cst.If):
        out.append(out[-1].orelse)
    return out


def _guard(spec: Fallback) -> m.BaseMatcherNode:
    return m.If(test=m.BooleanOperation(left=_equals(spec.param, spec.value), operator=m.And(),
                                        right=m.UnaryOperation(operator=m.Not())))


def fix_fallback(code: str, path: Path, spec: Fallback, style: Style) -> str:
    """The fixed module text; `AlreadyApplied` if the guard is there, `Refusal` off shape."""
    module, original_func, line = module_function(code, path, spec.function)
    func = original_func
    where = f"{spec.function}: "
    body = list(func.body.body)
    if any(m.matches(s, _guard(spec)) for s in body):
        raise AlreadyApplied(f"{where}already applied: it falls back to {spec.fallback!r} before "
                             f"the {spec.value!r} branch", path, line(next(s for s in body if m.matches(s, _guard(spec)))))
    chains = [(i, s) for i, s in enumerate(body) if isinstance(s, cst.If)
              and any(m.matches(b.test, _equals(spec.param, spec.value)) for b in _chain(s))]
    if len(chains) != 1:
        raise Refusal(f"{where}expected one if/elif chain with a `{spec.param} == {spec.value!r}` branch, "
                      f"found {len(chains)}", path, line(func))
    index, chain = chains[0]
    branches = _chain(chain)
    target = next(b for b in branches if m.matches(b.test, _equals(spec.param, spec.value)))
    if not any(m.matches(b.test, _equals(spec.param, spec.fallback)) for b in branches):
        raise Refusal(f"{where}the chain has no `{spec.param} == {spec.fallback!r}` branch to fall back to",
                      path, line(chain))
    inner = _split(target, spec, path, line)
    supported, announce = inner
    for s in body[index + 1:]:
        if spec.param in {n.value for n in m.findall(s, m.Name())}:
            raise Refusal(f"{where}{spec.param} is read after the chain; falling back by reassigning it "
                          f"would change that read", path, line(s))
    if m.findall(func.body, m.AssignTarget(target=m.Name(spec.param))) or m.findall(
            func.body, m.AugAssign(target=m.Name(spec.param))):
        raise Refusal(f"{where}{spec.param} is assigned in the function", path, line(func))

    assign = cst.SimpleStatementLine(body=[cst.Assign(
        targets=[cst.AssignTarget(cst.Name(spec.param))], value=cst.SimpleString(f'"{spec.fallback}"'))])
    guard = cst.If(
        test=cst.BooleanOperation(left=target.test, operator=cst.And(),
                                  right=cst.UnaryOperation(operator=cst.Not(), expression=supported.test)),
        body=cst.IndentedBlock(body=[*announce, assign]),
        leading_lines=[*chain.leading_lines, *_comment(spec.comment)])
    new_target = target.with_changes(body=supported.body)

    class _Swap(cst.CSTTransformer):
        def leave_If(self, original, updated):
            return new_target if original is target else updated

    new_chain = chain.visit(_Swap()).with_changes(leading_lines=())
    body[index:index + 1] = [guard, new_chain]
    func = func.with_changes(body=func.body.with_changes(body=body))
    module = module.with_changes(body=[func if s is original_func else s for s in module.body])
    return format_module(module.code, style)


def _split(target: cst.If, spec: Fallback, path: Path, line) -> tuple[cst.If, list[cst.BaseStatement]]:
    """(the inner `if <supported>` node, the announcement statements of its else)."""
    why = (f"{spec.function}: the {spec.value!r} branch is not `if <supported>: ... else: "
           f"<announcement>; <assignment>`")
    stmts = target.body.body
    if len(stmts) != 1 or not isinstance(stmts[0], cst.If):
        raise Refusal(why, path, line(target))
    inner = stmts[0]
    if not isinstance(inner.orelse, cst.Else):
        raise Refusal(why + " (no plain else)", path, line(inner))
    tail = list(inner.orelse.body.body)
    if len(tail) < 2 or not m.matches(tail[-1], m.SimpleStatementLine(body=[m.Assign()])):
        raise Refusal(why + " (the else does not end with an assignment after the announcement)", path, line(inner))
    announce = tail[:-1]
    if not all(m.matches(s, m.SimpleStatementLine(body=[m.ZeroOrMore(m.Expr())])) for s in announce):
        raise Refusal(why + " (the announcement is more than expression statements)", path, line(inner))
    return inner, announce


def _comment(text: Optional[str]) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(comment=cst.Comment(f"# {line}")) for line in text.splitlines()] if text else []
