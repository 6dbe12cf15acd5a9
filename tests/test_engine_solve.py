"""The path of a run over traced numbers (world/symbolic.py) and the configurations solved for its
comparisons' other ways (run/solve.py): what the exploration cannot find by varying one key at a
time, z3 finds, and the exploration runs it."""

from __future__ import annotations

import json

from equivalence.engine.run import solve
from equivalence.engine.run.solve import Concolic, identity
from equivalence.engine.world import standins
from equivalence.engine.world.symbolic import shown
from equivalence.engine.world.world import Domains, World, value
from tests.test_engine_reach import FIXTURE, extracted


def world_of(config: dict) -> World:
    w = World(Domains(), config, frozenset())
    w.namespaces = frozenset({id(globals())})  # this module plays the code under test
    return w


def run(config: dict, code) -> World:
    w = world_of(config)
    standins.CURRENT.append(w)
    try:
        code(w)
    finally:
        standins.CURRENT.pop()
    return w


def mesh(w: World) -> str:
    a, b = w.value("a"), w.value("b")
    if a * b == 96 and a > b > 2:
        return "mesh"
    return "flat"


def test_arithmetic_on_traced_numbers_is_followed_into_the_path():
    def code(w):
        n = w.value("n")
        total = sum([n, n])  # int 0 + traced: the traced number's reflected add
        assert total // 2 == n and not (n % 2 == 0 and total > 100)
        return bool(n - 3)

    w = run({"n": value(3)}, code)
    steps = [(op, shown(a), shown(b), outcome) for _, (op, a, b), outcome in w.path]
    # (n, a subclass of the derived number, is asked first: `total // 2 == n` is `n == total // 2`)
    assert steps == [("==", "n", "(((0 + n) + n) // 2)", True), ("==", "(n % 2)", "0", False),
                     ("!=", "(n - 3)", "0", False)]


def test_comparisons_outside_the_code_under_test_are_not_steps():
    w = world_of({"n": value(3)})
    standins.CURRENT.append(w)
    try:
        n = w.value("n")
        w.namespaces = frozenset()
        assert n + 1 > 2
    finally:
        standins.CURRENT.pop()
    assert w.path == []


def test_the_other_way_of_a_conjunction_is_solved_and_reached():
    concolic = Concolic()
    first = run({"a": value(1), "b": value(1)}, mesh)
    concolic.feed({"a": value(1), "b": value(1)}, [first.path])
    proposed = concolic.proposals()
    assert concolic.solved == len(proposed) == 1
    (config,) = proposed
    assert run(config, mesh).path[0].outcome is True  # a * b == 96 now holds
    assert concolic.proposals() == []  # one attempt per comparison
    again = Concolic()
    for c in ({"a": value(1), "b": value(1)}, config):
        again.feed(c, [run(c, mesh).path])
    seen = {ident: set(outcomes) for ident, outcomes in again.seen.items()}
    left = again.proposals()  # `a * b == 96` was seen both ways: what is left is the rest of the chain
    assert left and len(left) == again.solved
    for c in left:  # each reaches an outcome of a comparison that no run had
        assert any(step.outcome not in seen.get(identity(step), set()) for step in run(c, mesh).path)


def test_without_the_solver_the_conjunction_stays_unproven(tmp_path, monkeypatch):
    """mesh_shape's `a * b == 96 and a > b > 2` is proven only by the solver's configuration: with
    no solver call allowed, the same pair is inconclusive (so the proof is the solver's work)."""
    from equivalence.cli import main

    after = extracted(tmp_path / "after", "mesh_shape")
    monkeypatch.setattr(solve, "MAX_ATTEMPTS", 0)
    out = tmp_path / "r.json"
    code = main(["--method", "Probe.mesh_shape", str(FIXTURE), str(after), "--json", str(out)])
    report = json.loads(out.read_text())
    assert (code, report["verdict"]) == (2, "inconclusive")
    missed = report["pairs"][0]["coverage"]["after"]["missed"]
    assert missed and all("line" in m for m in missed)


def test_a_proposal_the_exploration_ran_before_ends_it_cleanly():
    """The solver may propose a configuration already run (or queued): nothing is queued again, and
    the exploration ends (it popped an empty queue: IndexError, on the fixture's page_ok)."""
    from equivalence.engine.run.explore import explore

    ran = []

    def run(config, identity):
        ran.append(config)
        return config, {"k": config.get("k", value(0))}, set()

    proposals = iter([[{"k": value(0)}], [{"k": value(0)}], []])
    explored = explore(run, Domains({"k": [value(0)]}), [{}], 50, propose=lambda: next(proposals, []))
    assert not explored.budget_reached and len(ran) >= 1


def test_an_exploration_that_reaches_no_new_code_stops_after_saturate_runs():
    """`saturate`: a component's sequence shape stops once that many runs in a row reached no new
    code and the solver has nothing to propose; without it, the budget ends it."""
    from equivalence.engine.run.explore import explore

    def run(config, identity):
        return config, {f"k{i}": config.get(f"k{i}", value(0)) for i in range(4)}, set()

    domains = Domains({f"k{i}": [value(n) for n in range(8)] for i in range(4)})
    stopped = explore(run, domains, [{}], 400, novel=lambda: False, propose=lambda: [], saturate=30)
    assert stopped.saturated and not stopped.budget_reached and len(stopped.configs) == 30  # the seed counts
    full = explore(run, Domains({k: list(v) for k, v in domains.options.items()}), [{}], 400, novel=lambda: False,
                   propose=lambda: [])
    assert not full.saturated and len(full.configs) > 30
