"""A moved method whose `self` is annotated with the owner (`self: ModelRunner`, the mixins'
style, as in 0.5.15.post1's ModelRunnerKVCacheMixin) is annotated with the component it now
belongs to, as upstream's own components are (`def save_remote_model(self: WeightExporter, ...)`);
quoted when the target module evaluates its annotations."""

from __future__ import annotations

import ast

from codemods.extract_component import refactor, write_plan
from tests.component_trees import RUNNER, TARGET_FILE, copy_tree, spec

ANNOTATED = [("    def save_remote_model(self, url: str):", "    def save_remote_model(self: ModelRunner, url: str):")]


def _method(root, name):
    cls = next(s for s in ast.parse((root / TARGET_FILE).read_text()).body if isinstance(s, ast.ClassDef))
    return next(s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == name)


def test_self_typed_as_the_owner_is_typed_as_the_component(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: ANNOTATED})
    write_plan(refactor(root, spec()))
    assert ast.unparse(_method(root, "save_remote_model").args.args[0].annotation) == "WeightExporter"
    assert ast.unparse(_method(root, "send_weights").args.args[0]) == "self"
    assert "ModelRunner" not in (root / TARGET_FILE).read_text()


def test_quoted_in_a_target_module_that_evaluates_annotations(tmp_path):
    root = copy_tree(tmp_path / "t", {RUNNER: ANNOTATED}, {TARGET_FILE: "import logging\n\nlog = logging.getLogger()\n"})
    write_plan(refactor(root, spec()))
    annotation = _method(root, "save_remote_model").args.args[0].annotation
    assert isinstance(annotation, ast.Constant) and annotation.value == "WeightExporter"
    compile((root / TARGET_FILE).read_text(), TARGET_FILE, "exec")
