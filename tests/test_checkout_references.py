"""references.plan_references: every rewrite form (before -> after), what is left alone, and
every refusal listed with its file and line."""

from __future__ import annotations

import pytest

from codemods.core.errors import Conflicts, Location
from codemods.core.formatting import Style
from codemods.checkout.references import Move, plan_references, update_references
from tests.checkouts import NEW, OLD, make_checkout

TABLE = "TORCH_DTYPE_TO_KV_CACHE_STR"
MOVE = Move(OLD, {TABLE: NEW})
STYLE = Style()

# id: (file, before, after)
REWRITES = {
    "from-import": ("test/test_kv.py",
                    f"from {OLD} import {TABLE}\n\nX = {TABLE}\n",
                    f"from {NEW} import {TABLE}\n\nX = {TABLE}\n"),
    "from-import-split": ("test/test_kv.py",
                          f"from {OLD} import ModelRunner, {TABLE}\n",
                          f"from {OLD} import ModelRunner\nfrom {NEW} import {TABLE}\n"),
    "from-import-split-moved-first": ("test/test_kv.py",
                                      f"from {OLD} import {TABLE}, ModelRunner\n",
                                      f"from {OLD} import ModelRunner\nfrom {NEW} import {TABLE}\n"),
    "from-import-as": ("benchmark/bench_kv.py",
                       f"import os\nfrom {OLD} import {TABLE} as KV_STR\n",
                       f"import os\nfrom {NEW} import {TABLE} as KV_STR\n"),
    "parenthesised": ("scripts/dump.py",
                      f"from {OLD} import (\n    ModelRunner,\n    {TABLE},\n    compute,\n)\n",
                      f"from {OLD} import ModelRunner, compute\nfrom {NEW} import {TABLE}\n"),
    "trailing-comment": ("test/test_kv.py",  # isort wraps the long line, the comment kept after `(`
                         f"from {OLD} import {TABLE}  # noqa: F401\n",
                         f"from {NEW} import (  # noqa: F401\n    {TABLE},\n)\n"),
    "comment-inside-parentheses": ("test/test_kv.py",
                                   f"from {OLD} import (\n    ModelRunner,  # the runner\n    {TABLE},\n)\n",
                                   f"from {OLD} import ModelRunner  # the runner\nfrom {NEW} import {TABLE}\n"),
    "relative-same-package": ("python/sglang/srt/model_executor/user.py",
                              f"from .model_runner import ModelRunner, {TABLE}\n",
                              f"from .model_runner import ModelRunner\nfrom {NEW} import {TABLE}\n"),
    "relative-two-dots": ("python/sglang/srt/layers/user.py",
                          f"from ..model_executor.model_runner import {TABLE}\n",
                          f"from {NEW} import {TABLE}\n"),
    "import-in-function": ("test/test_kv.py",
                           f"def f():\n    from {OLD} import ModelRunner, {TABLE}\n\n    return {TABLE}\n",
                           f"def f():\n    from {OLD} import ModelRunner\n    from {NEW} import {TABLE}\n\n"
                           f"    return {TABLE}\n"),
    "module-attribute": ("test/test_kv.py",
                         f"from sglang.srt.model_executor import model_runner\n\nX = model_runner.{TABLE}\n",
                         f"from sglang.srt.model_executor import model_runner\nfrom sglang.srt.mem_cache import "
                         f"kv_cache_dtype\n\nX = kv_cache_dtype.{TABLE}\n"),
    "module-alias-attribute": ("test/test_kv.py",
                               f"import {OLD} as mr\n\nX = mr.{TABLE}[1]\n",
                               f"import {OLD} as mr\nfrom sglang.srt.mem_cache import kv_cache_dtype\n\n"
                               f"X = kv_cache_dtype.{TABLE}[1]\n"),
    "dotted-attribute": ("test/test_kv.py",
                         f"import {OLD}\n\n\ndef f():\n    return {OLD}.{TABLE}\n",
                         f"import {OLD}\nimport {NEW}\n\n\ndef f():\n    return {NEW}.{TABLE}\n"),
    "attribute-write": ("test/test_kv.py",
                        f"import {OLD} as mr\n\nmr.{TABLE} = {{}}\n",
                        f"import {OLD} as mr\nfrom sglang.srt.mem_cache import kv_cache_dtype\n\n"
                        f"kv_cache_dtype.{TABLE} = {{}}\n"),
    "alias-in-function": ("test/test_kv.py",
                          f"def f():\n    from sglang.srt.model_executor import model_runner as m\n\n"
                          f"    return m.{TABLE}\n",
                          f"def f():\n    from sglang.srt.model_executor import model_runner as m\n"
                          f"    from sglang.srt.mem_cache import kv_cache_dtype\n\n    return kv_cache_dtype.{TABLE}\n"),
    "new-module-already-imported": ("test/test_kv.py",
                                    f"from sglang.srt.mem_cache import kv_cache_dtype\nfrom sglang.srt."
                                    f"model_executor import model_runner\n\nX = model_runner.{TABLE}\n",
                                    f"from sglang.srt.mem_cache import kv_cache_dtype\nfrom sglang.srt."
                                    f"model_executor import model_runner\n\nX = kv_cache_dtype.{TABLE}\n"),
    "mock-patch": ("test/test_kv.py",
                   f"from unittest import mock\n\nwith mock.patch(\"{OLD}.{TABLE}\", {{}}):\n    pass\n",
                   f"from unittest import mock\n\nwith mock.patch(\"{NEW}.{TABLE}\", {{}}):\n    pass\n"),
    "patch-decorator-single-quotes": ("test/test_kv.py",
                                      f"from unittest.mock import patch\n\n\n@patch('{OLD}.{TABLE}', {{}})\n"
                                      f"def test():\n    pass\n",
                                      f"from unittest.mock import patch\n\n\n@patch('{NEW}.{TABLE}', {{}})\n"
                                      f"def test():\n    pass\n"),
    "patch-inside-object": ("test/test_kv.py",
                            f"from unittest.mock import patch\n\np = patch(\"{OLD}.{TABLE}.get\")\n",
                            f"from unittest.mock import patch\n\np = patch(\"{NEW}.{TABLE}.get\")\n"),
    "monkeypatch-string": ("test/test_kv.py",
                           f"def test(monkeypatch):\n    monkeypatch.setattr(\"{OLD}.{TABLE}\", {{}})\n",
                           f"def test(monkeypatch):\n    monkeypatch.setattr(\"{NEW}.{TABLE}\", {{}})\n"),
    "patch-object": ("test/test_kv.py",
                     f"from unittest import mock\n\nfrom sglang.srt.model_executor import model_runner\n\n"
                     f"mock.patch.object(model_runner, \"{TABLE}\", {{}})\n",
                     f"from unittest import mock\n\nfrom sglang.srt.model_executor import model_runner\n"
                     f"from sglang.srt.mem_cache import kv_cache_dtype\n\n"
                     f"mock.patch.object(kv_cache_dtype, \"{TABLE}\", {{}})\n"),
    "monkeypatch-object": ("test/test_kv.py",
                           f"import {OLD} as mr\n\n\ndef test(monkeypatch):\n"
                           f"    monkeypatch.setattr(mr, \"{TABLE}\", {{}})\n",
                           f"import {OLD} as mr\nfrom sglang.srt.mem_cache import kv_cache_dtype\n\n\n"
                           f"def test(monkeypatch):\n    monkeypatch.setattr(kv_cache_dtype, \"{TABLE}\", {{}})\n"),
}

# id: file text that mentions the table and the runner but holds no reference to update
LEFT_ALONE = {
    "comment": f"# model_runner.{TABLE} used to live in {OLD}\nX = 1\n",
    "docstring": f'"""See model_runner.{TABLE} and {OLD}.{TABLE} for the names."""\n',
    "other-module-attribute": f"from sglang.srt.model_executor import model_runner\nfrom other import tables\n\n"
                              f"X = model_runner.ModelRunner\nY = tables.{TABLE}\n",
    "parameter-named-like-the-module": f"def f(model_runner):\n    return model_runner.{TABLE}\n",
    "other-string": f"NAME = \"{OLD}.ModelRunner\"\nOTHER = \"{OLD}.{TABLE}S\"\n",
}

# id: (file, text, [(line, words in the message)])
REFUSALS = {
    "name-taken": ("test/test_kv.py",
                   f"from sglang.srt.model_executor import model_runner\n\nkv_cache_dtype = 'fp8'\n"
                   f"X = model_runner.{TABLE}\n",
                   [(4, "the name 'kv_cache_dtype' is taken")]),
    "statements-on-one-line": ("test/test_kv.py", f"import os; from {OLD} import {TABLE}\n",
                               [(1, "line holding other statements")]),
    "star-import": ("test/test_kv.py", f"from {OLD} import *\n\nX = {TABLE}\n",
                    [(1, f"import *` will no longer provide {TABLE}")]),
    "ambiguous-module-name": ("test/test_kv.py",
                              f"from sglang.srt.model_executor import model_runner\n\n\n"
                              f"def f(model_runner):\n    return model_runner.{TABLE}\n",
                              [(5, "may be the module")]),
    "patch-multiple": ("test/test_kv.py",
                       f"from unittest import mock\n\nimport {OLD} as mr\n\n"
                       f"mock.patch.multiple(mr, {TABLE}={{}})\n",
                       [(5, "by keyword")]),
    "f-string": ("test/test_kv.py", f"NAME = 'x'\nT = f\"{OLD}.{TABLE}{{NAME}}\"\n", [(2, "f-string")]),
    "implicit-concatenation": ("test/test_kv.py",
                               f"from unittest import mock\n\nmock.patch(\n    \"{OLD}.\"\n    \"{TABLE}\"\n)\n",
                               [(4, "spelled in a way")]),
    "syntax-error": ("scripts/old.py", f"print 'model_runner.{TABLE}'\n", [(1, "cannot parse the file")]),
}


def plan(tmp_path, files, move=MOVE):
    checkout = make_checkout(tmp_path, files)
    return checkout, *plan_references(checkout, move, STYLE)


@pytest.mark.parametrize("case", REWRITES)
def test_rewrites(tmp_path, case):
    rel, before, after = REWRITES[case]
    checkout, changes, conflicts = plan(tmp_path, {rel: before})
    assert conflicts == []
    assert changes == {checkout.root / rel: (before, after)}


@pytest.mark.parametrize("case", REWRITES)
def test_a_second_run_on_the_output_changes_nothing(tmp_path, case):
    rel, _, after = REWRITES[case]
    _, changes, conflicts = plan(tmp_path, {rel: after})
    assert (changes, conflicts) == ({}, [])


@pytest.mark.parametrize("case", LEFT_ALONE)
def test_left_alone(tmp_path, case):
    _, changes, conflicts = plan(tmp_path, {"test/test_kv.py": LEFT_ALONE[case]})
    assert (changes, conflicts) == ({}, [])


@pytest.mark.parametrize("case", REFUSALS)
def test_refusals_name_file_and_line(tmp_path, case):
    rel, text, expected = REFUSALS[case]
    checkout, changes, conflicts = plan(tmp_path, {rel: text})
    assert changes == {}
    assert [(c.path, c.line) for c in conflicts] == [(checkout.root / rel, line) for line, _ in expected]
    for conflict, (_, words) in zip(conflicts, expected):
        assert words in conflict.what


def test_every_conflict_of_every_file_is_listed_at_once(tmp_path):
    files = {f"test/test_{i}.py": text for i, (rel, text, _) in enumerate(REFUSALS.values())}
    files["test/test_fine.py"] = REWRITES["from-import"][1]
    checkout = make_checkout(tmp_path, files)
    with pytest.raises(Conflicts) as exc:
        update_references(checkout, MOVE, STYLE)
    listed = {(loc.path.name, loc.line) for loc in exc.value.locations}
    assert listed == {(f"test_{i}.py", line) for i, (_, _, expected) in enumerate(REFUSALS.values())
                      for line, _ in expected}
    message = str(exc.value)
    assert message.startswith(f"{len(listed)} places the refactoring cannot update:\n")
    assert all(f"{loc.path}:{loc.line}: " in message for loc in exc.value.locations)


def test_one_conflict_reads_as_one_refusal(tmp_path):
    rel, text, [(line, _)] = REFUSALS["star-import"]
    checkout = make_checkout(tmp_path, {rel: text})
    with pytest.raises(Conflicts) as exc:
        update_references(checkout, MOVE, STYLE)
    assert str(exc.value).startswith(f"{checkout.root / rel}:{line}: `from {OLD} import *`")
    assert exc.value.exit_code == 3 and (exc.value.path, exc.value.line) == (checkout.root / rel, line)


BOUND_BACK = Move(OLD, {TABLE: NEW}, still_bound=frozenset({TABLE}))


@pytest.mark.parametrize("case", ["module-attribute", "dotted-attribute", "module-alias-attribute"])
def test_reads_through_a_module_that_imports_the_name_back_are_kept(tmp_path, case):
    rel, before, _ = REWRITES[case]
    _, changes, conflicts = plan(tmp_path, {rel: before}, BOUND_BACK)
    assert (changes, conflicts) == ({}, [])


def test_imports_of_a_name_bound_back_still_go_to_its_new_home(tmp_path):
    rel, before, after = REWRITES["from-import-split"]
    checkout, changes, conflicts = plan(tmp_path, {rel: before}, BOUND_BACK)
    assert (changes, conflicts) == ({checkout.root / rel: (before, after)}, [])


@pytest.mark.parametrize("case", ["mock-patch", "patch-object", "monkeypatch-object", "attribute-write"])
def test_patching_a_name_bound_in_both_modules_is_refused(tmp_path, case):
    rel, before, _ = REWRITES[case]
    checkout, changes, conflicts = plan(tmp_path, {rel: before}, BOUND_BACK)
    assert changes == {}
    assert [c.path for c in conflicts] == [checkout.root / rel]
    assert "bound in both" in conflicts[0].what


def test_names_going_to_different_modules_are_split_by_module(tmp_path):
    move = Move(OLD, {TABLE: NEW, "helper": "sglang.srt.utils.common"})
    rel = "test/test_kv.py"
    _, changes, _ = plan(tmp_path, {rel: f"from {OLD} import ModelRunner, helper, {TABLE}\n"}, move)
    assert changes[tmp_path.resolve() / rel][1] == (
        f"from {OLD} import ModelRunner\nfrom sglang.srt.utils.common import helper\nfrom {NEW} import {TABLE}\n")


def test_the_extraction_s_own_files_are_skipped(tmp_path):
    rel, before, _ = REWRITES["from-import"]
    checkout = make_checkout(tmp_path, {rel: before})
    assert plan_references(checkout, MOVE, STYLE, skip=[checkout.root / rel]) == ({}, [])


def test_conflict_locations_sort_by_file_then_line():
    a, b = Location(__file__, 9, "x"), Location(__file__, 10, "x")
    assert Conflicts([b, a]).locations == [a, b]
