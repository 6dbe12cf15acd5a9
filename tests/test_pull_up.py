"""codemods.pull_up: before/after pairs of small modules, the fixture (`fixtures/pull_up/senders`:
behaviour kept, a second run exits 5, --dry-run and --commit), every refusal with its file and
line, and on 0.5.22 what it reproduces of upstream's 0.5.23 senders (skipped when that release
is not cached)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from codemods.core.errors import Conflicts
from codemods.pull_up import AlreadyApplied, BadInput, NoSuchMethod, PullUpSpec, refactor, write_plan
from tests.releases import cache_dir

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "pull_up" / "senders"
PKG = "sglang/srt/transfer"


def _tree(tmp_path: Path, **files: str) -> Path:
    """A package sglang/srt/transfer holding `files` (name -> dedented text)."""
    root = tmp_path / "t"
    (root / PKG).mkdir(parents=True)
    for init in ("sglang", "sglang/srt", PKG):
        (root / init / "__init__.py").write_text("")
    for name, text in files.items():
        (root / PKG / f"{name}.py").write_text(dedent(text))
    return root


def _apply(root: Path, base: str = "Base", members: str = "", init_tail: bool = False) -> None:
    spec = PullUpSpec(base=base, members=tuple(m for m in members.split(",") if m), init_tail=init_tail)
    write_plan(refactor(root, spec, format=False))


def _read(root: Path, name: str) -> str:
    return (root / PKG / f"{name}.py").read_text()


def _refused(root: Path, **kw) -> list[tuple[str, int, str]]:
    spec = PullUpSpec(base=kw.pop("base", "Base"), members=tuple(m for m in kw.pop("members", "").split(",") if m),
                      **kw)
    with pytest.raises(Conflicts) as exc:
        refactor(root, spec, format=False)
    return [(Path(p.path).name, p.line, p.what) for p in exc.value.locations]


BASE = """\
    class Base:
        def __init__(self, mgr):
            self.mgr = mgr
            self.done = None

        def clear(self):
            self.mgr = None
"""


def test_a_method_every_subclass_defines_alike_goes_up_and_leaves_them(tmp_path):
    subs = """\
    import logging

    from sglang.srt.transfer.base import Base

    logger = logging.getLogger(__name__)


    class One(Base):
        def poll(self) -> int:
            return self.mgr.check()  # one's

        def name(self):
            return "one"


    class Two(Base):
        # as One's
        def poll(self) -> int:
            return (
                self.mgr.check()
            )
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    _apply(root, members="poll")
    assert _read(root, "base") == dedent(BASE) + (
        "\n"
        "    def poll(self) -> int:\n"
        "        return self.mgr.check()  # one's\n")
    assert _read(root, "subs") == dedent("""\
    import logging

    from sglang.srt.transfer.base import Base

    logger = logging.getLogger(__name__)


    class One(Base):
        def name(self):
            return "one"


    class Two(Base):
        pass
    """)
    with pytest.raises(AlreadyApplied):
        _apply(root, members="poll")


def test_an_import_the_copy_needs_is_carried_into_the_base_module(tmp_path):
    subs = """\
    import time

    from .base import Base
    from .states import Poll


    class One(Base):
        def poll(self) -> Poll:
            return Poll(time.time())


    class Two(Base):
        def poll(self) -> Poll:
            return Poll(time.time())
    """
    root = _tree(tmp_path, base=BASE, subs=subs, states="class Poll:\n    def __init__(self, t):\n        self.t = t\n")
    _apply(root, members="poll")
    text = _read(root, "base")
    assert text.startswith("import time\n\nfrom sglang.srt.transfer.states import Poll\n")
    assert "    def poll(self) -> Poll:\n        return Poll(time.time())\n" in text
    assert "def poll" not in _read(root, "subs")


def test_the_statements_after_super_init_end_the_base_init(tmp_path):
    subs = """\
    import time
    from typing import Optional

    from sglang.srt.transfer.base import Base


    class One(Base):
        def __init__(self, mgr, extra):
            super().__init__(mgr)
            self.started = time.time()
            self.count = 0
            self.extra = extra


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.flag: Optional[bool] = None
            self.started = time.time()
            self.count = 0
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    _apply(root, init_tail=True)
    assert _read(root, "base") == dedent("""\
    import time


    class Base:
        def __init__(self, mgr):
            self.mgr = mgr
            self.done = None
            self.started = time.time()
            self.count = 0

        def clear(self):
            self.mgr = None
    """)
    assert _read(root, "subs") == dedent("""\
    import time
    from typing import Optional

    from sglang.srt.transfer.base import Base


    class One(Base):
        def __init__(self, mgr, extra):
            super().__init__(mgr)
            self.extra = extra


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.flag: Optional[bool] = None
    """)
    with pytest.raises(AlreadyApplied):
        _apply(root, init_tail=True)


def test_a_statement_past_one_that_does_not_commute_stays(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base


    class One(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.mgr.open()
            self.count = 0


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.count = 0
            self.mgr.open()
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    with pytest.raises(AlreadyApplied, match="share no statement"):
        _apply(root, init_tail=True)


# the fixture: both steps, behaviour kept

PROBE = """
import time
time.time = lambda: 1234.5
from sglang.srt.transfer.alpha import AlphaSender
from sglang.srt.transfer.beta import BetaSender
from sglang.srt.transfer.gamma import GammaSender, DeltaSender
from sglang.srt.transfer.base import Status
from sglang.srt.transfer import users

class Mgr:
    def __init__(self): self.log = []
    def register(self, room, s): self.log.append(("register", room, type(s).__name__, sorted(vars(s))))
    def forget(self, room): self.log.append(("forget", room))
    def trace(self, room): return f"trace-{room}"
    def check(self, room): return Status.WAITING if room % 2 else Status.DONE
    def check_consensus(self, room): return Status.SENDING

for cls in (AlphaSender, BetaSender, GammaSender, DeltaSender):
    for room in (1, 2):
        m = Mgr()
        s = cls(m, room)
        print(cls.__name__, sorted((k, v) for k, v in vars(s).items() if k != "mgr"), s.poll(), s.poll_consensus(), s.poll(), m.log)
        s.clear()
        print(m.log, [k.__name__ for k in cls.__mro__])
print(users.described(), users.pollers([AlphaSender(Mgr(), 3)]))
"""


def _probe(root: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def test_the_fixture_behaves_as_before_and_a_second_run_exits_5(tmp_path):
    root = tmp_path / "senders"
    shutil.copytree(FIXTURE, root)
    before = _probe(root)
    plan = refactor(root, PullUpSpec("CommonSender", ("poll", "poll_consensus"), init_tail=True), format=False)
    assert [s.number for s in plan.steps] == [1, 2]
    write_plan(plan)
    assert _probe(root) == before
    common = ast.parse((root / PKG / "common.py").read_text())
    cls = next(s for s in common.body if isinstance(s, ast.ClassDef) and s.name == "CommonSender")
    assert [s.name for s in cls.body if isinstance(s, ast.FunctionDef)] == [
        "__init__", "describe", "clear", "poll", "poll_consensus"]
    assert ast.unparse(cls.body[0].body[-1]) == "self.started = time.time()"
    for name in ("alpha", "beta", "gamma"):
        text = (root / PKG / f"{name}.py").read_text()
        assert "def poll(" not in text and "def poll_consensus(" not in text and "self.started" not in text
    run = subprocess.run([sys.executable, "-m", "codemods.pull_up", str(root), "CommonSender", "--members",
                          "poll,poll_consensus", "--init-tail"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 5, run.stderr
    assert "nothing to pull up" in run.stderr


def test_the_steps_one_by_one_give_what_they_give_together(tmp_path):
    together, apart = tmp_path / "a", tmp_path / "b"
    shutil.copytree(FIXTURE, together)
    shutil.copytree(FIXTURE, apart)
    write_plan(refactor(together, PullUpSpec("CommonSender", ("poll", "poll_consensus"), init_tail=True)))
    write_plan(refactor(apart, PullUpSpec("CommonSender", ("poll", "poll_consensus"))))
    write_plan(refactor(apart, PullUpSpec("CommonSender", (), init_tail=True)))
    for path in sorted((together / PKG).glob("*.py")):
        assert path.read_text() == (apart / PKG / path.name).read_text(), path.name


def test_dry_run_prints_the_diff_and_commit_makes_one_commit_per_step(tmp_path):
    root = tmp_path / "senders"
    shutil.copytree(FIXTURE, root)
    args = [sys.executable, "-m", "codemods.pull_up", str(root), "CommonSender", "--members", "poll,poll_consensus",
            "--init-tail"]
    dry = subprocess.run(args + ["--dry-run"], cwd=REPO, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "-    def poll(self) -> Status:" in dry.stdout and "+        self.started = time.time()" in dry.stdout
    assert "step 1: Pull up poll, poll_consensus into CommonSender" in dry.stderr
    assert "BetaSender.__init__: `self.started = time.time()` (line 12) commutes" in dry.stderr
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "before"], check=True)
    done = subprocess.run(args + ["--commit"], cwd=REPO, capture_output=True, text=True,
                          env={**__import__("os").environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    assert done.returncode == 0, done.stderr
    log = subprocess.run(git + ["log", "--format=%s"], capture_output=True, text=True, check=True).stdout.split("\n")
    assert log[:3] == ["Pull up the end of __init__ into CommonSender", "Pull up poll, poll_consensus into CommonSender",
                       "before"]


# refusals: file and line, every place at once

def test_a_copy_that_differs_and_a_subclass_lacking_the_member_are_refused(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base


    class One(Base):
        def poll(self):
            return self.mgr.check()


    class Two(Base):
        def poll(self):
            return self.mgr.check(1)


    class Three(Base):
        pass
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    assert _refused(root, members="poll") == [
        ("subs.py", 10, "Two.poll differs from One.poll (sglang/srt/transfer/subs.py:5): `return self.mgr.check()` / "
                        "`return self.mgr.check(1)`"),
        ("subs.py", 14, "Three does not define poll: after the pull-up it would inherit Base's copy instead of "
                        "nothing (an AttributeError)"),
    ]


def test_a_mixin_between_a_subclass_and_the_base_defining_the_member_is_refused(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base


    class Mixin:
        def poll(self):
            return "mixin"


    class One(Mixin, Base):
        def poll(self):
            return 1


    class Two(Base):
        def poll(self):
            return 1
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    assert _refused(root, members="poll") == [
        ("subs.py", 9, "One.poll would resolve otherwise: <the pulled-up copy> before, Mixin -> "
                       "<the pulled-up copy> after")]


def test_a_super_call_in_the_copy_that_would_find_another_method_is_refused(tmp_path):
    base = BASE + """\

        def poll(self):
            return "base"
    """
    subs = """\
    from sglang.srt.transfer.base import Base


    class One(Base):
        def poll(self):
            return super().poll() + "!"


    class Two(Base):
        def poll(self):
            return super().poll() + "!"
    """
    root = _tree(tmp_path, base=dedent(base), subs=subs)
    got = _refused(root, members="poll")
    assert ("subs.py", 6, "One.poll: super().poll would find nothing from Base instead of Base (on One, from One)") in got
    assert ("subs.py", 4, "One.poll would resolve otherwise: <the pulled-up copy> -> Base before, <the pulled-up "
                          "copy> after") in got


def test_the_base_built_read_or_used_as_a_value_is_refused(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base


    class One(Base):
        def poll(self):
            return 1


    class Two(Base):
        def poll(self):
            return 1
    """
    users = """\
    from typing import List, Optional, Type

    from sglang.srt.transfer.base import Base


    def fine(xs: List[Base], kind: Type[Base]) -> Optional[Base]:
        return xs[0] if isinstance(xs[0], (Base, int)) else Base.clear


    def built():
        return Base(None)


    def read(x):
        return Base.poll(x)


    KINDS = {"base": Base}
    """
    root = _tree(tmp_path, base=BASE, subs=subs, users=users)
    assert _refused(root, members="poll") == [
        ("users.py", 11, "Base is instantiated here: its instances would gain what is pulled up into it"),
        ("users.py", 15, "Base.poll is read here: it would read what is pulled up into Base"),
        ("users.py", 18, "Base is used as a value here: it may be instantiated, or what is pulled up read on it, "
                         "where the code cannot follow"),
    ]


def test_names_the_copy_reads_must_mean_the_same_in_the_base_module(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base

    LIMIT = 3


    def helper():
        return 2


    class One(Base):
        def poll(self):
            return helper() + LIMIT + self.__secret + clear


    class Two(Base):
        def poll(self):
            return helper() + LIMIT + self.__secret + clear
    """
    base = "clear = 0\n\n\n" + dedent(BASE)
    root = _tree(tmp_path, base=base, subs=subs)
    assert _refused(root, members="poll") == [
        ("subs.py", 11, "One.poll reads LIMIT, which sglang/srt/transfer/subs.py defines (line 3): "
                        "sglang/srt/transfer/base.py does not have it (move it there first)"),
        ("subs.py", 11, "One.poll reads clear, which cannot be told the same elsewhere: in "
                        "sglang/srt/transfer/subs.py, nothing at module level binds it"),
        ("subs.py", 11, "One.poll reads helper, which sglang/srt/transfer/subs.py defines (line 6): "
                        "sglang/srt/transfer/base.py does not have it (move it there first)"),
        ("subs.py", 12, "One.poll uses __secret, which Python mangles with the name of the class it is written in"),
        ("subs.py", 16, "Two.poll reads clear, which cannot be told the same elsewhere: in "
                        "sglang/srt/transfer/subs.py, nothing at module level binds it"),
        ("subs.py", 17, "Two.poll uses __secret, which Python mangles with the name of the class it is written in"),
    ]


def test_init_tail_refusals_each_with_its_line(tmp_path):
    base = """\
    class Base:
        def __init__(self, mgr):
            self.mgr = mgr
            if mgr is None:
                return
            self.ready = True
    """
    subs = """\
    from sglang.srt.transfer.base import Base


    class Mixin:
        def __init__(self, *args):
            super().__init__(*args)
            self.mixed = True


    class One(Mixin, Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.size = mgr.size


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.size = mgr.size


    class Three(Two):
        def __init__(self, mgr):
            if mgr:
                super().__init__(mgr)
    """
    root = _tree(tmp_path, base=base, subs=subs)
    assert _refused(root, init_tail=True) == [
        ("base.py", 5, "Base.__init__ returns here: a statement appended at its end would not run on this path, where "
                       "every subclass runs it after super().__init__(...)"),
        ("subs.py", 10, "Mixin comes between One and Base in One's order and defines __init__: the statements would "
                        "run before the end of its __init__"),
        ("subs.py", 13, "One.__init__: this statement reads mgr, a local or parameter of One.__init__: the base's "
                        "__init__ has its own"),
        ("subs.py", 19, "Two.__init__: this statement reads mgr, a local or parameter of Two.__init__: the base's "
                        "__init__ has its own"),
        ("subs.py", 25, "Three.__init__ calls super().__init__(...) inside a block, not as a statement of its body's "
                        "top level: the pulled-up statements would run otherwise than before"),
    ]


def test_bad_input_and_nothing_to_do(tmp_path):
    subs = """\
    from sglang.srt.transfer.base import Base


    class One(Base):
        def poll(self):
            return 1
    """
    root = _tree(tmp_path, base=BASE, subs=subs)
    with pytest.raises(NoSuchMethod):
        refactor(root, PullUpSpec("Base", ("absent",)), format=False)
    with pytest.raises(BadInput, match="did you mean poll"):
        refactor(root, PullUpSpec("Base", ("poll", "pol")), format=False)
    with pytest.raises(BadInput, match="nothing asked"):
        refactor(root, PullUpSpec("Base"), format=False)
    with pytest.raises(BadInput, match="no class of the checkout has One among its bases"):
        refactor(root, PullUpSpec("One", ("poll",)), format=False)
    run = subprocess.run([sys.executable, "-m", "codemods.pull_up", str(root), "Base", "--members", "absent"],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 4, run.stderr


# 0.5.22: upstream's 0.5.23 senders

RELEASE = "0.5.22"
COMMON = "sglang/srt/disaggregation/common/conn.py"
SENDERS = {"mooncake": "MooncakeKVSender", "mori": "MoriKVSender", "nixl": "NixlKVSender"}


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    return {s.name: s for s in ast.parse(path.read_text()).body if isinstance(s, ast.ClassDef)}


def _methods(cls: ast.ClassDef) -> list[str]:
    return [s.name for s in cls.body if isinstance(s, ast.FunctionDef)]


@pytest.mark.skipif(not (cache_dir() / RELEASE / "sglang").is_dir(), reason=f"{RELEASE} is not cached")
def test_0_5_22_the_senders_poll_goes_up_as_upstream_0_5_23(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    shutil.copytree(cache_dir() / RELEASE / "sglang", root / "sglang")
    spec = PullUpSpec("CommonKVSender", ("poll", "poll_pp_consensus"))
    write_plan(refactor(root, spec))
    base = _classes(root / COMMON)["CommonKVSender"]
    assert _methods(base)[-2:] == ["poll", "poll_pp_consensus"]
    for folder, name in SENDERS.items():
        assert not {"poll", "poll_pp_consensus"} & set(_methods(_classes(root / f"sglang/srt/disaggregation/{folder}/conn.py")[name]))
    with pytest.raises(AlreadyApplied):
        refactor(root, spec)
    # as upstream's: the same two methods, with the same code, in CommonKVSender
    upstream = cache_dir() / "0.5.23" / "sglang" / "srt/disaggregation/common/conn.py"
    if upstream.is_file():
        theirs = {s.name: ast.dump(s) for s in _classes(upstream)["CommonKVSender"].body
                  if isinstance(s, ast.FunctionDef)}
        ours = {s.name: ast.dump(s) for s in base.body if isinstance(s, ast.FunctionDef)}
        assert ours["poll"] == theirs["poll"] and ours["poll_pp_consensus"] == theirs["poll_pp_consensus"]
    # the end of __init__: CommonKVSender.__init__ returns early, where the senders set init_time after it
    with pytest.raises(Conflicts) as exc:
        refactor(root, PullUpSpec("CommonKVSender", (), init_tail=True))
    assert [p.line for p in exc.value.locations] == [1950, 1954, 1978]
    assert all("returns here" in p.what for p in exc.value.locations)
    # the receivers share nothing after super().__init__(...) (MooncakeKVReceiver sets init_time before it)
    with pytest.raises(AlreadyApplied, match="share no statement"):
        refactor(root, PullUpSpec("CommonKVReceiver", (), init_tail=True))


def test_subclasses_in_the_base_module_and_steps_that_need_their_option(tmp_path):
    base = """\
    import time


    class Base:
        def __init__(self, mgr):
            self.mgr = mgr


    class One(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.t = time.time()

        def poll(self):
            return 1


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.t = time.time()

        def poll(self):
            return 1
    """
    root = _tree(tmp_path, base=base)
    with pytest.raises(BadInput, match="step 1 needs --members"):
        refactor(root, PullUpSpec("Base", (), init_tail=True), steps=range(1, 2), format=False)
    _apply(root, members="poll", init_tail=True)
    assert _read(root, "base") == dedent("""\
    import time


    class Base:
        def __init__(self, mgr):
            self.mgr = mgr
            self.t = time.time()

        def poll(self):
            return 1


    class One(Base):
        def __init__(self, mgr):
            super().__init__(mgr)


    class Two(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
    """)
