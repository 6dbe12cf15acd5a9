"""The GitHub Actions workflow of docs/ci.md, run as written on a local repository, and the
properties that keep the pull request's code away from a write token.

The workflow is read from the YAML block of docs/ci.md (so the two cannot drift). Its two jobs
run the way Actions runs them: the check job's shell steps in order in the repository, with bash
(`bash --noprofile --norc -eo pipefail`), the GitHub context values replaced by a local
repository's base and head and `$GITHUB_STEP_SUMMARY` a file; a step after a failed one runs only
if its `if:` is `!cancelled()`. Its artifact (the files its upload step names) is what the
comment job gets: that job runs in a folder holding only the artifact's files, never the
repository, with a recorder in place of `gh`. Pull requests: equivalent (passes), divergent
(fails, error annotation naming the commit), inconclusive (passes with a warning annotation),
and one from a fork (no comment).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
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
ALWAYS = "${{ !cancelled() }}"
GH_RECORDER = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$GH_LOG"
for arg; do [ "$prev" = --body-file ] && cp "$arg" "$GH_LOG.body"; prev=$arg; done
"""


def workflow() -> dict:
    block = re.search(r"```yaml\n(.*?)```", PAGE.read_text(), re.S).group(1)
    return yaml.safe_load(block)


def jobs() -> tuple[dict, dict]:
    """The check job and the comment job."""
    found = workflow()["jobs"]
    assert set(found) == {"equivalence", "comment"}
    return found["equivalence"], found["comment"]


def substitute(text: str, context: dict[str, str]) -> str:
    def value(match):
        expression = match.group(1).strip()
        assert expression in context, f"the test does not know the job's context value {expression!r}"
        return context[expression]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def uses(step: dict, action: str) -> bool:
    return step.get("uses", "").split("@")[0] == action


@dataclass
class JobRun:
    passed: bool
    output: str = ""
    steps: list[str] = field(default_factory=list)  # names of the steps that ran


def run_steps(job: dict, cwd: Path, env: dict, context: dict, tmp_path: Path) -> JobRun:
    assert job["defaults"]["run"]["shell"] == "bash"
    result = JobRun(passed=True)
    for step in job["steps"]:
        if "run" not in step or step.get("id") in NOT_RUN_HERE:
            continue
        condition = step.get("if")
        assert condition in (None, ALWAYS), f"the test cannot evaluate if: {condition}"
        if not result.passed and condition is None:
            continue
        script = tmp_path / "step.sh"
        script.write_text(substitute(step["run"], context))
        step_env = {**env, **{k: substitute(str(v), context) for k, v in step.get("env", {}).items()}}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                              env=step_env, capture_output=True, text=True)
        result.output += proc.stdout + proc.stderr
        result.steps.append(step["name"])
        result.passed = result.passed and proc.returncode == 0
    return result


def run_workflow(repo: Path, base: str, head: str, tmp_path: Path, head_repo: str = THIS_REPOSITORY
                 ) -> tuple[JobRun, JobRun]:
    """The check job in `repo`, then the comment job in a folder holding only the artifact."""
    check, comment = jobs()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(GH_RECORDER)
    (bin_dir / "gh").chmod(stat.S_IRWXU)
    context = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event.pull_request.number": PR_NUMBER,
        "github.event.pull_request.head.repo.full_name": head_repo,
        "github.repository": THIS_REPOSITORY,
        "github.token": "not-a-token",
    }
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GH_LOG": str(tmp_path / "gh.log"),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "PYTHONPATH": str(REPO_ROOT), "CI": "true"}
    checked = run_steps(check, repo, env, context, tmp_path)

    (upload,) = [s for s in check["steps"] if uses(s, "actions/upload-artifact")]
    assert upload.get("if") == ALWAYS  # uploaded after a failed check too
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    for name in glob.glob(upload["with"]["path"], root_dir=repo):
        shutil.copy(repo / name, artifact / name)

    assert comment.get("if") == ALWAYS  # runs whatever the check's verdict
    (download,) = [s for s in comment["steps"] if uses(s, "actions/download-artifact")]
    assert download["with"]["name"] == upload["with"]["name"]
    posted = run_steps(comment, artifact, env, context, tmp_path)
    return checked, posted


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


def clean(repo: Path) -> None:
    """The repository as the check job found it (each test's job writes its reports into it)."""
    for name in glob.glob("equivalence.*", root_dir=repo):
        (repo / name).unlink()


# --- what the workflow's text promises -----------------------------------------------------


def test_the_page_job_is_the_one_tested():
    check, _ = jobs()
    names = [step.get("id") for step in check["steps"] if "run" in step]
    assert names[:2] == ["install", "check"]
    (step,) = [s for s in check["steps"] if s.get("id") == "check"]
    assert "python -m equivalence --commits" in step["run"]


def test_pull_request_event_and_no_permission_by_default():
    flow = workflow()
    assert list(flow[True]) == ["pull_request"]  # YAML reads the key `on` as True
    assert "pull_request_target" not in yaml.safe_dump(flow)
    assert flow["permissions"] == {}


def test_the_check_job_runs_the_prs_code_without_a_write_token_or_credentials():
    check, _ = jobs()
    assert check["permissions"] == {"contents": "read"}
    (checkout,) = [s for s in check["steps"] if uses(s, "actions/checkout")]
    assert checkout["with"]["persist-credentials"] is False
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    text = yaml.safe_dump(check)
    assert "github.token" not in text and "secrets." not in text and "GH_TOKEN" not in text
    assert not any("gh " in s.get("run", "") for s in check["steps"])


def test_the_comment_job_runs_none_of_the_prs_code():
    _, comment = jobs()
    assert comment["permissions"] == {"pull-requests": "write"}
    assert comment["needs"] == "equivalence"
    for step in comment["steps"]:
        assert not uses(step, "actions/checkout") and not uses(step, "actions/setup-python"), step
        assert "uses" not in step or uses(step, "actions/download-artifact"), step
        words = set(re.findall(r"[\w.-]+", step.get("run", "")))
        assert not words & {"python", "python3", "pip", "git", "bash", "sh", "source", "eval", "make"}, step
    assert any("gh pr comment" in s.get("run", "") for s in comment["steps"])


# --- the jobs, run ---------------------------------------------------------------------------


def test_an_equivalent_pull_request_passes(pull_requests, tmp_path):
    repo, heads = pull_requests
    clean(repo)
    check, comment = run_workflow(repo, heads["base"], heads["equivalent"], tmp_path)
    assert check.passed, check.output
    assert comment.passed, comment.output
    assert "equivalent: no commit of this pull request changes behaviour" in check.output
    assert "::error" not in check.output and "::warning" not in check.output
    report = (tmp_path / "gh.log.body").read_text()
    assert (tmp_path / "gh.log").read_text() == f"pr comment {PR_NUMBER} --body-file equivalence.md\n"
    assert report.startswith("## Equivalence check: **equivalent**")
    assert report.count("| equivalent |") == 4  # the four commits, not the base branch's own
    assert (tmp_path / "summary.md").read_text() == report
    assert sorted(p.name for p in (tmp_path / "artifact").iterdir()) == [
        "equivalence.err", "equivalence.json", "equivalence.md", "equivalence.txt"]


def test_a_divergent_pull_request_fails_and_names_the_commit(pull_requests, tmp_path):
    repo, heads = pull_requests
    clean(repo)
    check, comment = run_workflow(repo, heads["base"], heads["divergent"], tmp_path)
    assert not check.passed
    short = heads["divergent"][:7]
    assert f"::error title=equivalence: divergent::Divergence introduced by {short} {CHANGED_BRANCH[2]}." in check.output
    assert comment.passed and comment.steps == ["Post the report on the pull request"]  # after the failure
    assert f"**Divergence introduced by `{short}`" in (tmp_path / "gh.log.body").read_text()


def test_an_inconclusive_pull_request_warns_and_passes(pull_requests, tmp_path):
    repo, heads = pull_requests
    clean(repo)
    check, comment = run_workflow(repo, heads["base"], heads["inconclusive"], tmp_path)
    assert check.passed, check.output
    assert ("::warning title=equivalence: inconclusive or not checked::equivalence: inconclusive: some branches "
            "were never run") in check.output
    assert "| inconclusive |" in (tmp_path / "gh.log.body").read_text()


def test_a_pull_request_from_a_fork_gets_no_comment(pull_requests, tmp_path):
    repo, heads = pull_requests
    clean(repo)
    check, comment = run_workflow(repo, heads["base"], heads["equivalent"], tmp_path, head_repo="someone/sglang")
    assert check.passed and comment.passed, check.output + comment.output
    assert "a pull request from a fork gets a read-only token" in comment.output
    assert not (tmp_path / "gh.log").exists()
    assert (tmp_path / "summary.md").read_text().startswith("## Equivalence check: **equivalent**")
