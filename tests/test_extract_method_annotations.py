"""extract_method's annotations: an inferred parameter is annotated only when the class says its
type unambiguously; the names an annotation spells are imported into the target (under
`if TYPE_CHECKING:` where the target has `from __future__ import annotations`: a new module gets
it), or the parameter is left unannotated; `-> None` when the method provably returns nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from codemods.extract_method import MethodSpec, Refusal, refactor
from tests.checkouts import write_tree

RUNNER = "sglang/srt/model_executor/model_runner.py"
NEW = "sglang.srt.model_executor.parts.checks"
NEW_FILE = "sglang/srt/model_executor/parts/checks.py"
NUMA = "sglang/srt/utils/numa_utils.py"
RUNNER_TEXT = '''\
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from sglang.srt.configs.model_config import ModelConfig

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs


class ModelRunner:
    def __init__(self, model_config: ModelConfig, tp_size: int, dp_rank: Optional[int], server_args: ServerArgs):
        self.model_config = model_config
        self.tp_size = tp_size
        self.dp_rank = dp_rank
        self.server_args = server_args
        self.server_args.checked = True
        self.check()

    def check(self):
        if self.model_config.hidden % self.tp_size:
            raise ValueError(self.dp_rank, self.server_args.name)
'''
BASE = {"sglang/__init__.py": "", "sglang/srt/__init__.py": "", "sglang/srt/configs/__init__.py": "",
        "sglang/srt/configs/model_config.py": "class ModelConfig:\n    hidden = 8\n",
        "sglang/srt/server_args.py": "class ServerArgs:\n    name = 'x'\n",
        "sglang/srt/model_executor/__init__.py": "", "sglang/srt/utils/__init__.py": "",
        NUMA: '"""NUMA helpers."""\n\nimport os\n\n\ndef node() -> int:\n    return int(os.environ.get("NODE", 0))\n'}


def run(tmp_path: Path, runner: str = RUNNER_TEXT, target: str = NEW, files: dict[str, str] | None = None,
        steps: range = range(1, 5), **spec) -> dict[str, str]:
    """The files the extraction of ModelRunner.check (or `method=`) changes, each compiled."""
    root = write_tree(tmp_path / "t", {**BASE, RUNNER: runner, **(files or {})})
    plan = refactor(root, MethodSpec("ModelRunner", spec.pop("method", "check"), target, **spec), steps)
    out = {p.relative_to(plan.root).as_posix(): t for p, t in plan.changes.items()}
    for rel, text in out.items():
        compile(text, rel, "exec")
    return out


def signature(text: str, name: str = "check") -> str:
    """`def name(...) -> ...:` of the module-level function (or the class's static method), on one line."""
    module = cst.parse_module(text)
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name] or [
        s for c in module.body if isinstance(c, cst.ClassDef) for s in c.body.body
        if isinstance(s, cst.FunctionDef) and s.name.value == name]
    head = cst.Module([]).code_for_node(found[0].with_changes(decorators=[], body=cst.IndentedBlock(
        [cst.SimpleStatementLine([cst.Expr(cst.Ellipsis())])])))
    return " ".join(head.split()).replace("( ", "(").replace(", )", ")").replace(" )", ")")


WANT = "def check(*, model_config: ModelConfig, tp_size: int, dp_rank: Optional[int], server_args: ServerArgs) -> None: ..."


def test_a_new_module_gets_future_annotations_and_the_package_s_types_under_type_checking(tmp_path):
    target = run(tmp_path)[NEW_FILE]
    assert target.startswith(textwrap.dedent('''\
        from __future__ import annotations

        from typing import TYPE_CHECKING, Optional

        if TYPE_CHECKING:
            from sglang.srt.configs.model_config import ModelConfig
            from sglang.srt.server_args import ServerArgs


        def check(
        '''))
    assert signature(target) == WANT


def test_step_1_annotates_the_static_method_in_place(tmp_path):
    text = run(tmp_path, steps=range(1, 2))[RUNNER]
    assert signature(text) == WANT


@pytest.mark.parametrize("edit, unannotated", [
    (("        self.tp_size = tp_size\n", "        self.tp_size = tp_size\n        self.tp_size = 2\n"), "tp_size"),
    (("    def check(self):\n", "    def resize(self, tp_size: str):\n        self.tp_size = tp_size\n\n"
                                 "    def check(self):\n"), "tp_size"),
    (("        self.tp_size = tp_size\n", "        tp_size = tp_size or 1\n        self.tp_size = tp_size\n"),
     "tp_size"),
    (("        self.dp_rank = dp_rank\n", "        self.dp_rank, self.other = dp_rank, 1\n"), "dp_rank"),
    (("        self.tp_size = tp_size\n", "        self.tp_size += tp_size\n"), "tp_size"),
    (("model_config: ModelConfig, tp_size", "model_config, tp_size"), "model_config"),
    (("model_config: ModelConfig, tp_size", "model_config: 'ModelConfig', tp_size"), "model_config"),
], ids=["another-value", "a-parameter-annotated-otherwise", "a-rebound-parameter", "tuple-unpacking",
        "augmented", "an-unannotated-parameter", "a-string-annotation"])
def test_a_type_the_class_does_not_say_unambiguously_is_left_out(tmp_path, edit, unannotated):
    assert edit[0] in RUNNER_TEXT
    text = signature(run(tmp_path, RUNNER_TEXT.replace(*edit, 1))[NEW_FILE])
    assert f" {unannotated}," in text and f" {unannotated}:" not in text
    assert text.count(":") == WANT.count(":") - 1, text


@pytest.mark.parametrize("declaration", ["    tp_size: int\n\n", "    tp_size: int = 1\n\n"])
def test_a_declaration_in_the_class_says_it(tmp_path, declaration):
    runner = RUNNER_TEXT.replace("class ModelRunner:\n", "class ModelRunner:\n" + declaration).replace(
        "        self.tp_size = tp_size\n", "        self.tp_size = tp_size * 2\n")
    assert signature(run(tmp_path, runner)[NEW_FILE]) == WANT


def test_an_annotated_assignment_in_a_method_says_it(tmp_path):
    runner = RUNNER_TEXT.replace("        self.tp_size = tp_size\n", "        self.tp_size: int = tp_size * 2\n")
    assert signature(run(tmp_path, runner)[NEW_FILE]) == WANT


def test_a_base_in_the_tree_assigning_otherwise_makes_it_ambiguous(tmp_path):
    base = "class Base:\n    def grow(self):\n        self.tp_size = 2 * self.tp_size\n"
    runner = RUNNER_TEXT.replace("class ModelRunner:", "class ModelRunner(Base):").replace(
        "if TYPE_CHECKING:", "from sglang.srt.base import Base\n\nif TYPE_CHECKING:")
    text = signature(run(tmp_path, runner, files={"sglang/srt/base.py": base})[NEW_FILE])
    assert " tp_size," in text


# --- into an existing module -------------------------------------------------------------

LAZY_NUMA = '''\
"""NUMA helpers."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.srt.configs.device_config import DeviceConfig


def node(device: DeviceConfig) -> int:
    return int(os.environ.get("NODE", 0))
'''


def test_an_existing_lazy_module_s_type_checking_block_takes_them(tmp_path):
    target = run(tmp_path, target="sglang.srt.utils.numa_utils", files={NUMA: LAZY_NUMA})[NUMA]
    assert textwrap.dedent('''\
        import os
        from typing import TYPE_CHECKING, Optional

        if TYPE_CHECKING:
            from sglang.srt.configs.device_config import DeviceConfig
            from sglang.srt.configs.model_config import ModelConfig
            from sglang.srt.server_args import ServerArgs


        def node(''') in target
    assert signature(target) == WANT


def test_an_existing_module_without_future_annotations_imports_them_at_run_time(tmp_path):
    """The source's TYPE_CHECKING-only ServerArgs cannot be read there: that parameter stays bare."""
    target = run(tmp_path, target="sglang.srt.utils.numa_utils")[NUMA]
    assert "from sglang.srt.configs.model_config import ModelConfig\n" in target and "ServerArgs" not in target
    assert signature(target) == WANT.replace("server_args: ServerArgs", "server_args")


def test_a_type_whose_import_would_close_a_cycle_is_left_out(tmp_path):
    cyclic = "from sglang.srt.utils import numa_utils\n\n\nclass ModelConfig:\n    hidden = 8\n"
    target = run(tmp_path, target="sglang.srt.utils.numa_utils",
                 files={"sglang/srt/configs/model_config.py": cyclic})[NUMA]
    assert "ModelConfig" not in target
    assert signature(target).startswith("def check(*, model_config, tp_size: int,")


def test_what_is_left_out_is_said_with_why(tmp_path):
    cyclic = "from sglang.srt.utils import numa_utils\n\n\nclass ModelConfig:\n    hidden = 8\n"
    root = write_tree(tmp_path / "t", {**BASE, RUNNER: RUNNER_TEXT, "sglang/srt/configs/model_config.py": cyclic})
    plan = refactor(root, MethodSpec("ModelRunner", "check", "sglang.srt.utils.numa_utils"), range(1, 5))
    (note,) = [m for m in plan.messages if "unannotated" in m]
    assert note.startswith("step 1: left unannotated: model_config: ModelConfig (importing ModelConfig into the "
                           "target at run time closes an import cycle;")
    assert "; server_args: ServerArgs (ServerArgs reaches the target only through" in note
    assert "import cycle" in note and "from __future__ import annotations" in note
    plan = refactor(write_tree(tmp_path / "u", {**BASE, RUNNER: RUNNER_TEXT}), MethodSpec("ModelRunner", "check", NEW),
                    range(1, 5))
    assert not [m for m in plan.messages if "unannotated" in m]


def test_a_type_the_target_binds_otherwise_is_left_out(tmp_path):
    numa = BASE[NUMA].replace("import os\n", "import os\n\nModelConfig = dict\n")
    target = run(tmp_path, target="sglang.srt.utils.numa_utils", files={NUMA: numa})[NUMA]
    assert signature(target).startswith("def check(*, model_config, tp_size: int,")


# --- the method's own annotations, --pass-self, the return annotation --------------------

OWN = RUNNER_TEXT.replace("    def check(self):\n", "    def check(self, args: ServerArgs, strict: bool = True):\n") \
    .replace("        self.check()\n", "        self.check(server_args)\n")


def test_a_name_the_class_s_module_imports_only_under_type_checking_moves_under_type_checking(tmp_path):
    target = run(tmp_path, OWN)[NEW_FILE]
    assert "if TYPE_CHECKING:\n" in target and "    from sglang.srt.server_args import ServerArgs\n" in target
    assert "args: ServerArgs, strict: bool = True" in signature(target)


def test_into_a_module_without_future_annotations_it_is_refused_saying_what_to_do(tmp_path):
    with pytest.raises(Refusal) as exc:
        run(tmp_path, OWN, target="sglang.srt.utils.numa_utils")
    assert ("the moved function's annotations use 'ServerArgs', a name bound inside an if/try block "
            "(e.g. TYPE_CHECKING) in the source module: the target has no `from __future__ import annotations`"
            ) in str(exc.value)


def test_pass_self_is_annotated_with_the_class(tmp_path):
    out = run(tmp_path, pass_self="model_runner")
    target = out[NEW_FILE]
    assert "    from sglang.srt.model_executor.model_runner import ModelRunner\n" in target
    assert signature(target) == "def check(*, model_runner: ModelRunner) -> None: ..."


@pytest.mark.parametrize("body, returns", [
    ("        return self.tp_size\n", ""),
    ("        if self.tp_size:\n            return\n        print(self.tp_size)\n", " -> None"),
    ("        yield self.tp_size\n", ""),
], ids=["a-value", "a-bare-return", "a-generator"])
def test_none_is_the_return_annotation_only_where_nothing_is_returned(tmp_path, body, returns):
    runner = RUNNER_TEXT.replace(RUNNER_TEXT[RUNNER_TEXT.index("        if self.model_config"):], body)
    assert signature(run(tmp_path, runner)[NEW_FILE]) == f"def check(*, tp_size: int){returns}: ..."


def test_the_method_s_own_return_annotation_is_kept(tmp_path):
    runner = RUNNER_TEXT.replace("    def check(self):", "    def check(self) -> Optional[int]:")
    assert signature(run(tmp_path, runner)[NEW_FILE]).endswith(") -> Optional[int]: ...")


def test_a_patch_of_a_name_only_annotations_use_is_no_conflict(tmp_path):
    """The function never reads ModelConfig: patching it through the runner's module misses nothing."""
    patch = ('from unittest import mock\n\n\n@mock.patch("sglang.srt.model_executor.model_runner.ModelConfig")\n'
             'def test_config(config):\n    pass\n')
    out = run(tmp_path, files={"test/test_config.py": patch})
    assert "model_config: ModelConfig" in signature(out[NEW_FILE]) and "test/test_config.py" not in out


def test_a_name_imported_under_a_runtime_guard_is_refused_at_its_use_naming_the_binding_line(tmp_path):
    guarded = RUNNER_TEXT.replace("if TYPE_CHECKING:\n", "if ModelConfig.hidden:\n    import fancy_kernels\n\nif TYPE_CHECKING:\n") \
        .replace("            raise ValueError(", "            fancy_kernels.warn()\n            raise ValueError(")
    with pytest.raises(Refusal) as exc:
        run(tmp_path, guarded)
    text = str(exc.value)
    binding = guarded.splitlines().index("    import fancy_kernels") + 1
    use = next(i for i, line in enumerate(guarded.splitlines(), 1) if "fancy_kernels.warn()" in line)
    assert f"a name bound inside an if/try block (e.g. TYPE_CHECKING) in the source module (line {binding})" in text
    assert exc.value.line == use, text
