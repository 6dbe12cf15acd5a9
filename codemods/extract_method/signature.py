"""The method's own parameters, and call arguments mapped onto them by keyword.

The static function takes everything by keyword, so a call site's positional arguments are
spelled `name=value` in step 1; a call passing `*args` or `**kwargs` cannot be mapped and is
refused. The method itself may not take `*args`, `**kwargs` or positional-only parameters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.core.errors import Refusal

NO_SPACE = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def kwarg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`."""
    return cst.Arg(value, keyword=cst.Name(name), equal=NO_SPACE)


def own_params(func: cst.FunctionDef, path: Path, line: Optional[int], strict: bool) -> list[cst.Param]:
    """The method's parameters after `self` (positional-or-keyword first, then keyword-only)."""
    p = func.params
    first = p.params[0] if p.params else None
    name = func.name.value
    if strict and (len(p.params) != 1 or first.name.value != "self" or p.kwonly_params or p.posonly_params
                   or not isinstance(p.star_arg, cst.MaybeSentinel) or p.star_kwarg):
        raise Refusal(f"{name} takes parameters other than self", path, line)
    if p.posonly_params:
        raise Refusal(f"{name} takes positional-only parameters: the function takes keywords only", path, line)
    if first is None or first.name.value != "self":
        raise Refusal(f"{name}'s first parameter is not `self`", path, line)
    if isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None:
        raise Refusal(f"{name} takes *args or **kwargs: the function's parameters are keyword-only, which *args "
                      f"cannot be, and a keyword that **kwargs collects could collide with one the function "
                      f"takes in place of self's attributes (the call would then raise, where the method did "
                      f"not); this codemod maps fixed parameters only", path, line)
    return [*p.params[1:], *p.kwonly_params]


def call_arguments(call: cst.Call, params: cst.Parameters, path: Path, line: Optional[int]) -> list[cst.Arg]:
    """`call`'s arguments for the method's own parameters, each by keyword, in the call's order."""
    positional = [q.name.value for q in params.params[1:]]
    known = set(positional) | {q.name.value for q in params.kwonly_params}
    out = []
    for i, a in enumerate(call.args):
        if a.star:
            raise Refusal(f"a call passes {a.star}...: which parameters it fills is only known at run time",
                          path, line)
        if a.keyword is None:
            if i >= len(positional):
                raise Refusal("a call passes more positional arguments than the method takes", path, line)
            a = a.with_changes(keyword=cst.Name(positional[i]), equal=NO_SPACE)
        elif a.keyword.value not in known:
            raise Refusal(f"a call passes {a.keyword.value}=, which the method does not take", path, line)
        out.append(a)
    return out


def new_call(call: cst.Call, func: str, args: list[cst.Arg]) -> cst.Call:
    """`func(args)`, keeping nothing of `call` but its parentheses around the whole expression."""
    return cst.Call(func=cst.parse_expression(func), args=args, lpar=call.lpar, rpar=call.rpar)
