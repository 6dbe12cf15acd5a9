"""Constructs the rewrite cannot carry: refused with file, line and what it was, nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codemods.extract_kv_dtype import Refusal, refactor, write_plan
from tests.codemod_expected import RUNNER, TREES

AUTO = '        if self.server_args.kv_cache_dtype == "auto":\n'
BF16 = '        elif self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):\n'
DEF = "    def configure_kv_cache_dtype(self):\n"

# id: (shape, old text, new text, what the message must say)
CASES = {
    "unmapped-self-read": ("record_call", AUTO, AUTO + "            print(self.server_args.tp_size)\n",
                           "self.server_args.tp_size"),
    "early-return": ("record_call", BF16, BF16 + "            return\n", "early return"),
    "read-before-assign": ("record_call", AUTO, AUTO + "            print(self.kv_cache_dtype)\n",
                           "not assigned on every path"),
    "read-back-after-write": ("server_args_write_log", "        log_info_on_rank0(logger, f\"KV cache dtype",
                              "        print(self.server_args.kv_cache_dtype)\n"
                              "        log_info_on_rank0(logger, f\"KV cache dtype",
                              "read back of self.server_args.kv_cache_dtype"),
    "decorator": ("record_call", DEF, "    @some_decorator\n" + DEF, "decorator"),
    "defined-twice": ("record_call", "    def profile_max_num_token",
                      DEF + "        pass\n\n    def profile_max_num_token", "defined 2 times"),
    "nested-function": ("record_call", AUTO, "        def helper():\n            return self.dtype\n\n" + AUTO,
                        "nested function helper captures self"),
    "lambda-captures-self": ("record_call", AUTO, "        f = lambda: self.dtype\n" + AUTO, "lambda captures self"),
    "self-passed-along": ("record_call", AUTO, "        print(self)\n" + AUTO, "self used"),
    "unmapped-self-write": ("record_call", AUTO, "        self.other = 1\n" + AUTO, "write to self.other"),
    "not-assigned-everywhere": ("record_call", "            raise ValueError(\n", "            print(\n",
                                "not assigned on every path"),
    "second-call-site": ("record_call", "    def get_loader(self)",
                         "    def again(self):\n        self.configure_kv_cache_dtype()\n\n    def get_loader(self)",
                         "exactly one call"),
    "call-not-bare": ("record_call", "        self.configure_kv_cache_dtype()\n",
                      "        x = self.configure_kv_cache_dtype()\n", "not a bare statement"),
    "local-name-clash": ("record_call", AUTO, "        kv_cache_dtype = None\n" + AUTO, "already uses the name"),
    "module-name-hidden-at-call-site": ("record_call", "        self.configure_kv_cache_dtype()\n",
                                        "        kv_cache_dtype = 1\n        self.configure_kv_cache_dtype()\n",
                                        "would hide the module sglang.srt.mem_cache.kv_cache_dtype"),
    # the call site records once, after writing the result, and only a value that is not None
    "record-may-be-none": ("record_call", "TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]",
                           "TORCH_DTYPE_TO_KV_CACHE_STR.get(self.kv_cache_dtype)", "with a value that may be None"),
    "record-twice": ("record_call", "                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n                )\n",
                     "                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n                )\n"
                     '                self._record_kv_cache_dtype("fp8")\n', "a second record of the resolved value"),
    "record-before-write": ("record_call", "                self.kv_cache_dtype = fp8_dtype if _is_hip else torch.float8_e4m3fn\n"
                            "                self._record_kv_cache_dtype(\n                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n",
                            "                self._record_kv_cache_dtype(\n                    'fp8_e4m3'\n                )\n"
                            "                self.kv_cache_dtype = fp8_dtype if _is_hip else torch.float8_e4m3fn\n"
                            "                print(\n                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n",
                            "write to self.kv_cache_dtype after a record of the resolved value that may come before"),
    "server-args-record-before-write": (
        "server_args_write", "                    self.kv_cache_dtype = torch.float8_e4m3fn\n",
        '                    self.server_args.kv_cache_dtype = "fp8_e4m3"\n'
        "                    self.kv_cache_dtype = torch.float8_e4m3fn\n",
        "write to self.kv_cache_dtype after a record of the resolved value that may come before"),
    "server-args-record-none": ("server_args_write", "                    self.server_args.kv_cache_dtype = TORCH_",
                                "                    self.server_args.kv_cache_dtype = None and TORCH_",
                                "write to self.server_args.kv_cache_dtype with a value that may be None"),
    "table-mutated": ("record_call", "    def profile_max_num_token",
                      "    def patch(self):\n        TORCH_DTYPE_TO_KV_CACHE_STR[torch.int8] = None\n\n"
                      "    def profile_max_num_token", "with a value that may be None"),
    # DFLASH overrides the result after the record: fine only while the record cannot see it
    "record-method-reads-result": ("record_dflash", "        self.server_args.kv_cache_dtype = resolved\n",
                                   "        self.server_args.kv_cache_dtype = resolved\n"
                                   "        print(self.kv_cache_dtype)\n",
                                   "_record_kv_cache_dtype may read self.kv_cache_dtype"),
    # module globals the moved code reads are copied only when the copy cannot drift
    "global-rebound": ("record_call", "class ModelRunner",
                       "_KV_OVERRIDE = None\n\n\ndef override(d):\n    global _KV_OVERRIDE\n    _KV_OVERRIDE = d\n\n\n"
                       "class ModelRunner", "`global _KV_OVERRIDE` at line"),
    "global-mutated": ("record_call", "class ModelRunner",
                       "_NAMES = {}\n\n\ndef register(k, v):\n    _NAMES[k] = v\n\n\nclass ModelRunner",
                       "a write through _NAMES[...]"),
    "global-not-copyable": ("record_call", "class ModelRunner", "_NAMES = dict(a=1)\n\n\nclass ModelRunner",
                            "whose value is not a literal"),
    "module-level-helper": ("record_call", "class ModelRunner",
                            "def _is_bf16(name):\n    return name in ('bf16',)\n\n\nclass ModelRunner",
                            "'_is_bf16', a module-level function"),
    "class-level-assignment": ("record_call", DEF, "    configure_kv_cache_dtype = print\n\n    def _old(self):\n",
                               "is a class-level assignment, not a method"),
}
# the method reads the global (edited in after the class line is replaced)
USES = {"global-rebound": "_KV_OVERRIDE", "global-mutated": "_NAMES", "global-not-copyable": "_NAMES",
        "module-level-helper": "_is_bf16"}


@pytest.mark.parametrize("case", CASES)
def test_refused_with_file_line_and_construct(tmp_path, case):
    shape, old, new, why = CASES[case]
    root = tmp_path / shape
    shutil.copytree(TREES / shape, root)
    runner = root / RUNNER
    text = runner.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    if case in USES:
        text = text.replace(AUTO, AUTO + f"            print({USES[case]})\n", 1)
    runner.write_text(text)
    before = runner.read_text()
    with pytest.raises(Refusal) as exc:
        write_plan(refactor(root))
    assert why in str(exc.value)
    assert exc.value.path == runner and exc.value.line
    assert str(runner) in str(exc.value)
    assert runner.read_text() == before
    assert not (root / "sglang/srt/mem_cache").exists()


def test_moved_table_still_used_by_the_runner_is_imported_back(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text() + "\n\ndef kv_str(dtype):\n    return TORCH_DTYPE_TO_KV_CACHE_STR[dtype]\n")
    write_plan(refactor(root))
    text = runner.read_text()
    assert "from sglang.srt.mem_cache.kv_cache_dtype import TORCH_DTYPE_TO_KV_CACHE_STR\n" in text
    assert "TORCH_DTYPE_TO_KV_CACHE_STR = {" not in text


def test_other_files_importing_the_table_are_redirected(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    user = root / "sglang/srt/layers/user.py"
    user.parent.mkdir(parents=True)
    user.write_text("from sglang.srt.model_executor.model_runner import (\n"
                    "    ModelRunner,\n    TORCH_DTYPE_TO_KV_CACHE_STR,\n)\n\nX = TORCH_DTYPE_TO_KV_CACHE_STR\n")
    plan = refactor(root)
    write_plan(plan)
    assert user.read_text() == (
        "from sglang.srt.model_executor.model_runner import ModelRunner\n"
        "from sglang.srt.mem_cache.kv_cache_dtype import TORCH_DTYPE_TO_KV_CACHE_STR\n"
        "\nX = TORCH_DTYPE_TO_KV_CACHE_STR\n")


def test_steps_1_2_applied_is_recognised_by_the_call_site(tmp_path):
    from codemods.extract_kv_dtype import BadInput
    from tests.codemod_expected import TARGET, expected_files

    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    for rel, text in expected_files("record_call", 2).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    plan = refactor(root, range(3, 5))
    assert plan.shape == "partially extracted (steps 1-2 applied)"
    assert "calls kv_cache_dtype.configure_kv_cache_dtype at line" in plan.messages[0]
    (root / TARGET).unlink()  # the call site names a module function that is not there
    with pytest.raises(BadInput, match="does not define configure_kv_cache_dtype") as exc:
        refactor(root, range(3, 5))
    assert exc.value.line


# A moved name read as an attribute of model_runner from another file: the file imports the new
# module right after the runner's import and reads the table there (forms: test_checkout_references).
ATTRIBUTE_READS = {
    "from-package-import-module": (
        "from sglang.srt.model_executor import model_runner\n\n\n"
        "def kv_str(dtype):\n    return model_runner.TORCH_DTYPE_TO_KV_CACHE_STR[dtype]\n",
        "from sglang.srt.model_executor import model_runner\nfrom sglang.srt.mem_cache import kv_cache_dtype\n\n\n"
        "def kv_str(dtype):\n    return kv_cache_dtype.TORCH_DTYPE_TO_KV_CACHE_STR[dtype]\n"),
    "import-as": (
        "import os\nimport sglang.srt.model_executor.model_runner as mr\n\n"
        "TABLE = mr.TORCH_DTYPE_TO_KV_CACHE_STR\n",
        "import os\nimport sglang.srt.model_executor.model_runner as mr\nfrom sglang.srt.mem_cache import "
        "kv_cache_dtype\n\nTABLE = kv_cache_dtype.TORCH_DTYPE_TO_KV_CACHE_STR\n"),
    "plain-import-dotted": (
        "import sglang.srt.model_executor.model_runner\n\n\ndef f():\n"
        "    return sglang.srt.model_executor.model_runner.TORCH_DTYPE_TO_KV_CACHE_STR\n",
        "import sglang.srt.model_executor.model_runner\nimport sglang.srt.mem_cache.kv_cache_dtype\n\n\ndef f():\n"
        "    return sglang.srt.mem_cache.kv_cache_dtype.TORCH_DTYPE_TO_KV_CACHE_STR\n"),
    "relative-import-in-function": (
        "def f(dtype):\n    from ..model_executor import model_runner as m\n\n"
        "    return m.TORCH_DTYPE_TO_KV_CACHE_STR.get(dtype)\n",
        "def f(dtype):\n    from ..model_executor import model_runner as m\n"
        "    from sglang.srt.mem_cache import kv_cache_dtype\n\n"
        "    return kv_cache_dtype.TORCH_DTYPE_TO_KV_CACHE_STR.get(dtype)\n"),
}


def tree_with_user(tmp_path, code):
    """The record_call tree plus sglang/srt/layers/user.py holding `code`."""
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    user = root / "sglang/srt/layers/user.py"
    user.parent.mkdir(parents=True)
    user.write_text(code)
    return root, user


@pytest.mark.parametrize("case", ATTRIBUTE_READS)
def test_attribute_read_of_the_moved_table_through_the_module_is_rewritten(tmp_path, case):
    code, expected = ATTRIBUTE_READS[case]
    root, user = tree_with_user(tmp_path, code)
    write_plan(refactor(root, range(1, 3)))
    assert user.read_text() == expected
    write_plan(refactor(root, range(3, 5)))
    assert user.read_text() == expected


def test_attribute_read_the_rewrite_cannot_carry_is_refused(tmp_path):
    code = ("from sglang.srt.model_executor import model_runner\n\nkv_cache_dtype = 'fp8'\n"
            "X = model_runner.TORCH_DTYPE_TO_KV_CACHE_STR\n")
    root, user = tree_with_user(tmp_path, code)
    runner_before = (root / RUNNER).read_text()
    with pytest.raises(Refusal) as exc:
        write_plan(refactor(root))
    assert exc.value.path == user.resolve() and exc.value.line == 4
    assert "reads sglang.srt.model_executor.model_runner.TORCH_DTYPE_TO_KV_CACHE_STR" in str(exc.value)
    assert user.read_text() == code and (root / RUNNER).read_text() == runner_before
    assert not (root / "sglang/srt/mem_cache").exists()


def test_attribute_read_is_fine_when_the_runner_still_binds_the_table(tmp_path):
    root = tmp_path / "t"
    shutil.copytree(TREES / "record_call", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text() + "\n\ndef kv_str(dtype):\n    return TORCH_DTYPE_TO_KV_CACHE_STR[dtype]\n")
    user = root / "sglang/srt/layers/user.py"
    user.parent.mkdir(parents=True)
    code = "from sglang.srt.model_executor import model_runner\n\nX = model_runner.TORCH_DTYPE_TO_KV_CACHE_STR\n"
    user.write_text(code)
    write_plan(refactor(root))  # model_runner imports the table back: the attribute still resolves
    assert user.read_text() == code


def test_other_attributes_and_other_modules_are_left_alone(tmp_path):
    code = ("from sglang.srt.model_executor import model_runner\nfrom other import tables\n\n"
            "X = model_runner.ModelRunner\nY = tables.TORCH_DTYPE_TO_KV_CACHE_STR\n")
    root, user = tree_with_user(tmp_path, code)
    write_plan(refactor(root))
    assert user.read_text() == code
