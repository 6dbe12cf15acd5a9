"""The GitHub Actions job of docs/ci.md, run as written on a local repository.

The job is read from the YAML block of docs/ci.md (so the two cannot drift); its shell steps run in
order with bash the way Actions runs them (`bash --noprofile --norc -eo pipefail`), with the
GitHub context values replaced by a local repository's base and head, a recorder in place of
`gh`, and `$GITHUB_STEP_SUMMARY` a file. A step after a failed one runs only if its `if:` is
`!cancelled()`. Three pull requests: equivalent (passes), divergent (fails, error annotation
naming the commit), inconclusive (passes with a warning annotation).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.git_series import CHANGED_BRANCH, UNREACHABLE_BRANCH, codemod_commits, commit_edit, git, make_checkout

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGE = REPO_ROOT / "docs" / "ci.md"
NOT_RUN_HERE = {"install"}  # step ids that need the network (pip from PyPI and GitHub)
PR_NUMBER = "31147"
THIS_REPOSITORY = "sgl-project/sglang"
GH_RECORDER = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$GH_LOG"
for arg; do [ "$prev" = --body-file ] && cp "$arg" "$GH_LOG.body"; prev=$arg; done
"""


def readme_job() -> dict:
    block = re.search(r"```yaml\n(.*?)```", PAGE.read_text(), re.S).group(1)
    (job,) = yaml.safe_load(block)["jobs"].values()
    return job


def substitute(text: str, context: dict[str, str]) -> str:
    def value(match):
        expression = match.group(1).strip()
        assert expression in context, f"the test does not know the job's context value {expression!r}"
        return context[expression]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


@dataclass
class JobRun:
    passed: bool
    output: str = ""
    steps: list[str] = field(default_factory=list)  # names of the steps that ran


def run_job(repo: Path, base: str, head: str, tmp_path: Path) -> JobRun:
    job = readme_job()
    assert job["defaults"]["run"]["shell"] == "bash"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(GH_RECORDER)
    (bin_dir / "gh").chmod(stat.S_IRWXU)
    context = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR_NUMBER,
        "github.event.pull_request.head.repo.full_name": THIS_REPOSITORY,
        "github.repository": THIS_REPOSITORY,
        "github.token": "not-a-token",
    }
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GH_LOG": str(tmp_path / "gh.log"),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "PYTHONPATH": str(REPO_ROOT), "CI": "true"}
    result = JobRun(passed=True)
    for step in job["steps"]:
        if "run" not in step or step.get("id") in NOT_RUN_HERE:
            continue
        condition = step.get("if")
        assert condition in (None, "${{ !cancelled() }}"), f"the test cannot evaluate if: {condition}"
        if not result.passed and condition is None:
            continue
        script = tmp_path / "step.sh"
        script.write_text(substitute(step["run"], context))
        step_env = {**env, **{k: substitute(str(v), context) for k, v in step.get("env", {}).items()}}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=repo,
                              env=step_env, capture_output=True, text=True)
        result.output += proc.stdout + proc.stderr
        result.steps.append(step["name"])
        result.passed = result.passed and proc.returncode == 0
    return result


@pytest.fixture(scope="module")
def pull_requests(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A repository whose `main` gained a commit after the pull requests branched from it, and
    three pull requests: the codemod's four commits, then our divergent or unreachable edit."""
    pytest.importorskip("codemods.extract_kv_dtype")
    repo = make_checkout(tmp_path_factory.mktemp("ci") / "sglang", REPO_ROOT / "fixtures" / "trees" / "record_call")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-qb", "equivalent")
    codemod_commits(repo)
    heads = {"equivalent": git(repo, "rev-parse", "HEAD")}
    for name, edit in (("divergent", CHANGED_BRANCH), ("inconclusive", UNREACHABLE_BRANCH)):
        git(repo, "checkout", "-qb", name, heads["equivalent"])
        heads[name] = commit_edit(repo, edit)
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("the base branch moves on\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-qm", "Unrelated change on main")
    heads["base"] = git(repo, "rev-parse", "HEAD")
    return repo, heads


def test_the_readme_job_is_the_one_tested():
    job = readme_job()
    names = [step.get("id") for step in job["steps"] if "run" in step]
    assert names[:2] == ["install", "check"]
    assert "python -m equivalence --commits" in job["steps"][3]["run"]


def test_an_equivalent_pull_request_passes(pull_requests, tmp_path):
    repo, heads = pull_requests
    job = run_job(repo, heads["base"], heads["equivalent"], tmp_path)
    assert job.passed, job.output
    assert "equivalent: no commit of this pull request changes behaviour" in job.output
    assert "::error" not in job.output and "::warning" not in job.output
    report = (tmp_path / "gh.log.body").read_text()
    assert (tmp_path / "gh.log").read_text() == f"pr comment {PR_NUMBER} --body-file equivalence.md\n"
    assert report.startswith("## Equivalence check: **equivalent**")
    assert report.count("| equivalent |") == 4  # the four commits, not the base branch's own
    assert (tmp_path / "summary.md").read_text() == report


def test_a_divergent_pull_request_fails_and_names_the_commit(pull_requests, tmp_path):
    repo, heads = pull_requests
    job = run_job(repo, heads["base"], heads["divergent"], tmp_path)
    assert not job.passed
    short = heads["divergent"][:7]
    assert f"::error title=equivalence: divergent::Divergence introduced by {short} {CHANGED_BRANCH[2]}." in job.output
    assert job.steps[-1] == "Post the report on the pull request"  # runs after the failure
    assert f"**Divergence introduced by `{short}`" in (tmp_path / "gh.log.body").read_text()


def test_an_inconclusive_pull_request_warns_and_passes(pull_requests, tmp_path):
    repo, heads = pull_requests
    job = run_job(repo, heads["base"], heads["inconclusive"], tmp_path)
    assert job.passed, job.output
    assert ("::warning title=equivalence: inconclusive or not checked::equivalence: inconclusive: some branches "
            "were never run") in job.output
    assert "| inconclusive |" in (tmp_path / "gh.log.body").read_text()
