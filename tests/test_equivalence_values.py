"""Observed values compare as values (`equivalence.engine.world.values.same`): tensors by type,
dtype, device, shape and elements, numpy arrays by type, dtype, shape and `array_equal`, other
element-wise values by `.all()` of their `==`; a tensor is copied when observed. Every comparison
of observations goes through it: the method check's (compare.classify), the component check's,
an Observation's `==`."""

from __future__ import annotations

import numpy
import pytest
import torch

from equivalence.engine.run.observe import Observation
from equivalence.engine.world.values import Array, same
from equivalence.engine.world.world import canon


def _obs(returned=None, events=(), state=()):
    return Observation(tuple(events), None, canon(returned), tuple(state))


@pytest.mark.parametrize("a, b, equal", [
    (torch.zeros(0), torch.zeros(0), True),
    (torch.ones(3, dtype=torch.int32), torch.ones(3, dtype=torch.int32), True),
    (torch.ones(1, dtype=torch.int32), torch.ones(1, dtype=torch.int64), False),  # `==` says equal
    (torch.zeros(0), torch.zeros(0, dtype=torch.float64), False),
    (torch.ones(2, 1), torch.ones(1, 2), False),
    (torch.ones(2), torch.ones(2).to("meta"), False),
    (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), True),
    (torch.ones(2), torch.nn.Parameter(torch.ones(2)), False),
    (torch.ones(2), torch.tensor([1.0, 2.0]), False),
    (numpy.array([1, 2]), numpy.array([1, 2]), True),
    (numpy.array([1, 2]), numpy.array([1, 2], dtype=numpy.int8), False),
    (numpy.array([1.0, numpy.nan]), numpy.array([1.0, numpy.nan]), True),
    (numpy.array([[1, 2]]), numpy.array([1, 2]), False),
    (numpy.array(["a"]), numpy.array(["a"]), True),
    (float("nan"), float("nan"), True),
    ((1, [torch.zeros(0)]), (1, [torch.zeros(0)]), True),
    (1, 1.0, True),
])
def test_same_compares_values_as_their_kind_says(a, b, equal):
    assert same(canon(a), canon(b)) is equal
    assert (_obs(a) == _obs(b)) is equal  # an Observation's `==` is the same comparison
    assert same(_obs(events=[("set", "self.t", canon(a))]), _obs(events=[("set", "self.t", canon(b))])) is equal


def test_a_tuple_is_no_list_and_a_number_its_value():
    assert not same((1,), [1]) and same((1, 2.0), (1.0, 2)) and not same((1,), (1, 1))


def test_a_tensor_is_copied_when_observed():
    live = torch.ones(2)
    seen = canon(live)
    live.add_(1)
    assert isinstance(seen, Array) and same(seen, canon(torch.ones(2))) and not same(seen, canon(live))
    assert str(seen) == "tensor([1., 1.])"


class _Elementwise:
    """A value of a library the harness does not know whose `==` answers element by element."""

    shape = (2,)

    def __init__(self, *items):
        self.items = items

    def __eq__(self, other):
        return numpy.array([x == y for x, y in zip(self.items, other.items)])

    __hash__ = object.__hash__

    def __repr__(self):
        return f"_Elementwise{self.items}"


def test_an_unknown_elementwise_value_compares_by_all_of_its_answer():
    assert same(canon(_Elementwise(1, 2)), canon(_Elementwise(1, 2)))
    assert not same(canon(_Elementwise(1, 2)), canon(_Elementwise(1, 3)))


def test_the_method_checks_classification_tells_tensors_apart():
    """compare.classify (the method check and its mutants) on observations holding tensors: it
    raised on an empty tensor, and took a one-element int32 tensor for an int64 one."""
    from types import SimpleNamespace

    from equivalence.engine.judge.compare import classify

    caller = SimpleNamespace(eager_calls=set(), applied=set(), eager=set())
    assert classify(_obs(torch.zeros(0)), _obs(torch.zeros(0)), caller, {}) == "equal"
    assert classify(_obs(torch.ones(1, dtype=torch.int32)), _obs(torch.ones(1, dtype=torch.int64)), caller,
                    {}) == "different-return"
    written = lambda t: _obs(events=[("set", "self.mask", canon(t))])  # noqa: E731
    assert classify(written(torch.zeros(0)), written(torch.zeros(0, dtype=torch.int8)), caller,
                    {}) == "different-writes"


def test_the_component_checks_classification_tells_tensors_apart():
    from equivalence.component.check import classify

    def sequence(*returned):
        return Observation((), None, tuple((None, canon(r)) for r in returned), ())

    assert classify(sequence(torch.zeros(0), torch.ones(2)), sequence(torch.zeros(0), torch.ones(2))) == "equal"
    assert classify(sequence(torch.zeros(0)), sequence(torch.zeros(0, dtype=torch.int32))) == "different-return"
