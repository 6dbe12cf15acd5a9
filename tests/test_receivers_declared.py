"""What the code declares a receiver is, beyond a method's own class: a mixin's annotated `self`
(`def loop(self: "ModelRunner")`) is the class it is written for; a name only `import X` binds is
a module and `set()` a builtin set, neither of which can be the owner, so extract_component
rewrites the mixin's call and lists none of them as ambiguous."""

from __future__ import annotations

from textwrap import dedent

from codemods.extract_component import refactor, write_plan
from tests.component_trees import RUNNER, copy_tree, spec

MIXIN = dedent('''\
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from sglang.srt.model_executor.model_runner import ModelRunner


    class RunnerLoopMixin:
        def resend_all(self: "ModelRunner", ports):
            return self.send_weights(ports, "all")
    ''')

NOT_OWNERS = dedent('''\
    import pickle


    def describe(name):
        seen = set()
        return pickle.get_weights_by_name, seen.get_weights_by_name
    ''')


def test_a_mixin_method_annotating_self_is_a_caller_of_the_owner(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: [
        ("from sglang.srt.model_loader.loader import DefaultModelLoader\n",
         "from sglang.srt.model_executor.runner_loop_mixin import RunnerLoopMixin\n"
         "from sglang.srt.model_loader.loader import DefaultModelLoader\n"),
        ("class ModelRunner:\n", "class ModelRunner(RunnerLoopMixin):\n")]},
        files={"sglang/srt/model_executor/runner_loop_mixin.py": MIXIN})
    write_plan(refactor(root, spec()))  # before: refused, `self` taken for a RunnerLoopMixin, a base
    mixin = (root / "sglang/srt/model_executor/runner_loop_mixin.py").read_text()
    assert 'return self.weight_exporter.send_weights(ports, "all")' in mixin


def test_a_module_and_a_builtin_set_are_not_the_owner(tmp_path):
    root = copy_tree(tmp_path / "t", files={"sglang/srt/names.py": NOT_OWNERS})
    plan = refactor(root, spec())  # before: refused, "the code does not say what pickle is" (and seen)
    assert "sglang/srt/names.py" not in {p.relative_to(root).as_posix() for p in plan.changes}


THROUGH_TYPE = dedent('''\
    from sglang.srt.model_executor.model_runner import ModelRunner


    def weights_of(runner: ModelRunner, name):
        return type(runner).get_weights_by_name(runner, name)
    ''')


def test_type_of_an_instance_is_its_class_not_a_builtin_instance(tmp_path):
    # `type` and `super` are builtin classes, but calling them gives the owner's class (or its
    # methods' proxy): `type(runner).get_weights_by_name` reaches the moved method
    import pytest

    from codemods.core.errors import Conflicts

    root = copy_tree(tmp_path / "t", files={"sglang/srt/weights_of.py": THROUGH_TYPE})
    with pytest.raises(Conflicts) as refused:
        refactor(root, spec())
    assert "sglang/srt/weights_of.py:5" in str(refused.value)
