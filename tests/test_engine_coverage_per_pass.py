"""A test in a loop is judged pass by pass: an `if` without `else` skips its body when one
evaluation of its test jumps past the body, even if another pass of the same call enters it (0.5.17 `ServerArgs._handle_crash_dump_env`: `if key not in
os.environ:` over six keys was "false never hit" unless all six were set at once). Never hit
when every evaluation enters, or when the test raised."""

from __future__ import annotations

import ast
import textwrap

from equivalence.engine.run.coverage import BranchTracer

SOURCE = textwrap.dedent("""\
    def unit(keys, env, flags):
        out = []
        for key in keys:
            if key not in env:
                env[key] = 1
            out.append(flags.get(key) or key)
        if flags:
            out.append(len(flags))
        return out
    """)


def _missed(*calls) -> list[str]:
    namespace: dict = {}
    exec(compile(SOURCE, "<per-pass>", "exec"), namespace)
    fn = namespace["unit"]
    tracer = BranchTracer({fn.__code__: ast.parse(SOURCE).body[0]})
    with tracer:
        for args in calls:
            try:
                fn(*args)
            except TypeError:
                pass
    return [b.where() for b in tracer.coverage().branches if not b.hit]


def test_one_pass_skipping_the_body_hits_false():
    missed = _missed((["a", "b"], {"a": 0}, {}))  # "a" is set, "b" is not
    assert "line 4: if false (skips body)" not in missed


def test_every_pass_entering_the_body_leaves_false_missed():
    missed = _missed((["a", "b"], {}, {"x": 0}))
    assert "line 4: if false (skips body)" in missed
    assert "line 6: or: operand 1 short-circuits" in missed  # (an operand is still judged per call)
    assert "line 4: if true" not in missed and "line 6: or: operand 1 continues" not in missed


def test_an_if_whose_body_always_runs_is_not_false():
    assert "line 7: if false (skips body)" in _missed((["a"], {}, {"x": 0}))  # its jump is placed on the whole `if`
    assert "line 7: if false (skips body)" not in _missed((["a"], {}, {}))


def test_a_test_that_raised_took_neither_way():
    missed = _missed((["a", ["unhashable"]], {}, {}))  # the second pass raises in `key not in env`
    assert "line 4: if false (skips body)" in missed
