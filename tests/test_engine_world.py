"""The generic engine's pieces: the world and its stand-ins, the exploration, the comparison rules,
branch coverage of loops / try / assert."""

from __future__ import annotations

import ast

import pytest

from equivalence.engine.judge.compare import DEFERRED, EAGER, EQUAL, classify, deferred_trace
from equivalence.engine.run.coverage import BranchTracer
from equivalence.engine.run.explore import explore, size
from equivalence.engine.load.version import Caller
from equivalence.engine.run.observe import Observation
from equivalence.engine.world.standins import CURRENT, Environ, StandIn
from equivalence.engine.world.world import key_of
from equivalence.engine.world.world import ABSENT, NONE, OPAQUE, Domains, World, canon, seq, value


@pytest.fixture
def world():
    w = World(Domains(), {}, frozenset({"maybe"}), (("all", "a|b"), (8,), ()))
    CURRENT.append(w)
    yield w
    CURRENT.pop()


# --- stand-ins -----------------------------------------------------------------------------


def test_attributes_calls_and_items_are_child_keys_recorded_as_events(world):
    obj = world.value("self.model_config")
    assert key_of(obj.hf_config.quantization_config) == "self.model_config.hf_config.quantization_config"
    got = obj.hf_config.quantization_config.get("weight_block_size", None)
    assert key_of(got) == "self.model_config.hf_config.quantization_config.get('weight_block_size', None)"
    assert key_of(got[0]) == f"{key_of(got)}[0]"
    assert world.events == [("call", "self.model_config.hf_config.quantization_config.get", ("weight_block_size", None), ())]
    assert obj.hf_config is obj.hf_config  # one object per key: `is` works
    assert repr(obj) == f"{obj}" == "<self.model_config>"


def test_writes_are_events_and_read_back(world):
    obj = world.value("self.server_args")
    obj.kv_cache_dtype = "fp8"
    assert obj.kv_cache_dtype == "fp8"
    assert world.events == [("set", "self.server_args.kv_cache_dtype", "fp8")]


@pytest.mark.parametrize("use, kind, options", [
    (lambda s: s + 1, TypeError, [value(1), value(2), value(0), value(3), value(8), value(9), value(7)]),
    (lambda s: s <= 5, TypeError, [value(1), value(2), value(0), value(3), value(8), value(9), value(7),
                                   value(5), value(6), value(4)]),
    (len, TypeError, [seq(1), seq(0), seq(2), seq(3)]),
    (lambda s: [1, 2][s], TypeError, [value(1), value(2), value(0), value(3), value(8), value(9), value(7)]),
], ids=["arithmetic", "ordering", "len", "index"])
def test_a_use_only_a_value_serves_fails_as_for_an_object_and_demands_that_kind(world, use, kind, options):
    key = "sglang.srt.utils.get_cpu_ids_by_node()"
    with pytest.raises(kind):
        use(world.value(key))
    assert world.domains.options[key] == [OPAQUE, NONE, *options]
    assert world.domains.take_grown() == [key]
    assert world.domains.options[key][0] == options[0]  # the next runs get further


def test_comparisons_and_truth_add_the_values_that_take_each_way(world):
    s = world.value("self.mode")
    assert s != "auto" and bool(s)
    assert world.domains.options["self.mode"] == [OPAQUE, NONE, value("auto"), value("autox"), value("AUTO"),
                                                  value(""), value(False), value(True)]
    assert world.domains.take_grown() == ["self.mode"] and world.domains.options["self.mode"][0] == OPAQUE


def test_a_split_asks_for_a_string_holding_the_separator(world):
    world.value("self.binds").split("|")
    assert value("a|b") in world.domains.options["self.binds"]


def test_absent_only_where_the_code_allows_it(world):
    obj = world.value("self.config")
    assert ABSENT in world.default_options("self.config.maybe")
    assert ABSENT not in world.default_options("self.config.other")
    world.config["self.config.maybe"] = ABSENT
    assert getattr(obj, "maybe", "default") == "default"


def test_environment_variables_are_absent_by_default_and_take_the_code_strings(world):
    env = Environ()
    assert env.get("X", "all") == "all" and "X" not in env
    assert world.domains.options["env:X"] == [ABSENT, value("all"), value("a|b")]
    world.config["env:Y"] = value("a|b")
    assert env["Y"] == "a|b"


def test_canon_is_the_same_in_every_run_and_version(world):
    obj = world.value("self.x")
    assert canon([obj, {"k": (1, None)}]) == ("<self.x>", ("dict", ("k", (1, None))))
    assert canon(object()) == "<object>"


def test_isinstance_against_a_stand_in_class_is_a_choice(world):
    cls = world.value("sglang.srt.layers.moe.topk.TopK")
    assert isinstance(3, cls) is False
    world.config["isinstance(3, sglang.srt.layers.moe.topk.TopK)"] = value(True)
    world.objects.clear()
    assert isinstance(3, world.value("sglang.srt.layers.moe.topk.TopK")) is True


# --- exploration ---------------------------------------------------------------------------


def _runner(code):
    """A `run` for explore(): evaluates `code(world)` in a fresh world per configuration."""
    domains = Domains()
    seen = {}  # the configuration (every key read) -> what the code returned or raised

    def run(config, seed=None):
        w = World(domains, config, frozenset(), ((), (), ()))
        CURRENT.append(w)
        try:
            result = code(w)
        except Exception as e:
            result = type(e).__name__
        finally:
            CURRENT.pop()
        seen[frozenset(w.read.items())] = result
        return w.read, w.read, w.touched

    return run, domains, seen


def test_exploration_reaches_a_path_that_needs_several_values():
    def code(w):
        a, b = w.value("a"), w.value("b")
        if a % b == 0 and len(w.value("c")) == 2:
            return "deep"
        return "shallow"

    run, domains, seen = _runner(code)
    explored = explore(run, domains, [{}], 500)
    assert {"deep", "shallow", "TypeError"} <= set(seen.values())
    assert not explored.budget_reached
    deep = [c for c in explored.configs if seen[frozenset(c.items())] == "deep"]
    assert min(size(c, domains.options)[0] for c in deep) == 1  # a and b became 1 by default; c is a list of 2


def test_an_input_first_read_in_a_run_is_varied_before_older_ones():
    """`remote(NAME)` is a new key each time `name` takes a value: its variations on top of the
    run that first read it go before the many variations still queued of the numbers."""
    def code(w):
        name = w.value("name")
        holds = ":" in name
        for i in range(30):
            w.value(f"n{i}") == i  # noqa: B015 (each n_i gets options to vary)
        return "deep" if holds and not w.value(f"remote({name!r})") else "shallow"

    run, domains, seen = _runner(code)
    explore(run, domains, [{}], 200)  # (before the numbers: 124 runs; after them: 353)
    assert "deep" in seen.values()


def test_exploration_stops_at_the_budget():
    run, domains, _ = _runner(lambda w: [w.value(f"k{i}") + 0 for i in range(6)])
    explored = explore(run, domains, [{}], 20)
    assert explored.budget_reached and len(explored.configs) == 21  # the seed, then 20 more


# --- comparison rules ----------------------------------------------------------------------


def obs(events, exception=None, state=(), returned=None):
    return Observation(tuple(events), exception, returned, tuple(state))


SET = ("set", "self.cpu", 3)
LOG = ("log", "WARNING", "bound 3")
CALLER = Caller(applied={("set", "self.cpu")}, eager={"self.model", "self.tp_rank"},
                eager_calls={"self.spec.is_dflash"})


def test_rules():
    assert classify(obs([SET, LOG], state=[("cpu", 3)]), obs([SET, LOG], state=[("cpu", 3)]), CALLER, {}) == EQUAL
    assert classify(obs([SET, LOG], state=[("cpu", 3)]), obs([LOG, SET], state=[("cpu", 3)]), CALLER, {}) == DEFERRED
    err = ("KeyError", "1", None)
    assert classify(obs([SET], err, [("cpu", 3)]), obs([], err), CALLER, {}) == DEFERRED
    other = ("set", "self.other", 1)
    assert classify(obs([other, LOG]), obs([LOG, other]), CALLER, {}) == "different-effect-order"
    assert classify(obs([SET]), obs([("set", "self.cpu", 4)]), CALLER, {}) == "different-writes"
    assert classify(obs([LOG]), obs([("log", "WARNING", "x")]), CALLER, {}) == "different-logs"
    assert classify(obs([]), obs([], returned=1), CALLER, {}) == "different-return"
    assert classify(obs([]), obs([], err), CALLER, {}) == "different-outcome"


def test_eager_reads_and_calls_are_classified_only_up_front():
    missing = ("AttributeError", "no model", "model")
    assert classify(obs([LOG]), obs([], missing), CALLER, {"self.model": ABSENT}) == EAGER
    assert classify(obs([LOG]), obs([], missing), CALLER, {}) == "different-outcome"  # not absent
    assert classify(obs([LOG]), obs([LOG], missing), CALLER, {"self.model": ABSENT}) == "different-outcome"  # after an effect
    call = ("call", "self.spec.is_dflash", (), ())
    assert classify(obs([LOG]), obs([call, LOG]), CALLER, {}) == EAGER
    assert classify(obs([LOG]), obs([("call", "self.other", (), ()), LOG]), CALLER, {}) == "different-calls"


def test_deferred_trace_collapses_repeated_writes_at_the_first_place():
    events = (("set", "self.cpu", 1), LOG, ("set", "self.cpu", 2))
    assert deferred_trace(events, None, {("set", "self.cpu")}) == (LOG, ("set", "self.cpu", 2))


# --- branch coverage -----------------------------------------------------------------------

SOURCE = '''
def f(xs, n):
    total = 0
    for x in xs:
        total += x
    while n > 5:
        n -= 1
    try:
        total = total // n
    except ZeroDivisionError:
        total = -1
    assert total < 10, "too big"
    return total
'''


def test_loops_handlers_and_asserts_are_branches():
    tree = ast.parse(SOURCE)
    namespace = {}
    exec(compile(tree, "f.py", "exec"), namespace)
    f = namespace["f"]
    tracer = BranchTracer({f.__code__: tree.body[0]})
    with tracer:
        f([], 0)
    labels = {b.label: b.hit for b in tracer.coverage().branches}
    assert labels == {"for: body entered": False, "for: body not entered": True, "while: body entered": False,
                      "while: body not entered": True, "except ZeroDivisionError: handler entered": True,
                      "try: no handler entered": False, "assert holds": True, "assert fails": False}
    with tracer:
        f([1], 7)
        with pytest.raises(AssertionError):
            f([20], 1)
    assert tracer.done()


def test_a_try_whose_body_always_raises_misses_its_completion():
    """An always-failing optional import: the handler ran, what follows the try never did."""
    source = "def f():\n    try:\n        import no_such_module_here\n    except ImportError:\n        return 0\n    return 1\n"
    tree = ast.parse(source)
    namespace = {}
    exec(compile(tree, "g.py", "exec"), namespace)
    tracer = BranchTracer({namespace["f"].__code__: tree.body[0]})
    with tracer:
        namespace["f"]()
    labels = {b.label: b.hit for b in tracer.coverage().branches}
    assert labels == {"except ImportError: handler entered": True, "try: no handler entered": False}
    assert not tracer.done()


def _traced(source: str, *calls) -> BranchTracer:
    tree = ast.parse(source)
    namespace = {"DEBUG": False}
    exec(compile(tree, "h.py", "exec"), namespace)
    tracer = BranchTracer({namespace["f"].__code__: tree.body[-1]},
                          constants={namespace["f"].__code__: {"DEBUG": False}})
    with tracer:
        for args in calls:
            try:
                namespace["f"](*args)
            except AssertionError:
                pass
    return tracer


def test_a_branch_no_input_can_take_is_unreachable_with_why():
    """Tests of constants only (a literal, a module-level name bound once to a literal), a literal
    loop's length, and an elif chain the assert before it decides: unreachable, not missed."""
    source = ('def f(kind, n):\n'
              '    if DEBUG:\n        n += 1\n'
              '    for x in (1, 2):\n        n += x\n'
              '    assert kind in ("a", "b"), kind\n'
              '    if kind == "a":\n        return n\n'
              '    elif kind == "b":\n        return -n\n')
    tracer = _traced(source, ("a", 0), ("b", 0), ("c", 0))
    cov = tracer.coverage()
    unreachable = {b.label: b.unreachable for b in cov.branches if b.unreachable}
    assert set(unreachable) == {"if true", "for: body not entered", "elif false (skips body)"}
    assert "`DEBUG` is always false" in unreachable["if true"]
    assert "fixed by the source at 2 item(s)" in unreachable["for: body not entered"]
    assert "`kind` is one of 'a', 'b'" in unreachable["elif false (skips body)"]
    assert cov.complete and tracer.done() and cov.to_json()["missed"] == []


def test_a_failing_assert_does_not_count_its_last_operand_as_run():
    """`assert a and b` with a false: the raise sits at b's position, which never ran."""
    source = 'def f(a, b):\n    assert a and b, "no"\n'
    labels = {b.label: b.hit for b in _traced(source, (False, True)).coverage().branches}
    assert labels["and: operand 1 short-circuits"] and not labels["and: operand 1 continues"]


class _ComparesItsValue:
    """An object whose == compares what it holds (a dataclass holding an input, say)."""

    def __init__(self, held):
        self.held = held

    def __eq__(self, other):
        return self.held == other

    __hash__ = object.__hash__


def test_the_worlds_own_comparisons_demand_nothing(world):
    # `x == Wrapper(x)` made Wrapper an option of x: comparing a later option with it ran x == option
    # inside the world's bookkeeping, which demanded again, without end (0.5.12's Scheduler)
    x = world.value("self.x")
    assert (x == _ComparesItsValue(x)) is False
    assert (x == 7) is False
    assert world.domains.options["self.x"][-3:] == [value(7), value(8), value(6)]
    taken = [o[1] for o in world.domains.options["self.x"] if len(o) > 1]
    assert not any(o is True for o in taken)  # the wrapper's == ran the world's, not the code's


def test_an_option_holds_no_stand_in(world):
    a = world.value("self.a")
    assert (a == (world.value("self.b"), 1)) is False
    assert not any("self.b" in repr(o) for o in world.domains.options["self.a"])


def test_a_sized_stand_in_reads_as_its_key_in_observations():
    # a sized stand-in (`<truthy, 0 items>`) was kept as the object in what a run observed: the two
    # versions' worlds made two of them, which compare by identity, a false different-return
    from equivalence.engine.world.world import sized

    made = []
    for _ in range(2):
        domains = Domains()
        domains.options["self.reqs"] = [sized(0)]
        w = World(domains, {}, frozenset(), (("all",), (8,), ()))
        CURRENT.append(w)
        try:
            made.append(w.value("self.reqs"))
        finally:
            CURRENT.pop()
    assert made[0] is not made[1] and len(made[0]) == 0
    assert canon(made[0]) == canon(made[1]) == "<self.reqs>"
    assert key_of(made[0]) == "self.reqs"


def test_a_stand_in_compared_with_a_traced_number_takes_plain_options(world):
    """`self.initial_size == self.tp_size`, tp_size a traced 1: the stand-in's new options are
    plain ints, so that the domains copy (each mutant's run starts from a copy) and compare
    without reaching a world."""
    import copy

    world.domains.options["self.tp_size"] = [value(1)]
    tp_size = world.value("self.tp_size")
    assert type(tp_size) is not int  # traced
    _ = world.value("self.initial_size") == tp_size
    options = world.domains.options["self.initial_size"]
    assert value(1) in options and all(type(o[1]) in (int, type(None)) for o in options if o[0] == "value")
    assert copy.deepcopy(world.domains).options == world.domains.options
