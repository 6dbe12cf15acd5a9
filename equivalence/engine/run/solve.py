"""Configurations solved for: the other way of a comparison no run has taken yet.

Each run records, per version, the comparisons of traced numbers that decided its path
(world/symbolic.py: `World.path`). A comparison (its site and its expression over the keys) whose
other outcome no run has seen is a branch the exploration has not found by varying one key at a
time: a sum past a bound, `a == b * c`, `n % 4 == 0` after three other guards. `Concolic` negates
it, together with the steps that led there in that run (else alone, when that conjunction has no
solution), and asks z3 for values of the keys; the run's own choices plus those values are a new
configuration, which the exploration runs like any other (explore.py). One attempt per comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from equivalence.engine.world.symbolic import FLIP, Step, kind_of, shown
from equivalence.engine.world.world import value

TIMEOUT_MS = 2000  # per solver call (the first one pays for z3 starting up)
BOUND = 1 << 24  # |an int key| at most this: a model keeps to values a configuration can hold
MAX_ATTEMPTS = 200  # solver calls per pair


class Unsupported(Exception):
    """An expression z3 cannot hold (a NaN or an infinite constant)."""


@dataclass
class Concolic:
    seen: dict[tuple, set[bool]] = field(default_factory=dict)  # a comparison -> the outcomes runs gave it
    found: dict[tuple, tuple[dict, list[Step], Step]] = field(default_factory=dict)  # its first run: (choices, steps before, it)
    tried: set[tuple] = field(default_factory=set)
    attempts: int = 0
    solved: int = 0  # configurations proposed (each a model z3 found)

    def feed(self, choices: dict, paths: list[list[Step]]) -> None:
        """A run's explicit choices (among the keys it read) and each version's path."""
        for path in paths:
            for i, step in enumerate(path):
                ident = identity(step)
                outcomes = self.seen.setdefault(ident, set())
                outcomes.add(step.outcome)
                if ident not in self.found:
                    self.found[ident] = (choices, path[:i], step)

    def proposals(self) -> list[dict]:
        """A configuration for each comparison seen one way only, not tried before (where z3 finds one)."""
        out = []
        for ident, (choices, before, step) in list(self.found.items()):
            if ident in self.tried or len(self.seen[ident]) == 2 or self.attempts >= MAX_ATTEMPTS:
                continue
            self.tried.add(ident)
            model = self._solve(before, step) or (self._solve([], step) if before else None)
            if model:
                self.solved += 1
                out.append({**choices, **{key: value(v) for key, v in model.items()}})
        return out

    def _solve(self, before: list[Step], step: Step) -> dict | None:
        try:
            import z3
        except ImportError:  # the `equivalence` extra installs it; without it, nothing is solved for
            self.attempts = MAX_ATTEMPTS
            return None

        self.attempts += 1
        variables: dict[str, object] = {}
        try:
            wanted = [holds(s.test, s.outcome, variables) for s in before]
            wanted.append(holds(step.test, not step.outcome, variables))
        except Unsupported:
            return None
        solver = z3.Solver()
        solver.set("timeout", TIMEOUT_MS)
        solver.add(*wanted)
        for v in variables.values():
            if v.sort() == z3.IntSort():
                solver.add(v <= BOUND, v >= -BOUND)
        if solver.check() != z3.sat:
            return None
        model = solver.model()
        out = {}
        for key, v in variables.items():
            got = model.eval(v, model_completion=False)
            if z3.is_int_value(got):
                out[key] = got.as_long()
            elif z3.is_rational_value(got):
                out[key] = float(got.as_fraction())
        return out


def identity(step: Step) -> tuple:
    op, a, b = step.test
    return step.site, op, shown(a), shown(b)


def holds(test: tuple, outcome: bool, variables: dict):
    """The z3 formula saying the comparison `test` gives `outcome`."""
    op, a, b = test
    if not outcome:
        op = FLIP[op]
    left, right = term(a, variables), term(b, variables)
    left, right = _same_sort(left, right)
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right,
            "==": left == right, "!=": left != right}[op]


def term(expr: tuple, variables: dict):
    import z3

    tag = expr[0]
    if tag == "var":
        key = expr[1]
        if key not in variables:
            variables[key] = z3.Int(key) if expr[2] == "int" else z3.Real(key)
        return variables[key]
    if tag == "const":
        v = expr[1]
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                raise Unsupported(v)
            return z3.RealVal(v)
        return z3.IntVal(int(v))
    if tag == "neg":
        return -term(expr[1], variables)
    if tag == "abs":
        inner = term(expr[1], variables)
        return z3.If(inner >= 0, inner, -inner)
    left, right = _same_sort(term(expr[1], variables), term(expr[2], variables))
    if tag == "+":
        return left + right
    if tag == "-":
        return left - right
    if tag == "*":
        return left * right
    if tag == "/":
        return z3.ToReal(left) / z3.ToReal(right) if kind_of(expr[1]) == "int" == kind_of(expr[2]) else left / right
    if tag == "//":
        return left / right if left.sort() == z3.IntSort() else z3.ToInt(left / right)
    if tag == "%":
        if left.sort() != z3.IntSort():
            raise Unsupported(tag)
        return left % right
    raise Unsupported(tag)


def _same_sort(left, right):
    import z3

    if left.sort() == right.sort():
        return left, right
    return (z3.ToReal(left) if left.sort() == z3.IntSort() else left,
            z3.ToReal(right) if right.sort() == z3.IntSort() else right)
