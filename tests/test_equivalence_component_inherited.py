"""`equivalence --component` where the original owner only inherits the moved methods (0.5.15.post1's
ModelRunner and its ModelRunnerKVCacheMixin): nothing to compare, exit 2, and the message says
that inherited methods do not count and what to compare against."""

from __future__ import annotations

from codemods.extract_component import refactor, write_plan
from equivalence.cli import main
from tests.component_trees import RUNNER, copy_tree, spec


def test_methods_the_owner_only_inherits_are_named_as_the_reason(tmp_path, capsys):
    after = copy_tree(tmp_path / "after")
    write_plan(refactor(after, spec()))
    before = copy_tree(tmp_path / "before", {RUNNER: [("class ModelRunner:", "class ModelRunnerBase:")]})
    (before / RUNNER).write_text((before / RUNNER).read_text() + "\n\nclass ModelRunner(ModelRunnerBase):\n    pass\n")
    assert main(["--component", "ModelRunner.weight_exporter", str(before), str(after)]) == 2
    err = capsys.readouterr().err
    assert "WeightExporter holds no method the owner of" in err
    assert "not those it inherits from a base or mixin" in err
