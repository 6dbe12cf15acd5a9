"""`--commits` / `--git` on git checkouts made from release 0.5.15.post1 (`python/sglang/...`)
with a codemod's four commits (`extract_kv_dtype`, and `extract_method` checked with `--method`)
and a fifth commit of ours that changes a branch of the moved function. Each checkout is built
once for the module."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from equivalence.cli import main
from tests.git_series import CHANGED_BRANCH, codemod_commits, commit_edit, git, make_checkout, repository_state
from tests.releases import release_root

RELEASE = "0.5.15.post1"
METHOD = "ModelRunner.init_threads_binding"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    pytest.importorskip("codemods.extract_kv_dtype")
    repo = make_checkout(tmp_path_factory.mktemp("release") / "sglang", release_root(RELEASE))
    codemod_commits(repo)
    commit_edit(repo, CHANGED_BRANCH)
    return repo


def run(args, tmp_path):
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    code = main([*args, "--json", str(out), "--markdown", str(md)])
    return code, json.loads(out.read_text()), md.read_text()


def test_each_codemod_commit_is_equivalent_and_the_fifth_introduces_the_divergence(checkout, tmp_path):
    before = repository_state(checkout)
    code, report, markdown = run(["--commits", "HEAD~5..HEAD", str(checkout)], tmp_path)
    assert code == 1 and report["verdict"] == "divergent"
    log = [line.split("\t") for line in git(checkout, "log", "--reverse", "--format=%h\t%s", "HEAD~5..HEAD").splitlines()]
    checked = report["revisions"]["checked"]
    assert [(c["short"], c["subject"]) for c in checked] == [tuple(entry) for entry in log]
    assert [c["verdict"] for c in checked] == ["equivalent"] * 4 + ["divergent"]
    assert report["revisions"]["introduced_by"] == log[4][0] and report["revisions"]["also_divergent"] == []
    for pair in report["pairs"]:
        assert pair["configs"] > 8000
        for cov in pair["coverage"].values():
            assert cov["branches"] >= 20 and cov["hit"] == cov["branches"], cov["missed"]
    for pair in report["pairs"][:4]:
        assert pair["divergences"] == []
    assert {d["kind"] for d in report["pairs"][4]["divergences"]} >= {"different-kv-cache-dtype"}
    findings = {f["id"]: f for f in report["findings"]}
    assert set(findings) == {"fp4-fallback-not-auto", "kv-str-keyerror"}
    for finding in findings.values():  # the same in the original and the four steps (the fifth changes FP8)
        assert set(list(finding["per_version"].values())[:5]) == {finding["configs"]}, finding["per_version"]
    assert f"**Divergence introduced by `{log[4][0]}` {CHANGED_BRANCH[2]}.**" in markdown
    for short, subject in log:
        assert f"| `{short}` {subject} |" in markdown
    assert repository_state(checkout) == before


def test_git_gives_the_original_to_final_verdict(checkout, tmp_path):
    code, report, markdown = run(["--git", "HEAD~5..HEAD~1", str(checkout), "--examples", "50"], tmp_path)
    assert code == 0 and report["verdict"] == "equivalent"
    (pair,) = report["pairs"]
    assert pair["before"] == git(checkout, "rev-parse", "--short=7", "HEAD~5")
    assert {c["kind"] for c in pair["classified"]} == {"deferred-writes", "eager-read"}
    assert all(c["hit"] == c["branches"] for c in pair["coverage"].values())
    assert {f["id"] for f in report["findings"]} == {"fp4-fallback-not-auto", "kv-str-keyerror"}
    assert markdown.startswith("## Equivalence check: **equivalent**\n\nRevisions `HEAD~5..HEAD~1`: ")


@pytest.fixture(scope="module")
def method_checkout(tmp_path_factory):
    """The release with `codemods.extract_method`'s four commits for ModelRunner.init_threads_binding
    -> sglang.srt.utils.numa_utils, then a fifth commit of ours that changes a branch of the moved
    function."""
    extract_method = pytest.importorskip("codemods.extract_method.__main__")
    repo = make_checkout(tmp_path_factory.mktemp("release") / "sglang", release_root(RELEASE))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert extract_method.main([str(repo), METHOD, "sglang.srt.utils.numa_utils", "--commit"]) == 0
    numa = repo / "python" / "sglang" / "srt" / "utils" / "numa_utils.py"
    text = numa.read_text()
    assert text.count("if tp_size < n_numa_node:") == 1
    numa.write_text(text.replace("if tp_size < n_numa_node:", "if tp_size <= n_numa_node:"))
    git(repo, "commit", "-qam", "Warn also when tp_size equals the NUMA node count")
    return repo


def test_method_commits_of_extract_method_then_a_divergent_fifth(method_checkout, tmp_path):
    code, report, markdown = run(["--method", METHOD, "--commits", "HEAD~5..HEAD", str(method_checkout)], tmp_path)
    assert code == 1
    log = [line.split("\t") for line in git(method_checkout, "log", "--reverse", "--format=%h\t%s",
                                            "HEAD~5..HEAD").splitlines()]
    checked = report["revisions"]["checked"]
    assert [(c["short"], c["subject"]) for c in checked] == [tuple(entry) for entry in log]
    assert [c["verdict"] for c in checked] == ["equivalent"] * 4 + ["divergent"]
    assert report["revisions"]["introduced_by"] == log[4][0]
    for pair in report["pairs"][:4]:
        assert all(c["hit"] == c["branches"] for c in pair["coverage"].values())
        assert pair["static"]["residuals"] == []
    assert f"**Divergence introduced by `{log[4][0]}` Warn also when tp_size equals the NUMA node count.**" in markdown


def test_method_git_gives_the_original_to_final_verdict(method_checkout, tmp_path):
    code, report, _ = run(["--method", METHOD, "--git", "HEAD~5..HEAD~1", str(method_checkout)], tmp_path)
    assert code == 0 and report["verdict"] == "equivalent"
    assert report["pairs"][0]["shapes"] == {"before": "method", "after": "wrapper"}
