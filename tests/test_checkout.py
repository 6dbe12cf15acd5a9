"""checkout.Checkout: which folder is the checkout, which Python files it holds, module names."""

from __future__ import annotations

import os
import subprocess

import pytest

from pysource import checkout as checkout_module
from pysource.checkout import Checkout
from tests.checkouts import git_init, write_tree

PACKAGE = {"python/sglang/__init__.py": "", "python/sglang/srt/__init__.py": "",
           "python/sglang/srt/model_executor/model_runner.py": "X = 1\n"}


def rel(checkout: Checkout) -> list[str]:
    return [str(p.relative_to(checkout.root)) for p in checkout.files()]


def test_files_leave_out_hidden_caches_virtualenvs_and_builds(tmp_path):
    write_tree(tmp_path, {
        **PACKAGE, "setup.py": "", "test/srt/test_a.py": "", "benchmark/b.py": "", "docs/conf.py": "",
        ".git/hooks/x.py": "", ".venv/lib/x.py": "", "test/.hidden/x.py": "", "test/.x.py": "",
        "python/sglang/__pycache__/x.py": "", "venv/pyvenv.cfg": "", "venv/lib/site.py": "",
        "env/lib/python3.11/site-packages/pkg/x.py": "", "python/build/lib/sglang/x.py": "",
        "dist/x.py": "", "docs/node_modules/x.py": "", "python/sglang/srt/build/__init__.py": "",
        "test/notes.txt": ""})
    (tmp_path / "test/link.py").symlink_to(tmp_path / "setup.py")
    checkout = Checkout(tmp_path, tmp_path / "python")
    assert rel(checkout) == ["benchmark/b.py", "docs/conf.py", "python/sglang/__init__.py",
                             "python/sglang/srt/__init__.py", "python/sglang/srt/build/__init__.py",
                             "python/sglang/srt/model_executor/model_runner.py", "setup.py", "test/srt/test_a.py"]


@pytest.mark.parametrize("typed", [".", "python", "python/sglang"])
def test_a_git_checkout_is_its_work_tree_whichever_folder_is_typed(tmp_path, typed):
    write_tree(tmp_path, {**PACKAGE, "test/t.py": ""})
    git_init(tmp_path)
    checkout = Checkout.find(tmp_path / typed, tmp_path / "python")
    assert checkout.root == tmp_path.resolve()
    assert "test/t.py" in rel(checkout)


def test_outside_git_the_folder_typed_is_the_checkout_and_git_is_not_run(tmp_path, monkeypatch):
    def no_git(*args, **kwargs):
        raise AssertionError("git run outside a work tree")

    monkeypatch.setattr(subprocess, "run", no_git)
    write_tree(tmp_path, {"wheel/sglang/__init__.py": "", "wheel/tools/t.py": ""})
    checkout = Checkout.find(tmp_path / "wheel", tmp_path / "wheel")
    assert checkout.root == (tmp_path / "wheel").resolve()
    assert rel(checkout) == ["sglang/__init__.py", "tools/t.py"]
    package_folder = Checkout.find(tmp_path / "wheel/sglang", tmp_path / "wheel")
    assert rel(package_folder) == ["__init__.py"]


def test_a_copy_of_the_package_inside_another_repository_is_not_that_repository(tmp_path):
    write_tree(tmp_path, {"fixtures/trees/t/sglang/__init__.py": "", "tests/test_other.py": ""})
    git_init(tmp_path)
    checkout = Checkout.find(tmp_path / "fixtures/trees/t", tmp_path / "fixtures/trees/t")
    assert checkout.root == (tmp_path / "fixtures/trees/t").resolve()


def test_a_failing_git_means_no_work_tree(tmp_path, monkeypatch):
    write_tree(tmp_path, {**PACKAGE, ".git/HEAD": "not a repository\n"})
    checkout = Checkout.find(tmp_path / "python", tmp_path / "python")
    assert checkout.root == (tmp_path / "python").resolve()


def test_module_names(tmp_path):
    write_tree(tmp_path, PACKAGE)
    checkout = Checkout(tmp_path, tmp_path / "python")
    runner = tmp_path / "python/sglang/srt/model_executor/model_runner.py"
    assert checkout.module_of(runner) == "sglang.srt.model_executor.model_runner"
    assert checkout.package_of(runner) == "sglang.srt.model_executor"
    assert checkout.module_of(tmp_path / "python/sglang/srt/__init__.py") == "sglang.srt"
    assert checkout.package_of(tmp_path / "python/sglang/srt/__init__.py") == "sglang.srt"
    assert checkout.module_of(tmp_path / "test/t.py") is None
    assert set(checkout.modules()) == {"sglang", "sglang.srt", "sglang.srt.model_executor.model_runner"}


def test_select_reads_each_file_once_and_yields_those_that_pass(tmp_path, monkeypatch):
    write_tree(tmp_path, {**PACKAGE, "test/a.py": "needle\n", "test/b.py": "hay\n"})
    checkout = Checkout(tmp_path, tmp_path / "python")
    opened = []
    real_open = checkout_module.os.open
    monkeypatch.setattr(checkout_module.os, "open", lambda p, *a: opened.append(p) or real_open(p, *a))
    assert [p.name for p in checkout.select(lambda data: b"needle" in data)] == ["a.py"]
    assert [p.name for p in checkout.select(lambda data: b"hay" in data)] == ["b.py"]
    assert sorted(opened) == sorted(str(p) for p in checkout.files())
    assert checkout.relative(tmp_path / "test/a.py") == os.path.join("test", "a.py")
