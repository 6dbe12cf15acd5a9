"""A local the function binds once to an expression of literals is a constant of the source: a
test on it always goes one way, and its other way is unreachable, not "never led this way"
(0.5.18 `ServerArgs.adjust_mem_fraction_for_vlm`: `... if baseline_complexity_score > 0 else 1.0`
with `baseline_complexity_score = baseline_vit_layers * (baseline_vit_hidden_size**2)`, both
literals: inconclusive 3/4, now equivalent 3/3 with the fourth unreachable)."""

from __future__ import annotations

import ast
import textwrap

from equivalence.engine.load.literals import fixed_names
from equivalence.engine.run.coverage import BranchTracer

SOURCE = textwrap.dedent("""\
    LIMIT = 8


    def unit(x, items):
        layers = 24
        score = layers * (1024**2) // LIMIT
        twice = 1
        twice = 2
        loose = x + 1
        for each in items:
            pass
        ratio = x / score if score > 0 else 1.0
        return ratio if twice > 1 else loose
    """)


def test_locals_bound_once_to_literals_and_fixed_names_are_fixed():
    module = ast.parse(SOURCE)
    assert fixed_names(module, module.body[1]) == {"LIMIT": 8, "layers": 24, "score": 24 * 1024 ** 2 // 8, "range": range}


def test_a_name_bound_in_other_ways_is_not_fixed():
    module = ast.parse(textwrap.dedent("""\
        def unit(n):
            import os
            a = 1
            del a
            b = 2
            for b in n:
                pass
            try:
                c = 3
            except ValueError as c:
                pass
            return n
        """))
    assert fixed_names(module, module.body[0]) == {"range": range}  # the builtin, which nothing binds


def test_the_other_way_of_a_test_on_local_constants_is_unreachable():
    namespace: dict = {}
    exec(compile(SOURCE, "<constants>", "exec"), namespace)
    module = ast.parse(SOURCE)
    fn = namespace["unit"]
    tracer = BranchTracer({fn.__code__: module.body[1]}, constants={fn.__code__: fixed_names(module, module.body[1])})
    with tracer:
        fn(3, [1])
        fn(4, [])
    by_label = {b.where(): b for b in tracer.coverage().branches}
    assert "always true" in by_label["line 12: conditional expression false"].unreachable
    assert not by_label["line 13: conditional expression false"].unreachable  # `twice` is bound twice


def test_a_local_table_the_function_builds_from_literals_gives_its_members():
    """0.5.21 Scheduler.set_internal_state: `args_allow_update = set([...])`, then `k not in
    args_allow_update` for each key of the request's dict: the members are the strings the code
    tests against (a dict keyed by them is offered), and the keys of a table (a stand-in looked up
    in it); a local bound twice is no table."""
    import ast

    from equivalence.engine.load.literals import key_literals, string_literals

    src = ("def f(d, k):\n    allow = set(['pp', 'spec'])\n    order = ('x', 'y')\n"
           "    for key in d.items():\n        if key not in allow or k in order:\n            return False\n"
           "    again = {'z'}\n    again = {'w'}\n    return k in again\n")
    module = ast.parse(src)
    assert string_literals([module.body[0]], module) == ["pp", "spec", "x", "y"]
    assert key_literals([module.body[0]], module) == ["pp", "spec", "z", "w"]
