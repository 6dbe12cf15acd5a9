"""PATH -> the folder holding the package: the three accepted layouts, nothing else (shared
by the codemod and the harness)."""

from __future__ import annotations

import shutil

import pytest

from pysource.layout import NotASourceTree, find_root
from tests.codemod_expected import RUNNER, TREES


@pytest.fixture
def wheel(tmp_path):
    shutil.copytree(TREES / "record_call", tmp_path / "wheel")
    (tmp_path / "wheel" / "docs").mkdir()
    return tmp_path / "wheel"


def test_the_three_layouts(tmp_path, wheel):
    assert find_root(wheel, str(RUNNER)).how == "a folder holding the sglang package"
    assert find_root(wheel / "sglang", str(RUNNER)).root == wheel.resolve()
    assert find_root(wheel / "sglang", str(RUNNER)).how == "the sglang package folder"
    shutil.copytree(wheel, tmp_path / "checkout" / "python")
    found = find_root(tmp_path / "checkout", str(RUNNER))
    assert found.root == (tmp_path / "checkout" / "python").resolve() and "checkout" in found.how


@pytest.mark.parametrize("sub", ["docs", "sglang/srt"])
def test_an_unrelated_or_deeper_folder_is_not_walked_up_from(wheel, sub):
    with pytest.raises(NotASourceTree) as exc:
        find_root(wheel / sub, str(RUNNER))
    message = str(exc.value)
    assert "not an sglang tree" in message
    assert str(wheel / sub / RUNNER) in message and str(wheel / sub / "python" / RUNNER) in message


def test_the_codemod_refuses_a_subfolder_and_says_which_layout_it_found(wheel, capsys):
    from codemods.extract_kv_dtype.__main__ import main

    assert main([str(wheel / "docs"), "--dry-run"]) == 2
    assert "not an sglang tree: looked for" in capsys.readouterr().err
    assert main([str(wheel / "sglang"), "--dry-run"]) == 0
    assert "in the sglang package folder" in capsys.readouterr().err.splitlines()[0]
