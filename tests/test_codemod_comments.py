"""Comments inside the constructs the rewrite replaces are carried, never dropped."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from codemods.extract_kv_dtype import refactor, write_plan
from tests.codemod_expected import RUNNER, TARGET, TREES
from tests.test_codemod_steps import comments, texts

RECORD_CALL = ("                self._record_kv_cache_dtype(\n"
               "                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n"
               "                )\n")
RECORD_CALL_COMMENTED = ("                self._record_kv_cache_dtype(  # why: the scheduler reads it\n"
                         "                    # which string the table gives\n"
                         "                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]  # inner\n"
                         "                )  # after\n")
WRITE = ("                    self.server_args.kv_cache_dtype = TORCH_DTYPE_TO_KV_CACHE_STR[\n"
         "                        self.kv_cache_dtype\n"
         "                    ]\n")
WRITE_COMMENTED = ("                    self.server_args.kv_cache_dtype = TORCH_DTYPE_TO_KV_CACHE_STR[  # why: sa\n"
                   "                        self.kv_cache_dtype  # inner sa\n"
                   "                    ]\n")
CALL = "        self.configure_kv_cache_dtype()\n"
CALL_COMMENTED = "        self.configure_kv_cache_dtype(  # why: once the weights are in\n        )\n"

CASES = {
    "record-call": ("record_call", RECORD_CALL, RECORD_CALL_COMMENTED),
    "record-call-dflash": ("record_dflash", RECORD_CALL, RECORD_CALL_COMMENTED),
    "server-args-write": ("server_args_write", WRITE, WRITE_COMMENTED),
    "server-args-write-log": ("server_args_write_log", WRITE, WRITE_COMMENTED),
    "call-site": ("record_call", CALL, CALL_COMMENTED),
}


@pytest.mark.parametrize("fmt", [True, False], ids=["format", "no-format"])
@pytest.mark.parametrize("case", CASES)
def test_comments_inside_a_replaced_construct_are_carried(tmp_path, case, fmt):
    shape, old, new = CASES[case]
    root = tmp_path / shape
    shutil.copytree(TREES / shape, root)
    runner = root / RUNNER
    assert old in runner.read_text()
    runner.write_text(runner.read_text().replace(old, new, 1))
    before = sum((comments(t) for t in texts(root).values()), Counter())
    for steps in (range(1, 2), range(2, 5)):  # the comment survives step 1 and every later step
        write_plan(refactor(root, steps, format=fmt))
        after = sum((comments(t) for t in texts(root).values()), Counter())
        assert after == before, (steps, before - after)


def test_a_carried_comment_sits_on_the_line_before_the_new_assignment(tmp_path):
    root = tmp_path / "record_call"
    shutil.copytree(TREES / "record_call", root)
    runner = root / RUNNER
    runner.write_text(runner.read_text().replace(RECORD_CALL, RECORD_CALL_COMMENTED, 1))
    write_plan(refactor(root))
    lines = (root / TARGET).read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if "# why: the scheduler reads it" in ln)
    assert lines[at].strip() == "# why: the scheduler reads it"
    assert lines[at + 1].strip() == "# which string the table gives"
    assert lines[at + 2].strip() == "# inner"
    assert lines[at + 3].strip().startswith("resolved_kv_cache_dtype = TORCH_DTYPE_TO_KV_CACHE_STR[")
    assert lines[at].index("#") == lines[at + 3].index("resolved")
