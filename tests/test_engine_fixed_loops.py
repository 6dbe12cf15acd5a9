"""A loop whose length the source fixes (`for i in range(128)`, a literal display, a constant
string) always enters its body, or never: the other way is unreachable, not a branch "never led
this way" that keeps a correct extraction inconclusive (0.5.19 `predict_next_chunk_size` loops
over `range(128)`). Where the module or the unit binds `range` itself, or the arguments are not
constants, nothing is fixed."""

from __future__ import annotations

import ast
import textwrap

import pytest

from equivalence.engine.load.literals import fixed_names
from equivalence.engine.run.coverage import BranchTracer

SOURCE = textwrap.dedent("""\
    STEPS = 4


    def unit(k, n):
        s = 0
        for i in range(STEPS * 2):
            s += i * k
        for j in range(0, -3):
            s -= j
        for c in "ab":
            s += 1
        for m in range(n):
            s += m
        return s
    """)


def _unreachable(source: str, calls) -> dict[str, str]:
    namespace: dict = {}
    exec(compile(source, "<loops>", "exec"), namespace)
    module = ast.parse(source)
    unit = next(s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "unit")
    fn = namespace["unit"]
    tracer = BranchTracer({fn.__code__: unit}, constants={fn.__code__: fixed_names(module, unit)})
    with tracer:
        for args in calls:
            fn(*args)
    return {b.where(): b.unreachable for b in tracer.coverage().branches if b.unreachable}


def test_a_loop_over_a_fixed_range_or_string_goes_one_way():
    assert _unreachable(SOURCE, [(1, 2), (2, 0)]) == {
        "line 6: for: body not entered": "it iterates `range(STEPS * 2)`, fixed by the source at 8 item(s)",
        "line 8: for: body entered": "it iterates `range(0, -3)`, fixed by the source at 0 item(s)",
        "line 10: for: body not entered": "it iterates `'ab'`, fixed by the source at 2 item(s)",
    }


@pytest.mark.parametrize("rebinding", ["from math import *\n", "range = lambda *a: []\n", "def range(*a):\n    return []\n"])
def test_range_bound_by_the_module_is_not_the_builtin(rebinding):
    assert _unreachable(rebinding + SOURCE, [(1, 2)]) == {
        f"line {10 + rebinding.count(chr(10))}: for: body not entered": "it iterates `'ab'`, fixed by the source at 2 item(s)"}


def test_range_bound_by_the_unit_is_not_the_builtin():
    source = SOURCE.replace("    s = 0\n", "    s = 0\n    range = lambda *a: [k]\n")
    assert "line 7: for: body not entered" not in _unreachable(source, [(1, 2)])


GROWN = textwrap.dedent("""\
    def unit(k, n):
        counts = [k]
        if n:
            counts.extend(range(n))
        total = 0
        for c in counts:
            total += c
        return total
    """)


def test_a_loop_over_a_list_the_code_only_grows_always_enters():
    """0.5.19 `max_decode_logits_rows`: `counts = [k]`, then only `.extend`: never empty."""
    assert _unreachable(GROWN, [(1, 2), (2, 0)]) == {
        "line 6: for: body not entered": "it iterates `counts`, bound at line 2 to a list of 1 item(s) that the "
                                         "code only grows"}


@pytest.mark.parametrize("edit", [
    ("counts.extend(range(n))", "counts.clear()"),  # shrinks it
    ("counts.extend(range(n))", "counts = []"),  # binds it again
    ("counts.extend(range(n))", "helper(counts)"),  # hands it on
    ("counts = [k]", "counts = [*range(k)]"),  # a display of unknown length
    ("total = 0", "total = 0 * len([x for x in counts])"),  # a nested scope sees it
])
def test_a_list_shrunk_rebound_or_handed_on_may_be_empty(edit):
    source = "def helper(x):\n    x.clear()\n\n\n" + GROWN.replace(*edit)
    assert not any("counts" in why for why in _unreachable(source, [(1, 2)]).values())


def test_a_loop_after_leaving_on_a_falsy_and_on_a_non_container_value_is_always_entered():
    """0.5.19 `_validate_token_ids_logprob`: `if not ids: return`, `if not isinstance(ids, list): raise`,
    then `for t in ids`: the loop's "not entered" is unreachable, with why; rebinding `ids` in
    between, or a type that is no builtin container, leaves it reachable."""
    import ast
    import textwrap

    from equivalence.engine.run.coverage import _guarded_non_empty

    def why(src: str) -> str:
        fn = ast.parse(textwrap.dedent(src)).body[0]
        return _guarded_non_empty(fn, fn.body[-1])

    guarded = """\
        def f(obj):
            ids = obj.ids
            if not ids:
                return
            if not isinstance(ids, list):
                raise ValueError(ids)
            for t in ids:
                pass
        """
    assert "`ids` is non-empty there" in why(guarded) and "line 3" in why(guarded)
    assert why(guarded.replace("            if not isinstance", "            ids = again()\n            if not isinstance")) == ""
    assert why(guarded.replace("(ids, list)", "(ids, (list, Custom))")) == ""
    assert why(guarded.replace("                return\n", "                log()\n")) == ""


TABLE = textwrap.dedent("""\
    def unit(k, n):
        table = {"A": "1", "B": k}
        if n:
            table["C"] = n
        out = []
        for key, value in table.items():
            out.append(table.get(key))
        return out
    """)


def test_a_loop_over_a_dict_display_the_code_only_grows_always_enters():
    """0.5.17 `_handle_crash_dump_env`: `for key, value in _CUDA_COREDUMP_DEFAULTS.items()` over a
    local dict display of 6 items: its 'not entered' is unreachable, with why."""
    assert _unreachable(TABLE, [(1, 2), (2, 0)]) == {
        "line 6: for: body not entered": "it iterates `table`, bound at line 2 to a dict of 2 item(s) that the "
                                         "code only grows"}


@pytest.mark.parametrize("edit", [
    ('table["C"] = n', 'table.pop("A")'),  # shrinks it
    ('table["C"] = n', 'del table["A"]'),  # shrinks it
    ('table["C"] = n', "helper(table)"),  # hands it on
    ('{"A": "1", "B": k}', '{**other, "B": k}'),  # a display of unknown length
    ("out = []", "out = []\n    table = dict(other)"),  # binds it again
])
def test_a_dict_shrunk_or_handed_on_may_be_empty(edit):
    source = "def helper(x):\n    x.clear()\n\n\nother = {}\n\n\n" + TABLE.replace(*edit)
    assert not any("table" in why for why in _unreachable(source, [(1, 2)]).values())
