"""Branch coverage follows the code nested in a unit: a nested function, a lambda and a
comprehension run in frames of their own, and their branches were never hit (0.5.18
`ServerArgs._handle_modelscope_paths`, whose inner `_resolve_or_download` holds 16 of its 20
branches: 4/20 before, 11/20 now, the rest behind a `modelscope` import that fails here)."""

from __future__ import annotations

import ast
import textwrap

from equivalence.engine.run.coverage import BranchTracer

SOURCE = textwrap.dedent("""\
    def unit(paths, strict):
        def resolve(path):
            if path is None:
                return None
            return path.upper() if strict else path

        pick = lambda p: p if p else "-"
        return [resolve(p) if p != "skip" else pick(strict) for p in paths]
    """)


def _tracer():
    namespace: dict = {}
    exec(compile(SOURCE, "<nested>", "exec"), namespace)
    fn = namespace["unit"]
    node = ast.parse(SOURCE).body[0]
    return fn, BranchTracer({fn.__code__: node})


def test_the_branches_of_nested_code_are_hit_by_its_runs():
    fn, tracer = _tracer()
    with tracer:
        fn(["a", None, "skip"], True)
        fn(["a", "", "skip"], False)
    coverage = tracer.coverage()
    assert [b.where() for b in coverage.branches if not b.hit] == []
    assert len(coverage.branches) == 8 and not coverage.never_entered


def test_a_nested_branch_no_run_takes_stays_missed():
    fn, tracer = _tracer()
    with tracer:
        fn(["a"], True)
    missed = [b.where() for b in tracer.coverage().branches if not b.hit]
    assert "line 3: if true" in missed and "line 5: conditional expression false" in missed
    assert "line 5: conditional expression true" not in missed
