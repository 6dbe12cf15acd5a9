"""method_usages: what the first steps of extracting a method would break, anywhere in the
checkout (fixtures/checkouts/runner_users: a sglang-shaped checkout built around
ModelRunner.init_threads_binding)."""

from __future__ import annotations

import pytest

from codemods.refactoring.checkout import Checkout
from codemods.refactoring.method_usages import ParsedFiles, method_usages
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
