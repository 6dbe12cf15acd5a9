"""A value the report writes (an event's argument, a returned object) whose repr fails once the run
has ended, as a torch module built of stand-ins does: written as its type, never a harness crash
(found on 0.5.19's GraniteMoeForCausalLM.load_weights: IndexError from the ended run's world)."""

from __future__ import annotations

from equivalence.engine.world.world import json_value


class ReprNeedsTheRun:
    def __repr__(self):
        raise IndexError("list index out of range")


def test_a_value_whose_repr_raises_is_written_as_its_type():
    assert json_value([1, ("a", ReprNeedsTheRun())]) == [1, ["a", "<ReprNeedsTheRun object>"]]


def test_plain_values_and_reprs_are_kept():
    assert json_value([None, 2.5, "x"]) == [None, 2.5, "x"]
    assert json_value({1}) == "{1}"


def test_a_bound_method_is_canonical_by_its_name_never_by_address():
    from equivalence.engine.world.world import canon

    class Owner:
        def load(self):
            return 1

    class Component:
        def load(self):
            return 1

    # the same method of the instance under test before and of its component after: alike
    assert canon(Owner().load) == canon(Component().load) == "<bound method load>"
    assert "0x" not in repr(canon([Owner().load]))
    assert canon(Owner().load) != canon(Owner().__init__)


def test_torch_modules_built_alike_are_the_same_value_and_differ_by_their_weights():
    import torch

    from equivalence.engine.world.values import same
    from equivalence.engine.world.world import canon

    def built(seed: int):
        torch.manual_seed(seed)
        return torch.nn.Linear(2, 3)

    assert same(canon(built(0)), canon(built(0)))  # two objects, the same module
    assert not same(canon(built(0)), canon(built(1)))  # other weights
    assert not same(canon(built(0)), canon(torch.nn.Linear(2, 4)))  # another shape
