"""The report says what it compared (JSON `compared`, the Markdown and terminal heads): the trees
as typed, the tree the codemod ran on, or the git checkout and its revisions; with the sglang
release of each version where its sglang/version.py says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from equivalence.cli import main
from equivalence.versions.codemod_steps import ONE_SHOT
from equivalence.versions.compared import sglang_version
from tests.git_series import codemod_commits, make_checkout
from tests.releases import release_root

TREES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"
WHEEL_VERSION = '''try:
    from sglang._version import __version__, __version_tuple__
except ImportError:
    __version__ = "0.0.0.dev0"
'''


def run(args, tmp_path):
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([*args, "--json", str(out), "--markdown", str(md), "--examples", "20"])
    return code, json.loads(out.read_text()), md.read_text()


def released(tmp_path: Path, name: str, version: str) -> Path:
    """A copy of fixture `name` whose sglang/version.py binds `version`."""
    tree = tmp_path / f"{name}-{version}"
    shutil.copytree(TREES / name, tree)
    (tree / "sglang" / "version.py").write_text(f'__version__ = "{version}"\n')
    return tree


@pytest.mark.parametrize("files, expected", [
    ({"sglang/version.py": '__version__ = "0.5.6.post2"\n'}, "0.5.6.post2"),
    ({"sglang/version.py": WHEEL_VERSION,
      "sglang/_version.py": "__version__ = version = '0.5.15.post1'\n"}, "0.5.15.post1"),
    ({"sglang/version.py": WHEEL_VERSION}, None),  # a git checkout: the version is only known once built
    ({}, None),
], ids=["literal", "wheel", "checkout", "none"])
def test_the_sglang_version_is_read_where_version_py_binds_it(files, expected):
    assert sglang_version(files.get) == expected


def test_two_trees_are_named_with_their_release(tmp_path, capsys):
    before, after = TREES / "record_call", released(tmp_path, "record_call_after", "9.9.9")
    code, report, markdown = run([str(before), str(after)], tmp_path)
    assert code == 0
    assert report["compared"] == {"mode": "trees", "versions": [
        {"label": str(before), "path": str(before)},
        {"label": str(after), "path": str(after), "sglang_version": "9.9.9"}]}
    line = f"Compared `{before}` with `{after}` (sglang 9.9.9)."
    assert markdown.startswith(f"## Equivalence check: **equivalent**\n\n{line}\n\n| before |")
    assert capsys.readouterr().out.splitlines()[0] == line.replace("`", "")


def test_steps_name_the_tree_the_codemod_ran_on_and_each_version(tmp_path):
    tree = released(tmp_path, "record_call", "1.2.3")
    code, report, markdown = run(["--steps", str(tree), "--fix", "kv-str-lookup"], tmp_path)
    assert code == 0
    compared = report["compared"]
    assert {k: v for k, v in compared.items() if k != "versions"} == {
        "mode": "steps", "path": str(tree), "codemod": "codemods.extract_kv_dtype", "fixes": ["kv-str-lookup"]}
    assert compared["versions"] == [
        {"label": label, **({"path": str(tree)} if label == "original" else {}), "sglang_version": "1.2.3"}
        for label in ("original", "step 1", "step 2", "step 3", "step 4", ONE_SHOT, "+ fix kv-str-lookup")]
    assert (f"Compared `{tree}` (sglang 1.2.3) with the output of codemods.extract_kv_dtype on it, step by step "
            "and in one run, then its fixes kv-str-lookup.") in markdown.split("\n| before |")[0]


def test_method_steps_name_extract_method(tmp_path):
    code, report, markdown = run(["--steps", str(TREES / "method_one_result"), "--method",
                                  "ModelRunner.bind_threads", "--to", "sglang.srt.utils.numa_utils"], tmp_path)
    assert report["compared"]["codemod"] == "codemods.extract_method" and report["compared"]["fixes"] == []
    assert "with the output of codemods.extract_method on it" in markdown


def test_git_revisions_name_the_checkout_and_its_release(tmp_path, capsys):
    pytest.importorskip("codemods.extract_kv_dtype")
    repo = make_checkout(tmp_path / "checkout", released(tmp_path, "record_call", "4.5.6"))
    codemod_commits(repo)
    code, report, markdown = run(["--git", "HEAD~4..HEAD", str(repo)], tmp_path)
    assert code == 0
    compared = report["compared"]
    assert (compared["mode"], compared["repository"], compared["range"]) == ("git", str(repo), "HEAD~4..HEAD")
    assert [v["revision"] for v in compared["versions"]] == [report["revisions"]["base"]["sha"],
                                                             report["revisions"]["checked"][0]["sha"]]
    assert {v["sglang_version"] for v in compared["versions"]} == {"4.5.6"}
    revisions, line = markdown.split("\n\n")[1:3]
    assert revisions.startswith("Revisions `HEAD~4..HEAD`: ")
    assert line == f"Compared revisions of the git checkout `{repo}` (sglang 4.5.6)."
    assert line.replace("`", "") in capsys.readouterr().out.splitlines()


def test_a_real_release_is_named_by_its_version(tmp_path):
    old, new = release_root("0.5.15.post1"), release_root("0.5.16")
    _, report, markdown = run([str(old), str(new), "--preset", "kv-dtype"], tmp_path)
    assert [v.get("sglang_version") for v in report["compared"]["versions"]] == ["0.5.15.post1", "0.5.16"]
    assert f"Compared `{old}` (sglang 0.5.15.post1) with `{new}` (sglang 0.5.16)." in markdown
