"""The loader's traps: stubs must never make a wrong answer look right."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import torch

from equivalence.presets.kv_dtype.configs import ABSENT, Config, ModelSpec
from equivalence.presets.kv_dtype.loader import LoadError, load_version
from equivalence.presets.kv_dtype.observe import Session, install_log_capture
from equivalence.engine.stubs import PrivateModules, StubScope, StubTouched, StubValue

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"
RUNNER = "sglang/srt/model_executor/model_runner.py"
KV = "sglang/srt/mem_cache/kv_cache_dtype.py"


def tree(tmp_path: Path, name: str, edit=None, kv_edit=None) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest)
    if edit:
        p = dest / RUNNER
        p.write_text(edit(p.read_text()))
    if kv_edit:
        p = dest / KV
        p.write_text(kv_edit(p.read_text()))
    return dest


def config(**kw) -> Config:
    base = dict(kv_cache_dtype="auto", model=ModelSpec("algo", "FP8"), dtype=torch.bfloat16, is_hip=False,
                fp8_dtype=torch.float8_e4m3fn, has_float4=True)
    base.update(kw)
    return Config(**base)


def test_armed_stub_is_not_truthy_and_names_itself():
    scope = StubScope("t")
    stub = StubValue("sglang.srt.utils.is_hip", scope)
    assert not bool(stub)  # while importing: falsy, never truthy
    assert stub(lambda: 1).__class__.__name__ == "function"  # decorator pass-through
    scope.armed = True
    for use in (bool, lambda s: s(), lambda s: s == 1, lambda s: s.x, lambda s: list(s), hash, str):
        with pytest.raises(StubTouched, match="sglang.srt.utils.is_hip"):
            use(stub)


def test_runner_class_is_the_real_class_from_the_file():
    version = load_version(FIXTURES / "record_call")
    cls = version.runner_cls
    assert isinstance(cls, type) and cls.__module__ == "sglang.srt.model_executor.model_runner"
    assert cls.configure_kv_cache_dtype.__code__.co_filename.endswith(RUNNER)
    assert "Mock" not in type(cls).__name__


def test_a_stub_standing_in_for_the_runner_class_is_refused(tmp_path):
    root = tree(tmp_path, "record_call", lambda t: t + "\nfrom sglang.srt.managers import ModelRunner\n")
    with pytest.raises(LoadError, match="ModelRunner is not the class defined in the file"):
        load_version(root)


def test_a_magicmock_runner_class_is_refused(tmp_path):
    root = tree(tmp_path, "record_call",
                lambda t: t + "\nfrom unittest.mock import MagicMock\nModelRunner = MagicMock()\n")
    with pytest.raises(LoadError, match="ModelRunner is not the class"):
        load_version(root)


def test_a_stub_standing_in_for_the_new_module_is_detected(tmp_path):
    root = tree(tmp_path, "record_call_after")
    (root / KV).unlink()  # model_runner still imports it: only a stub could answer
    with pytest.raises(LoadError, match="kv_cache_dtype"):
        load_version(root)


def step2_tree(tmp_path: Path, shape: str = "record_call") -> Path:
    """The codemod's reviewed step-2 output: no method in the class, the call site calls the module."""
    root = tree(tmp_path, shape)
    expected = Path(__file__).parent.parent / "fixtures" / "codemod_expected" / shape / "step2"
    for rel in (RUNNER, KV):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text((expected / rel).read_text())
    return root


def test_step2_call_site_runs_for_real_with_the_versions_own_module(tmp_path):
    version = load_version(step2_tree(tmp_path))
    assert "configure_kv_cache_dtype" not in vars(version.runner_cls)
    assert [u.role for u in version.shape.units] == ["entry", "core"]
    assert version.core_function() is version.modules["kv"].configure_kv_cache_dtype
    assert version.modules["runner"].kv_cache_dtype is version.modules["kv"]
    assert "kv_cache_dtype" in version.shape.globals_read["runner"]  # the entry reads the module global


def test_step2_with_a_stub_for_the_new_module_is_refused(tmp_path):
    root = step2_tree(tmp_path)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace(
        "from sglang.srt.mem_cache import kv_cache_dtype\n",
        "from sglang.srt.mem_cache import memory_pool as kv_cache_dtype\n"))
    with pytest.raises(LoadError, match="kv_cache_dtype"):
        load_version(root)
    (root / KV).unlink()
    with pytest.raises(LoadError, match=r"model_runner.py:\d+: calls kv_cache_dtype.configure_kv_cache_dtype"):
        load_version(root)


def test_wrapper_global_is_bound_to_the_same_versions_real_module():
    a = load_version(FIXTURES / "record_call_after", "a")
    b = load_version(FIXTURES / "record_call_after", "b")
    assert a.modules["runner"].kv_cache_dtype is a.modules["kv"]
    assert b.modules["runner"].kv_cache_dtype is b.modules["kv"]
    assert a.modules["kv"] is not b.modules["kv"]


def test_nothing_leaks_between_versions_or_into_sys_modules():
    a = load_version(FIXTURES / "record_call", "a")
    b = load_version(FIXTURES / "server_args_write", "b")
    assert not [m for m in sys.modules if m == "sglang" or m.startswith("sglang.")]
    assert a.runner_cls is not b.runner_cls
    assert a.core_function().__globals__ is a.modules["runner"].__dict__
    assert b.core_function().__globals__ is b.modules["runner"].__dict__
    restore = install_log_capture([a, b])
    try:
        sa, sb = Session(a), Session(b)
        hip = config(is_hip=True, fp8_dtype=torch.float8_e4m3fnuz)
        assert sa.run(hip).kv_cache_dtype == torch.float8_e4m3fnuz
        assert b.modules["runner"]._is_hip is not True  # a's platform setting stayed in a
        assert sb.run(config()).kv_cache_dtype == torch.float8_e4m3fn
        assert sa.run(config(has_float4=False, kv_cache_dtype="fp4_e2m1")).kv_cache_dtype == torch.bfloat16
        assert a.modules["runner"].torch is not torch  # the proxy hides float4 ...
        assert a.modules["runner"].torch.float8_e4m3fn is torch.float8_e4m3fn  # ... with the same dtypes
        assert sa.run(config(kv_cache_dtype="fp4_e2m1")).kv_cache_dtype == torch.float4_e2m1fn_x2
    finally:
        restore()


def test_a_stub_read_by_the_code_under_test_is_refused_at_load(tmp_path):
    root = tree(tmp_path, "record_call",
                lambda t: t.replace('if self.server_args.kv_cache_dtype == "auto":',
                                    'if get_available_gpu_memory("cuda", 0) or self.server_args.kv_cache_dtype == "auto":'))
    with pytest.raises(LoadError, match="get_available_gpu_memory.*is a stub"):
        load_version(root)


def test_code_using_a_stub_at_run_time_is_reported_not_modelled(tmp_path):
    # reached dynamically, so scope analysis cannot see it: the armed stub must catch it
    root = tree(tmp_path, "record_call",
                lambda t: t.replace('if self.server_args.kv_cache_dtype == "auto":',
                                    'if globals()["get_available_gpu_memory"]("cuda", 0) or self.server_args.kv_cache_dtype == "auto":'))
    version = load_version(root)
    obs = Session(version).run(config())
    assert obs.exception[0] == "StubTouched"
    assert obs.not_modelled and "get_available_gpu_memory" in obs.not_modelled[0]


def test_tree_without_the_method_names_file_and_line():
    with pytest.raises(LoadError, match=r"model_runner.py:\d+: ModelRunner has no method configure_kv_cache_dtype"):
        load_version(FIXTURES / "no_method")


def test_module_level_code_of_a_real_release_imports_with_stubs():
    from tests.releases import release_root

    version = load_version(release_root("0.5.15.post1"))
    assert version.runner_cls.__name__ == "ModelRunner"
    assert version.shape.has_record_method
    bases = [b.__name__ for b in version.runner_cls.__mro__]
    assert any(n.startswith("StubBase[") for n in bases)  # ModelRunnerKVCacheMixin is a stub base


def test_private_modules_restores_previous_entries():
    sys.modules["sglang"] = marker = type(sys)("sglang")
    try:
        with PrivateModules(StubScope("x")):
            import sglang.srt.utils  # noqa: F401  (a stub)
        assert sys.modules["sglang"] is marker
        assert "sglang.srt.utils" not in sys.modules
    finally:
        del sys.modules["sglang"]
