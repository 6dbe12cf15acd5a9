"""Numbers the world gave, followed through arithmetic, and the comparisons that decided a run's path.

A traced number (standins.TracedInt / TracedFloat) is the world's value of a key; arithmetic on it
gives a `Derived` number: the real result, carrying how it was computed from the keys as a small
expression tree (tuples, cheap to build: no solver object is made while the code runs):

    ("var", KEY, "int" | "real")   the value of KEY in this run
    ("const", V)                   a plain number the code computed with
    (OP, A, B)                     OP in + - * / // %; ("neg", A), ("abs", A)

Every comparison of such a number made by the code under test (`<`, `==`, a truth test, ...) is
one step of the run's path: `World.path` gets `Step(site, (CMP, A, B), outcome)`, where site is
the file and line of the comparison. solve.py negates one step, with the steps before it, and
asks z3 for values of the keys that take the other way (CrossHair's and DART's idea, on the
world's keys). The values only propose a configuration: the exploration runs it like any other,
so a model z3 gets wrong (Python's floor division of negatives, a float rounded) costs a run,
never a verdict.
"""

from __future__ import annotations

import sys
from typing import NamedTuple

MAX_STEPS = 256  # per run and version: the rest of a long loop's comparisons are not kept
FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
SWAP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class Step(NamedTuple):
    site: tuple[str, int]  # (file, line) of the comparison
    test: tuple  # (CMP, A, B): the comparison as made
    outcome: bool  # what it gave in this run


def expr_of(v):
    """The expression tree of a number: its own for a traced or derived one, else a constant
    (None for what is no plain number: a stand-in, a string)."""
    found = getattr(type(v), "_symbolic", None)
    if found is not None:
        return object.__getattribute__(v, "_expr")
    if type(v) in (int, float) or type(v) is bool:
        return ("const", v)
    return None


def record(world, test: tuple, outcome: bool, depth: int = 2) -> None:
    """A comparison the code under test made (its frame `depth` levels up) joins the run's path."""
    if world is None or len(world.path) >= MAX_STEPS:
        return
    frame = sys._getframe(depth)
    if id(frame.f_globals) not in world.namespaces:
        return
    world.path.append(Step((frame.f_code.co_filename, frame.f_lineno), test, bool(outcome)))


def kind_of(expr: tuple) -> str:
    """"int" or "real": what z3 sort an expression has."""
    tag = expr[0]
    if tag == "var":
        return expr[2]
    if tag == "const":
        return "real" if isinstance(expr[1], float) else "int"
    if tag == "/":
        return "real"
    return "real" if any(kind_of(e) == "real" for e in expr[1:]) else "int"


def shown(expr: tuple) -> str:
    """An expression as text (the step's identity across runs, and what a report may show)."""
    tag = expr[0]
    if tag == "var":
        return expr[1]
    if tag == "const":
        return repr(expr[1])
    if tag in ("neg", "abs"):
        return f"{tag}({shown(expr[1])})"
    return f"({shown(expr[1])} {tag} {shown(expr[2])})"


ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod"}
COMPARISONS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}


def derived_class(plain: type) -> type:
    """The class of the numbers computed from traced ones: a `plain` (int or float) whose
    arithmetic and comparisons keep following the keys."""

    def binary(op: str, reflected: bool):
        real = getattr(plain, f"__{'r' if reflected else ''}{ARITHMETIC[op]}__")

        def method(self, other):
            result = real(plain(self), other)
            theirs = expr_of(other)
            if type(result) not in (int, float) or theirs is None:
                return result  # NotImplemented, or computed with what is no number the world gave
            mine = object.__getattribute__(self, "_expr")
            return derive(result, (op, theirs, mine) if reflected else (op, mine, theirs),
                          object.__getattribute__(self, "_world"))

        return method

    def unary(op: str, real):
        def method(self):
            return derive(real(plain(self)), (op, object.__getattribute__(self, "_expr")),
                          object.__getattribute__(self, "_world"))

        return method

    def compare(op: str):
        real = getattr(plain, f"__{COMPARISONS[op]}__")

        def method(self, other):
            hook = type(self)._on_compare
            if hook is not None:
                hook(self, other)
            outcome = real(plain(self), other)
            theirs = expr_of(other)
            if outcome is not NotImplemented and theirs is not None:
                record(object.__getattribute__(self, "_world"), (op, object.__getattribute__(self, "_expr"), theirs),
                       outcome)
            return outcome

        return method

    def truth(self):
        outcome = plain.__bool__(plain(self))
        record(object.__getattribute__(self, "_world"), ("!=", object.__getattribute__(self, "_expr"), ("const", 0)),
               outcome)
        return outcome

    namespace = {"_symbolic": True, "_on_compare": None, "__hash__": plain.__hash__, "__bool__": truth,
                 "__neg__": unary("neg", plain.__neg__), "__abs__": unary("abs", plain.__abs__)}
    for op, name in ARITHMETIC.items():
        namespace[f"__{name}__"] = binary(op, reflected=False)
        namespace[f"__r{name}__"] = binary(op, reflected=True)
    for op, name in COMPARISONS.items():
        namespace[f"__{name}__"] = compare(op)
    return type(f"Derived{plain.__name__.capitalize()}", (plain,), namespace)


def _new(cls, plain: type, v, expr: tuple, world):
    out = plain.__new__(cls, v)
    out._expr, out._world = expr, world
    return out


def derive(v, expr: tuple, world):
    """`v` (a result) as a derived number carrying `expr`; a bool or anything else stays plain."""
    kind = type(v)
    if kind is int:
        return _new(DerivedInt, int, v, expr, world)
    if kind is float:
        return _new(DerivedFloat, float, v, expr, world)
    return v


DerivedInt = derived_class(int)
DerivedFloat = derived_class(float)
DERIVED = {DerivedInt: int, DerivedFloat: float}
