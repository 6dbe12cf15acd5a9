"""Platform globals (`_is_hip`, `fp8_dtype`, `torch`) are set by the harness per configuration,
so a version that does not bind them the sglang way must be refused at load (exit 2, file and
line), never passed: without the binding sglang raises NameError, with `_is_hip = True` it
ignores the platform."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.presets.kv_dtype.loader import LoadError, load_version

FIXTURES = Path(__file__).parent.parent / "fixtures" / "trees"
RUNNER = "sglang/srt/model_executor/model_runner.py"
KV = "sglang/srt/mem_cache/kv_cache_dtype.py"
IS_HIP = "_is_hip = is_hip()\n"
FP8 = "from sglang.srt.layers.quantization.fp8_kernel import fp8_dtype\n"


def edited(tmp_path: Path, shape: str, rel: str, old: str, new: str) -> Path:
    root = tmp_path / "after"
    shutil.copytree(FIXTURES / shape, root)
    path = root / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return root


KV_EDITS = {
    "drops _is_hip": (IS_HIP, "", r"kv_cache_dtype.py:\d+: .*reads global '_is_hip', which the module never binds"),
    "drops fp8_dtype": (FP8, "", r"kv_cache_dtype.py:\d+: .*reads global 'fp8_dtype', which the module never binds"),
    "hard-codes _is_hip": (IS_HIP, "_is_hip = True\n", r"kv_cache_dtype.py:12: global '_is_hip' .* bound by `_is_hip = True`"),
    "negates is_hip()": (IS_HIP, "_is_hip = not is_hip()\n", r"kv_cache_dtype.py:12: .*bound by `_is_hip = not is_hip\(\)`"),
    "rebinds _is_hip": (IS_HIP, IS_HIP + "if is_hip():\n    _is_hip = True\n", r"kv_cache_dtype.py:14: .*bound more than once"),
    "another is_hip": ("from sglang.srt.utils import is_hip\n", "from sglang.srt.platforms import is_hip\n",
                       r"kv_cache_dtype.py:12: .*calls an is_hip that is not sglang's"),
    "fp8_dtype by hand": (FP8, "fp8_dtype = torch.float8_e4m3fn\n", r"kv_cache_dtype.py:9: .*'fp8_dtype' .*bound by `fp8_dtype = torch"),
    "fp8_dtype from elsewhere": (FP8, "from sglang.srt.layers.quantization.fp8_utils import fp8_dtype\n",
                                 r"kv_cache_dtype.py:9: .*'fp8_dtype' .*bound by `from sglang.srt.layers"),
    "torch replaced": ("\ndef configure_kv_cache_dtype(",
                       "import types\ntorch = types.SimpleNamespace(**vars(torch))\n\ndef configure_kv_cache_dtype(",
                       r"kv_cache_dtype.py:\d+: global 'torch' .*not the real torch"),
}


@pytest.mark.parametrize("edit", KV_EDITS, ids=list(KV_EDITS))
def test_moved_module_not_binding_a_platform_global_the_sglang_way_is_refused(tmp_path, edit):
    old, new, message = KV_EDITS[edit]
    root = edited(tmp_path, "record_call_after", KV, old, new)
    with pytest.raises(LoadError, match=message):
        load_version(root)


def test_the_runner_module_is_held_to_the_same_rule(tmp_path):
    root = edited(tmp_path, "record_call", RUNNER, IS_HIP, "_is_hip = True\n")
    with pytest.raises(LoadError, match=r"model_runner.py:\d+: global '_is_hip' .* bound by `_is_hip = True`"):
        load_version(root)


def test_is_hip_from_a_submodule_of_sglang_utils_is_accepted(tmp_path):
    root = edited(tmp_path, "record_call_after", KV, "from sglang.srt.utils import is_hip\n",
                  "from sglang.srt.utils.common import is_hip\n")
    assert load_version(root).modules["kv"].is_hip is not None


@pytest.mark.parametrize("edit", ["drops _is_hip", "hard-codes _is_hip"])
def test_cli_exits_2_naming_file_and_line(tmp_path, capsys, edit):
    old, new, message = KV_EDITS[edit]
    after = edited(tmp_path, "record_call_after", KV, old, new)
    assert main([str(FIXTURES / "record_call"), str(after)]) == 2
    err = capsys.readouterr().err
    assert str(after / KV) in err and "_is_hip" in err


def test_platform_mutants_are_killed_by_the_load_check():
    from equivalence.presets.kv_dtype.run import check

    before, after = load_version(FIXTURES / "record_call", "b"), load_version(FIXTURES / "record_call_after", "a")
    mutants = check([before, after], [(before, after)], mutants=True)["mutants"]
    rejected = {r["id"]: r["message"] for r in mutants["rejected_at_load"]}
    assert set(rejected) == {"drop-is-hip", "drop-fp8-dtype", "hardcode-is-hip"}
    assert "never binds" in rejected["drop-is-hip"] and "_is_hip = True" in rejected["hardcode-is-hip"]
    assert mutants["killed"] == mutants["total"] and not mutants["survivors"]
