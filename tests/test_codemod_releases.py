"""The codemod on real sglang releases (downloaded and cached): structure and behaviour, no goldens."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import libcst as cst
import pytest

from codemods.extract_kv_dtype import AlreadyApplied, NoSuchMethod, refactor, write_plan
from tests.releases import copy_release, release_root
from tests.wrapper_position import assert_equivalent, assert_same_but_wrapper_position

RUNNER = "sglang/srt/model_executor/model_runner.py"
TARGET = "sglang/srt/mem_cache/kv_cache_dtype.py"
WITH_METHOD = {"0.5.14": "server_args_write", "0.5.15.post1": "record_call"}
RECORD = {"0.5.14": "self.server_args.kv_cache_dtype = resolved_kv_cache_dtype",
          "0.5.15.post1": "self._record_kv_cache_dtype(resolved_kv_cache_dtype)"}


@pytest.fixture(scope="module", params=sorted(WITH_METHOD))
def applied(request, tmp_path_factory):
    """(version, original root, refactored copy) — the full run is done once per release."""
    version = request.param
    root = copy_release(version, tmp_path_factory.mktemp(version.replace(".", "_")))
    plan = refactor(root)
    write_plan(plan)
    return version, release_root(version), root, plan


def changed_lines(old: str, new: str) -> list[str]:
    return [ln for ln in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm="")
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def test_shape_and_files(applied):
    version, _, root, plan = applied
    assert plan.shape == WITH_METHOD[version]
    assert set(plan.changes) == {root / RUNNER, root / TARGET}
    for text in plan.changes.values():
        cst.parse_module(text)
    assert not (root / "sglang/srt/__init__.py").exists()
    assert not (root / "sglang/srt/mem_cache/__init__.py").exists()


def test_function_signature_and_body(applied):
    _, _, root, _ = applied
    module = cst.parse_module((root / TARGET).read_text())
    (func,) = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    code = cst.Module([]).code_for_node
    assert func.name.value == "configure_kv_cache_dtype"
    assert [(p.name.value, code(p.annotation.annotation)) for p in func.params.kwonly_params] == [
        ("server_args_kv_cache_dtype", "str"), ("model", "nn.Module"), ("model_dtype", "torch.dtype")]
    assert code(func.returns.annotation) == "tuple[Optional[str], torch.dtype]"
    body = code(func)
    assert "self" not in re.findall(r"\w+", body) and "server_args." not in body
    assert body.rstrip().endswith("return resolved_kv_cache_dtype, kv_cache_dtype")
    assert "resolved_kv_cache_dtype: Optional[str] = None" in body
    names = [s.body[0].targets[0].target.value for s in module.body
             if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Assign)]
    assert sorted(names) == ["TORCH_DTYPE_TO_KV_CACHE_STR", "_is_hip", "logger"]


def test_new_module_imports_exactly_what_it_needs(applied):
    _, _, root, _ = applied
    text = (root / TARGET).read_text()
    imports = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
    assert imports == [
        "import logging", "from typing import Optional", "import torch", "from torch import nn",
        "from sglang.srt.layers.quantization.fp8_kernel import fp8_dtype", "from sglang.srt.utils import is_hip",
    ]


def test_runner_diff_is_limited_to_the_refactoring(applied):
    version, original, root, _ = applied
    lines = changed_lines((original / RUNNER).read_text(), (root / RUNNER).read_text())
    removed = [ln[1:] for ln in lines if ln.startswith("-")]
    added = [ln[1:] for ln in lines if ln.startswith("+")]
    assert added == [
        "from sglang.srt.mem_cache import kv_cache_dtype",
        "        resolved_kv_cache_dtype, self.kv_cache_dtype = (",
        "            kv_cache_dtype.configure_kv_cache_dtype(",
        "                server_args_kv_cache_dtype=self.server_args.kv_cache_dtype,",
        "                model=self.model,",
        "                model_dtype=self.dtype,",
        "            )",
        "        )",
        "        if resolved_kv_cache_dtype is not None:",
        "            " + RECORD[version],
    ]
    assert removed[0] == "from sglang.srt.layers.quantization.fp8_kernel import fp8_dtype"
    assert removed[1] == "TORCH_DTYPE_TO_KV_CACHE_STR = {"
    # Everything else removed is the old table and the old method body.
    old = (original / RUNNER).read_text()
    start = old.index("    def configure_kv_cache_dtype(self):\n")
    body = old[start: old.index("\n    def ", start + 10)]
    table = old[old.index("TORCH_DTYPE_TO_KV_CACHE_STR = {"): old.index("}\n", old.index("TORCH_DTYPE_TO_KV_CACHE_STR = {")) + 2]
    for ln in removed[2:]:
        assert ln in body or ln in table or ln == ""


def test_wrapper_and_call_site(applied):
    _, _, root, _ = applied
    text = (root / RUNNER).read_text()
    assert text.count("self.configure_kv_cache_dtype()") == 1
    assert text.count("    def configure_kv_cache_dtype(self):\n") == 1
    assert "fp8_dtype" not in text and "_is_hip = is_hip()" in text


def test_second_run_is_already_applied(applied):
    _, _, root, _ = applied
    with pytest.raises(AlreadyApplied):
        refactor(root)


# Where a split run (`--steps 1-2`, then `--steps 3-4`) puts the wrapper: right after
# _record_kv_cache_dtype when the class has it (where the method sat), else right after the
# method holding the call site (0.5.14: initialize; the method sat after mambaish_config).
SPLIT_AFTER = {"0.5.14": ("initialize", "mambaish_config"),
               "0.5.15.post1": ("_record_kv_cache_dtype", "_record_kv_cache_dtype")}


def test_split_run_equals_full_run_up_to_the_wrappers_place(applied, tmp_path):
    version, _, root, plan = applied
    parts = copy_release(version, tmp_path / "parts")
    write_plan(refactor(parts, range(1, 3)))
    second = refactor(parts, range(3, 5))
    split_after, full_after = SPLIT_AFTER[version]
    assert any(f"wrapper ModelRunner.configure_kv_cache_dtype placed after ModelRunner.{split_after}" in msg
               for msg in second.messages), second.messages
    assert {p.relative_to(parts) for p in second.changes} == {p.relative_to(root) for p in plan.changes}
    assert second.changes[parts / TARGET] == plan.changes[root / TARGET]
    split, full = second.changes[parts / RUNNER], plan.changes[root / RUNNER]
    if split_after == full_after:
        assert split == full
    else:
        assert_same_but_wrapper_position(split, full, split_after, full_after)
        write_plan(second)
        assert_equivalent(root, parts)


def test_new_module_is_formatted_like_sglang(applied):
    import black
    import isort

    _, _, root, _ = applied
    for rel in (RUNNER, TARGET):
        text = (root / rel).read_text()
        assert black.format_str(text, mode=black.Mode()) == text
        assert isort.code(text, profile="black", known_first_party=["sglang"]) == text


def test_release_already_extracted_upstream(tmp_path):
    with pytest.raises(AlreadyApplied):
        refactor(release_root("0.5.16"))


def test_release_without_the_method(tmp_path):
    with pytest.raises(NoSuchMethod):
        refactor(release_root("0.5.6.post2"))
