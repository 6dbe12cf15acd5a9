"""The ints the world offers a number input: those the code compares and computes with, and the
bounds of its `range(...)`s (0.5.18 `ServerArgs._generate_decode_cuda_graph_batch_sizes`: its
sizes `range(272, 512, 16)` are kept only where `<= max_bs`, so `max_bs` must come near 272 and
512 for a changed bound to show; varied over 0-25 only, three such mutants survived)."""

from __future__ import annotations

import ast
import textwrap

from equivalence.engine.load.inputs import number_pool

CODE = textwrap.dedent("""\
    def sizes(max_bs, n):
        out = [1, 2] + list(range(16, 257, 8)) + list(range(272, 512, 16)) + list(range(n))
        return [bs for bs in out if bs <= max_bs + 1] if n > 3 else out
    """)


def test_comparisons_arithmetic_and_range_bounds():
    assert set(number_pool([ast.parse(CODE)])) == {16, 257, 272, 512, 1, 3}


def test_a_range_step_and_a_keyword_call_add_nothing():
    assert set(number_pool([ast.parse("range(2, 9, 7)\nrange(*bounds)\nrange(4, stop=5)\n")])) == {2, 9}
