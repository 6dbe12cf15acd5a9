"""extract_method --no-wrapper rewrites the method's callers outside its class
(`codemods.extract_method.outside_callers`): `x.url(...)` -> `url_hook.url(x, ...)` where the
code says `x` is a ServerArgs, the file importing the target module; anything else is refused,
every place at once, and nothing is written."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codemods.core.errors import Conflicts
from codemods.extract_method import AlreadyApplied, MethodSpec, refactor, write_plan

TREE = Path(__file__).resolve().parent.parent / "fixtures" / "trees" / "method_outside_callers"
SERVER = "sglang/srt/entrypoints/http_server.py"
HOOK = "sglang/srt/arg_groups/url_hook.py"
SPEC = MethodSpec(class_name="ServerArgs", method_name="url", target_module="sglang.srt.arg_groups.url_hook",
                  pass_self="server_args", no_wrapper=True, positional=True)
PROBE = textwrap.dedent("""
    from sglang.srt.entrypoints.http_server import Launcher, health_url
    from sglang.srt.server_args import ServerArgs
    a = ServerArgs(host="h", port=1, ssl_certfile="c")
    print(health_url(a), Launcher(a).ping(2.0), Launcher(ServerArgs()).root(), hasattr(a, "url"))
""")


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "t"
    shutil.copytree(TREE, root)
    return root


def _probe(root: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, check=True).stdout


def test_callers_outside_the_class_call_the_function(tmp_path):
    root = _tree(tmp_path)
    before = _probe(root)
    plan = refactor(root, SPEC)
    assert any("3 call(s) in 1 file(s) outside ServerArgs now call url_hook.url" in m for m in plan.messages)
    assert [str(u.path).endswith(SERVER) for u in plan.broken_between_steps] == [True] * 3  # so never --commit
    write_plan(plan)
    server = (root / SERVER).read_text()
    assert "from sglang.srt.arg_groups import url_hook\n" in server
    assert 'return url_hook.url(server_args, path="/health")' in server
    assert 'url_hook.url(self.server_args, path="/ping")' in server
    assert "return url_hook.url(self.server_args)" in server
    assert ".url(" not in server.replace("url_hook.url(", "")
    args = (root / "sglang/srt/server_args.py").read_text()
    assert "def url" not in args
    assert "url_hook" not in args  # nothing there calls it: no import left behind
    assert any("no import of url_hook in server_args.py" in m for m in plan.messages)
    assert _probe(root) == before.replace("True\n", "False\n")  # the same values; no method left
    with pytest.raises(AlreadyApplied):
        refactor(root, SPEC)


def test_by_keyword_without_positional(tmp_path):
    root = _tree(tmp_path)
    write_plan(refactor(root, MethodSpec(**{**SPEC.__dict__, "positional": False})))
    assert 'url_hook.url(server_args=server_args, path="/health")' in (root / SERVER).read_text()


@pytest.mark.parametrize("caller, why", [
    ("def fetch(args):\n    return args.url()\n", "the code does not say what args is"),
    ("from sglang.srt.server_args import ServerArgs\n\n\ndef pick(a: ServerArgs):\n    return a.url\n",
     "other than by calling it"),
    ("from sglang.srt.server_args import ServerArgs\n\nurl_hook = None\n\n\ndef f(a: ServerArgs):\n"
     "    return a.url()\n", "binds url_hook"),
])
def test_what_cannot_be_rewritten_is_refused_and_nothing_written(tmp_path, caller, why):
    root = _tree(tmp_path)
    (root / "sglang/srt/client.py").write_text(caller)
    files = {p: p.read_bytes() for p in root.rglob("*.py")}
    with pytest.raises(Conflicts) as refused:
        refactor(root, SPEC)
    places = [loc for loc in refused.value.locations if str(loc.path).endswith("client.py")]
    assert places and why in places[0].what, refused.value.locations
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == files and not (root / HOOK).exists()


def test_without_pass_self_the_callers_are_refused(tmp_path):
    with pytest.raises(Conflicts) as refused:
        refactor(_tree(tmp_path), MethodSpec(**{**SPEC.__dict__, "pass_self": None}))
    assert len(refused.value.locations) == 3
    assert all("--pass-self NAME" in loc.what for loc in refused.value.locations)


def test_with_a_wrapper_the_callers_are_left_alone(tmp_path):
    root = _tree(tmp_path)
    write_plan(refactor(root, MethodSpec(**{**SPEC.__dict__, "no_wrapper": False})))
    assert (root / SERVER).read_text() == (TREE / SERVER).read_text()


def test_the_proof_says_why_it_cannot_read_a_function_only_other_modules_call(tmp_path):
    """No method, and no call of the function left in the class: the proof has no call to read the
    arguments' mapping off, and says so (not proven), rather than that nothing was extracted."""
    from pysource.extraction import LocateError, locate

    root = _tree(tmp_path)
    write_plan(refactor(root, SPEC))
    with pytest.raises(LocateError, match=r"server_args\.py:\d+: ServerArgs has no method url and calls no function "
                                          r"url, which sglang/srt/arg_groups/url_hook\.py define\(s\) at module "
                                          r"level: if the method went there, not proven"):
        locate(root, "sglang/srt/server_args.py", "ServerArgs", "url")
