"""method_usages: what the first steps of extracting a method would break, anywhere in the
checkout (fixtures/checkouts/runner_users: a sglang-shaped checkout built around
ModelRunner.init_threads_binding)."""

from __future__ import annotations

import pytest

from pysource.checkout import Checkout
from codemods.checkout.method_usages import ParsedFiles, method_usages
from tests.checkouts import copy_fixture, make_checkout

MODULE = "sglang.srt.model_executor.model_runner"

# (file, line, what): every use in the fixture, and nothing else (cpu.py mentions the method in a
# comment and a docstring only; scripts/unrelated_binding.py does not import the runner; the
# subclasses Plain and Deeper never mention the method)
EXPECTED = [
    ("benchmark/bench_threads.py", 6, "uses runner.init_threads_binding"),
    ("python/sglang/srt/hardware_backend/runner_stub.py", 5, "StubModelRunner overrides ModelRunner.init_threads_binding"),
    ("python/sglang/srt/hardware_backend/runner_stub.py", 10,
     "QuietModelRunner overrides ModelRunner.init_threads_binding"),
    ("python/sglang/srt/model_executor/model_runner.py", 14, "uses runner.init_threads_binding"),
    ("python/sglang/srt/model_executor/runner_mixin.py", 9, "uses self.init_threads_binding"),
    ("test/srt/test_runner_patches.py", 6,
     "patches 'sglang.srt.model_executor.model_runner.ModelRunner.init_threads_binding'"),
    ("test/srt/test_runner_patches.py", 12, "patches Runner.init_threads_binding (mock.patch.object)"),
    ("test/srt/test_runner_patches.py", 19, "patches SilentModelRunner.init_threads_binding (mock.patch.object)"),
    ("test/srt/test_runner_patches.py", 21,
     "patches 'sglang.srt.hardware_backend.runner_stub.SilentModelRunner.init_threads_binding'"),
    ("test/srt/test_runner_subclasses.py", 6, "TracingRunner overrides ModelRunner.init_threads_binding"),
    ("test/srt/test_runner_subclasses.py", 8, "calls super().init_threads_binding"),
    ("test/srt/test_runner_subclasses.py", 24, "ViaReexport overrides ModelRunner.init_threads_binding"),
]


@pytest.fixture
def checkout(tmp_path):
    root = copy_fixture("runner_users", tmp_path / "c")
    return Checkout.find(root, root / "python")


def test_every_use_is_listed_and_nothing_else(checkout):
    found = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert [(checkout.relative(u.path), u.line, u.what) for u in found] == EXPECTED


def test_subclasses_are_followed_upwards_through_aliases_re_exports_and_files(checkout):
    parsed = ParsedFiles(checkout, "init_threads_binding")
    base = f"{MODULE}.ModelRunner"
    for name in ["sglang.srt.hardware_backend.runner_stub.StubModelRunner", "sglang.srt.model_executor.ModelRunner",
                 "<test/srt/test_runner_subclasses.py>.Deeper", "<test/srt/test_runner_subclasses.py>.ViaReexport"]:
        assert parsed.derives(name, base), name
    assert not parsed.derives("sglang.srt.platforms.cpu.CpuPlatform", base)
    assert not parsed.derives("<scripts/unrelated_binding.py>.Pool", base)


def test_another_method_of_the_class_has_no_uses(checkout):
    assert method_usages(checkout, MODULE, "ModelRunner", "configure_kv_cache_dtype") == []


@pytest.mark.parametrize("text, what", [
    ("from sglang.srt.model_executor.model_runner import ModelRunner\n\n\nclass A(ModelRunner):\n    pass\n\n\n"
     "class B(A):\n    def init_threads_binding(self):\n        pass\n", "B overrides ModelRunner.init_threads_binding"),
    ("from sglang.srt.model_executor.model_runner import ModelRunner as MR\n\n\nclass A(\n    object,\n    MR,\n):\n"
     "    def init_threads_binding(self):\n        pass\n", "A overrides ModelRunner.init_threads_binding"),
    ("import sglang.srt.model_executor.model_runner\n\n\nclass A(sglang.srt.model_executor.model_runner.ModelRunner):\n"
     "    def f(self):\n        return super(A, self).init_threads_binding()\n", "calls super().init_threads_binding"),
], ids=["same-file-chain", "alias-in-multiline-bases", "dotted-base-super-with-arguments"])
def test_subclass_shapes(tmp_path, text, what):
    checkout = make_checkout(tmp_path, {"test/t.py": text})
    [use] = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert use.what == what and use.path == checkout.root / "test/t.py"


def test_a_file_that_does_not_parse_is_listed(tmp_path):
    checkout = make_checkout(tmp_path, {"scripts/py2.py": "print runner.init_threads_binding()\n"})
    [use] = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert use.line == 1 and "cannot parse" in use.what


# --- uses anywhere in the checkout, not only in files importing the class ----------------------

IMPORT = "from sglang.srt.model_executor.model_runner import ModelRunner\n"
USES = {  # id: (test/t.py's text, the uses listed: (line, what))
    "a-file-that-never-imports-the-class": (
        "def topk(model_runner):\n    return model_runner.init_threads_binding()\n",
        [(2, "uses model_runner.init_threads_binding")]),
    "an-attribute-chain": (
        "class Worker:\n    def start(self):\n        self.target_runner.init_threads_binding()\n",
        [(3, "uses self.target_runner.init_threads_binding")]),
    "a-mixin-that-does-not-define-it": (
        "class Mixin:\n    def start(self):\n        self.init_threads_binding()\n",
        [(3, "uses self.init_threads_binding")]),
    "getattr-and-patch-object-on-an-instance": (
        "from unittest import mock\n\n\ndef f(runner):\n    getattr(runner, 'init_threads_binding')()\n"
        "    with mock.patch.object(runner, 'init_threads_binding'):\n        pass\n",
        [(5, "reads runner.init_threads_binding (getattr)"),
         (6, "patches runner.init_threads_binding (mock.patch.object)")]),
    "super-where-a-base-cannot-be-followed": (
        "def make():\n    return object\n\n\nclass Late(make()):\n    def go(self):\n"
        "        super().init_threads_binding()\n",
        [(7, "calls super().init_threads_binding")]),
    # provably another class's method: nothing listed
    "self-in-a-class-combining-one-defining-it-first": (
        IMPORT + "\n\nclass Base:\n    def init_threads_binding(self):\n        pass\n\n    def go(self):\n"
        "        self.init_threads_binding()\n\n\nclass Runner(Base, ModelRunner):\n    pass\n", []),
    "self-in-an-unrelated-class-defining-it": (
        "class Pool:\n    def init_threads_binding(self):\n        pass\n\n    def start(self):\n"
        "        self.init_threads_binding()\n", []),
    "self-in-a-class-inheriting-it-from-another-file": (
        "from sglang.srt.pools import Pool\n\n\nclass BigPool(Pool):\n    def start(self):\n"
        "        self.init_threads_binding()\n", []),
    "super-in-an-unrelated-class": (
        "import torch\n\n\nclass Pool(torch.nn.Module, object):\n    def init_threads_binding(self):\n"
        "        super().init_threads_binding()\n", []),
    "a-module-an-outside-name-an-unrelated-class-and-its-instance": (
        "import os\n\nfrom sglang.srt import pools\nfrom sglang.srt.pools import Pool\n\n"
        "pools.init_threads_binding()\nos.init_threads_binding()\nPool.init_threads_binding(None)\n"
        "Pool().init_threads_binding()\n", []),
}


@pytest.mark.parametrize("case", USES)
def test_uses_anywhere_in_the_checkout(tmp_path, case):
    text, expected = USES[case]
    pools = "class Pool:\n    def init_threads_binding(self):\n        pass\n\n\ndef init_threads_binding():\n    pass\n"
    checkout = make_checkout(tmp_path, {"test/t.py": text, "python/sglang/srt/pools.py": pools})
    found = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert [(u.line, u.what) for u in found if u.path.name == "t.py"] == expected
    assert [u for u in found if u.path.name != "t.py"] == []


def test_in_the_class_only_its_own_calls_on_self_are_left_to_step_1(tmp_path):
    runner = ("class ModelRunner:\n    def __init__(self, draft):\n        self.init_threads_binding()\n"
              "        self.draft = draft\n        draft.init_threads_binding()\n        run(self.init_threads_binding)\n"
              "        super().init_threads_binding()\n\n    def init_threads_binding(self):\n        pass\n")
    checkout = make_checkout(tmp_path, {"python/sglang/srt/model_executor/model_runner.py": runner})
    found = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert [(u.line, u.what) for u in found] == [
        (5, "uses draft.init_threads_binding"),
        (6, "uses self.init_threads_binding other than by calling it (passed as a value?)")]


def test_self_in_a_base_of_the_class_is_a_use_even_where_the_base_defines_it(tmp_path):
    base = "class Base:\n    def init_threads_binding(self):\n        pass\n\n    def go(self):\n" \
           "        self.init_threads_binding()\n"
    runner = "from sglang.srt.base import Base\n\n\nclass ModelRunner(Base):\n" \
             "    def init_threads_binding(self):\n        pass\n"
    checkout = make_checkout(tmp_path, {"python/sglang/srt/base.py": base,
                                        "python/sglang/srt/model_executor/model_runner.py": runner})
    [use] = method_usages(checkout, MODULE, "ModelRunner", "init_threads_binding")
    assert (use.path.name, use.line, use.what) == ("base.py", 6, "uses self.init_threads_binding")
