"""The loader's traps: stubs must never make a wrong answer look right."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import torch

from equivalence.cli import main
from equivalence.engine.load.version import LoadError, exec_module
from equivalence.engine.run.observe import Session, capture_logs
from equivalence.engine.load.stubs import PrivateModules, StubScope, StubTouched, StubValue
from equivalence.engine.world.world import Domains, value
from equivalence.presets.kv_dtype.hints import FIXED, FP8, HIP, TORCH, Hints
from equivalence.presets.kv_dtype.hints import KV as KV_STRING
from equivalence.presets.kv_dtype.hints import hints as kv_hints
from equivalence.presets.kv_dtype.subject import load_version

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


HINTS = kv_hints(["auto", "fp4_e2m1"], set(), None, 1)


def config(kv="auto", is_hip=False, fp8=torch.float8_e4m3fn, has_float4=True) -> dict:
    """auto, a model whose quant config says FP8, bfloat16 (the defaults of the hints)."""
    return {KV_STRING: value(kv), "self.model.quant_config": FIXED["self.model.quant_config"][2],
            "self.model.quant_config.kv_cache_quant_algo": value("FP8"), HIP: value(is_hip), FP8: value(fp8),
            TORCH: FIXED[TORCH][0 if has_float4 else 1]}


def session(version) -> Session:
    assert isinstance(HINTS, Hints)
    return Session(version, Domains.from_hints(HINTS), hints=HINTS)


def test_armed_stub_is_not_truthy_and_names_itself():
    scope = StubScope("t")
    stub = StubValue("sglang.srt.utils.is_hip", scope)
    assert not bool(stub)  # while importing: falsy, never truthy
    def decorated():
        return 1

    assert stub(decorated) is decorated  # decorator pass-through
    # a decorator factory given a predicate: `@register(lambda arch: ...)` keeps the def it decorates
    predicate = lambda arch: "Llama" in arch  # noqa: E731
    assert stub(predicate) is not predicate and stub(predicate)(decorated) is decorated
    scope.armed = True
    for use in (bool, lambda s: s(), lambda s: s == 1, lambda s: s.x, lambda s: list(s), hash, str):
        with pytest.raises(StubTouched, match="sglang.srt.utils.is_hip"):
            use(stub)


def test_runner_class_is_the_real_class_from_the_file():
    version = load_version(FIXTURES / "record_call")
    cls = version.cls
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
    assert "configure_kv_cache_dtype" not in vars(version.cls)
    assert version.ext.shape == "moved" and [u.role for u in version.units] == ["call site", "function"]
    assert version.units[1].code is version.modules[KV].configure_kv_cache_dtype.__code__
    assert version.modules[RUNNER].kv_cache_dtype is version.modules[KV]


def test_step2_with_a_stub_for_the_new_module_is_refused(tmp_path):
    root = step2_tree(tmp_path)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace(
        "from sglang.srt.mem_cache import kv_cache_dtype\n",
        "from sglang.srt.mem_cache import memory_pool as kv_cache_dtype\n"))
    with pytest.raises(LoadError, match="kv_cache_dtype"):
        load_version(root)
    (root / KV).unlink()
    with pytest.raises(LoadError, match=r"model_runner.py:\d+: "):
        load_version(root)


def test_wrapper_global_is_bound_to_the_same_versions_real_module():
    a = load_version(FIXTURES / "record_call_after", "a")
    b = load_version(FIXTURES / "record_call_after", "b")
    assert a.modules[RUNNER].kv_cache_dtype is a.modules[KV]
    assert b.modules[RUNNER].kv_cache_dtype is b.modules[KV]
    assert a.modules[KV] is not b.modules[KV]


def test_nothing_leaks_between_versions_or_into_sys_modules():
    a = load_version(FIXTURES / "record_call", "a")
    b = load_version(FIXTURES / "server_args_write", "b")
    assert not [m for m in sys.modules if m == "sglang" or m.startswith("sglang.")]
    assert a.cls is not b.cls
    assert a.units[-1].code is a.cls.configure_kv_cache_dtype.__code__
    assert a.cls.configure_kv_cache_dtype.__globals__ is a.modules[RUNNER].__dict__
    assert b.cls.configure_kv_cache_dtype.__globals__ is b.modules[RUNNER].__dict__
    restore = capture_logs([a, b])
    try:
        sa, sb = session(a), session(b)
        hip = config(is_hip=True, fp8=torch.float8_e4m3fnuz)
        assert dict(sa.observe(hip).state)["kv_cache_dtype"] == torch.float8_e4m3fnuz
        assert b.modules[RUNNER]._is_hip is not True  # a's platform setting stayed in a
        assert dict(sb.observe(config()).state)["kv_cache_dtype"] == torch.float8_e4m3fn
        fp4 = config(kv="fp4_e2m1", has_float4=False)
        assert dict(sa.observe(fp4).state)["kv_cache_dtype"] == torch.bfloat16
        assert a.modules[RUNNER].torch is not torch  # the proxy hides float4 ...
        assert a.modules[RUNNER].torch.float8_e4m3fn is torch.float8_e4m3fn  # ... with the same dtypes
        assert dict(sa.observe(config(kv="fp4_e2m1")).state)["kv_cache_dtype"] == torch.float4_e2m1fn_x2
    finally:
        restore()


def test_a_stub_read_by_the_code_under_test_is_an_input_it_varies(tmp_path):
    root = tree(tmp_path, "record_call",
                lambda t: t.replace('if self.server_args.kv_cache_dtype == "auto":',
                                    'if get_available_gpu_memory("cuda", 0) or self.server_args.kv_cache_dtype == "auto":'))
    out = tmp_path / "r.json"
    assert main([str(root), str(root), "--json", str(out), "--examples", "10"]) == 0
    inputs = json.loads(out.read_text())["pairs"][0]["inputs"]
    key = "sglang.srt.utils.get_available_gpu_memory('cuda', 0)"
    assert {"<stand-in>", False, True} <= set(inputs[key])


def test_code_using_a_stub_at_run_time_is_reported_not_modelled(tmp_path):
    # reached dynamically, so the analysis cannot see it: the armed stub must catch it
    root = tree(tmp_path, "record_call",
                lambda t: t.replace('if self.server_args.kv_cache_dtype == "auto":',
                                    'if globals()["get_available_gpu_memory"]("cuda", 0) or self.server_args.kv_cache_dtype == "auto":'))
    version = load_version(root)
    obs = session(version).observe(config())
    assert obs.exception[0] == "StubTouched"
    assert obs.not_modelled and "get_available_gpu_memory" in obs.not_modelled[0]


def test_tree_without_the_method_names_file_and_line():
    with pytest.raises(LoadError, match=r"model_runner.py:\d+: ModelRunner has no method configure_kv_cache_dtype"):
        load_version(FIXTURES / "no_method")


def test_module_level_code_of_a_real_release_imports_with_stubs():
    from tests.releases import release_root

    version = load_version(release_root("0.5.15.post1"))
    assert version.cls.__name__ == "ModelRunner"
    assert callable(version.cls.__dict__["_record_kv_cache_dtype"])
    bases = [b.__name__ for b in version.cls.__mro__]
    assert any(n.startswith("StubBase[") for n in bases)  # ModelRunnerKVCacheMixin is a stub base


def test_a_missing_module_is_a_stub_for_the_package_only(tmp_path, monkeypatch):
    """sglang's imports of what is not installed get stubs; a real package's own optional
    imports (sympy's `try: import flint` under torch.distributed.tensor) get the ImportError they
    expect, not a stub that breaks them."""
    (tmp_path / "optional_user.py").write_text(
        "try:\n    import not_installed_xyz\nexcept ImportError:\n    not_installed_xyz = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with PrivateModules(StubScope("x")):
        import optional_user

        package = exec_module("sglang.srt.user", str(tmp_path / "user.py"), "import not_installed_xyz\n")
    assert optional_user.not_installed_xyz is None
    assert type(package.not_installed_xyz).__name__ == "StubModule"
    del sys.modules["optional_user"]


def test_private_modules_restores_previous_entries():
    sys.modules["sglang"] = marker = type(sys)("sglang")
    try:
        with PrivateModules(StubScope("x")):
            import sglang.srt.utils  # noqa: F401  (a stub)
        assert sys.modules["sglang"] is marker
        assert "sglang.srt.utils" not in sys.modules
    finally:
        del sys.modules["sglang"]


def test_a_module_level_assert_isinstance_of_a_stub_holds_while_importing():
    # 0.5.21's moriep.py: `assert isinstance(MoriEPLLDispatchOutput, DispatchOutput)` at module
    # level, DispatchOutput a stub: the module imports; once armed, the check is an input not modelled
    scope = StubScope("t")
    protocol = StubValue("sglang.srt.layers.moe.token_dispatcher.base.DispatchOutput", scope)
    assert isinstance(object(), protocol) and issubclass(int, protocol)
    scope.armed = True
    with pytest.raises(StubTouched):
        isinstance(object(), protocol)
