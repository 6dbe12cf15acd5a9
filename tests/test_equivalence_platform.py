"""Platform globals (`_is_hip`, `fp8_dtype`, `torch`) are inputs the world answers under a key
naming their origin (`is_hip()` of sglang.srt.utils, sglang's fp8_kernel, torch), the same in
the runner and in the moved module. A version that binds one otherwise (drops it, hard-codes it,
takes it from elsewhere) reads another input or a constant, and is divergent (exit 1) with its
example; the static check names the changed global. The same object imported another way is
the same input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main

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


def check(tmp_path: Path, before: Path, after: Path) -> tuple[int, dict]:
    out = tmp_path / "r.json"
    code = main([str(before), str(after), "--json", str(out), "--examples", "10"])
    return code, json.loads(out.read_text())["pairs"][0]


KV_EDITS = {
    "drops _is_hip": (IS_HIP, ""),
    "drops fp8_dtype": (FP8, ""),
    "hard-codes _is_hip": (IS_HIP, "_is_hip = True\n"),
    "negates is_hip()": (IS_HIP, "_is_hip = not is_hip()\n"),
    "rebinds _is_hip": (IS_HIP, IS_HIP + "if is_hip():\n    _is_hip = True\n"),
    "another is_hip": ("from sglang.srt.utils import is_hip\n", "from sglang.srt.platforms import is_hip\n"),
    "fp8_dtype by hand": (FP8, "fp8_dtype = torch.float8_e4m3fn\n"),
    "fp8_dtype from elsewhere": (FP8, "from sglang.srt.layers.quantization.fp8_utils import fp8_dtype\n"),
    "torch replaced": ("\ndef configure_kv_cache_dtype(",
                       "import types\ntorch = types.SimpleNamespace(**vars(torch))\n\ndef configure_kv_cache_dtype("),
}


@pytest.mark.parametrize("edit", KV_EDITS, ids=list(KV_EDITS))
def test_a_platform_global_bound_otherwise_is_divergent(tmp_path, edit):
    old, new = KV_EDITS[edit]
    code, pair = check(tmp_path, FIXTURES / "record_call_after", edited(tmp_path, "record_call_after", KV, old, new))
    assert (code, pair["verdict"]) == (1, "divergent")
    shown = [d for d in pair["divergences"] if "example" in d]
    assert shown and all(d["before"] != d["after"] for d in shown)
    changed = [d for d in pair["divergences"] if d["kind"] == "changed-module-global"]
    name = {"torch replaced": "torch", "another is_hip": "is_hip"}.get(edit, "fp8_dtype" if "fp8" in edit else "_is_hip")
    assert [g["name"] for d in changed for g in d["globals"]] == [name]


def test_the_runner_module_is_held_to_the_same_rule(tmp_path):
    code, pair = check(tmp_path, FIXTURES / "record_call", edited(tmp_path, "record_call", RUNNER, IS_HIP, "_is_hip = True\n"))
    assert code == 1 and pair["divergences"][0]["example"]["_is_hip"] is False


def test_is_hip_from_a_submodule_of_sglang_utils_is_the_same_input(tmp_path):
    """sglang.srt.utils re-exports its submodule common: both imports name one object, one input."""
    before = tmp_path / "before"
    shutil.copytree(FIXTURES / "record_call_after", before)
    after = edited(tmp_path, "record_call_after", KV, "from sglang.srt.utils import is_hip\n",
                   "from sglang.srt.utils.common import is_hip\n")
    for root in (before, after):
        (root / "sglang/srt/utils").mkdir(parents=True)
        (root / "sglang/srt/utils/__init__.py").write_text("from sglang.srt.utils.common import *\n")
        (root / "sglang/srt/utils/common.py").write_text("def is_hip():\n    return False\n")
    code, pair = check(tmp_path, before, after)
    assert (code, pair["verdict"]) == (0, "equivalent")
    assert pair["static"]["constants"] and all(c["equal"] for c in pair["static"]["constants"])


def test_platform_mutants_are_killed():
    from equivalence.presets.kv_dtype.check import check as kv_check
    from equivalence.presets.kv_dtype.subject import load_version

    before, after = load_version(FIXTURES / "record_call", "b"), load_version(FIXTURES / "record_call_after", "a")
    mutants = kv_check([before, after], [(before, after)], examples=10, mutants=True).to_json()["mutants"]
    assert mutants["killed"] == mutants["total"] >= 16 and not mutants["survivors"]
