"""pysource.receivers.Program.outside: a module inside the package is no top-level name. sglang has
`sglang/srt/models/transformers.py`; `from transformers import PretrainedConfig` is Hugging Face's,
so a class deriving from it has a known line, and a same-named method on it is another class's."""

from __future__ import annotations

import shutil
from dataclasses import replace

from codemods.extract_method import refactor
from pysource.checkout import Checkout
from pysource.receivers import Program
from tests.method_expected import TREES, spec

CONFIG = '''from transformers import PretrainedConfig


class MyConfig(PretrainedConfig):
    pass


def build_one():
    return MyConfig().make_backend(init_new_workspace=True)
'''


def _tree(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "method_pass_self", root)
    (root / "sglang/srt/models").mkdir(parents=True, exist_ok=True)
    (root / "sglang/srt/models/__init__.py").touch()
    (root / "sglang/srt/models/transformers.py").write_text("class TransformersForCausalLM:\n    pass\n")
    (root / "sglang/srt/configs").mkdir(parents=True, exist_ok=True)
    (root / "sglang/srt/configs/__init__.py").touch()
    (root / "sglang/srt/configs/my_config.py").write_text(CONFIG)
    (root / "scripts").mkdir()
    (root / "scripts/tool.py").write_text("import helpers\n")
    (root / "scripts/helpers.py").write_text("X = 1\n")
    return root


def test_a_module_inside_the_package_is_no_top_level_name(tmp_path):
    root = _tree(tmp_path)
    program = Program(Checkout(root, root, "sglang"))
    assert program.outside("transformers.PretrainedConfig")
    assert not program.outside("sglang.srt.models.transformers.TransformersForCausalLM")
    assert not program.outside("helpers.X")  # beside a script outside the package: it may import it
    assert program.lineage("sglang.srt.configs.my_config.MyConfig") == [
        "sglang.srt.configs.my_config.MyConfig", "transformers.PretrainedConfig"]


def test_a_same_named_method_of_a_class_from_outside_is_left_alone(tmp_path):
    root = _tree(tmp_path)
    for wanted in (spec("method_pass_self"), replace(spec("method_pass_self"), no_wrapper=True)):
        plan = refactor(root, wanted)  # before: refused, `MyConfig().make_backend` taken for a ModelRunner's
        assert "sglang/srt/configs/my_config.py" not in {p.relative_to(root).as_posix() for p in plan.changes}
