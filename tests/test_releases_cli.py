"""`python -m tests.releases`: the command that fetches releases explains itself and
rejects what is not a version before asking pip."""

import subprocess
import sys


def _run(*args):
    return subprocess.run([sys.executable, "-m", "tests.releases", *args],
                          capture_output=True, text=True)


def test_help_explains_and_downloads_nothing():
    done = _run("--help")
    assert done.returncode == 0
    assert "VERSION" in done.stdout and "cache:" in done.stdout


def test_an_option_or_a_non_version_is_a_usage_error():
    for arg in ("--bogus", "latest"):
        done = _run(arg)
        assert done.returncode == 2, arg
        assert "usage:" in done.stderr and "pip" not in done.stderr.lower(), arg
