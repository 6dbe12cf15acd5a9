"""Call sites the harness compiles on their own (found by a sweep of 0.5.23's Scheduler: the call
of `can_schedule_lora_req` is `if ... not self.can_schedule_lora_req(req, loras): continue`
inside the method's loop): one that leaves its method's loop runs in one pass of a loop of its
own; one that awaits runs as a coroutine stepped to its end."""

from __future__ import annotations

import textwrap
from pathlib import Path

from equivalence.cli import main

CONTINUES = '''\
    class Probe:
        def __init__(self):
            self.enabled = True
            self.allowed = {"a"}

        def pick(self, items):
            out = []
            for item in items:
                if self.enabled and not self.can_take(item):
                    continue
                out.append(item)
            return out

        def can_take(self, item):
            if item in self.allowed:
                return True
            return False
'''
AWAITS = '''\
    import asyncio


    class Probe:
        def __init__(self):
            self.limit = 3

        async def handle(self, n):
            await asyncio.sleep(self.clamp(n))

        def clamp(self, n):
            if n > self.limit:
                return self.limit
            return n
'''


def tree(root: Path, probe: str) -> Path:
    for rel, text in {"sglang/__init__.py": "", "sglang/srt/__init__.py": "",
                      "sglang/srt/probe.py": textwrap.dedent(probe)}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_call_site_that_continues_its_methods_loop_is_run_and_proven(tmp_path, capsys):
    root = tree(tmp_path / "t", CONTINUES)
    assert main(["--method", "Probe.can_take", str(root), str(root)]) == 0
    assert "branches before 7/7 after 7/7" in capsys.readouterr().out


def test_whether_the_call_site_continues_its_loop_is_observed(tmp_path, capsys):
    # `continue` and falling through both end the one pass: which one happened is an event, so a
    # flipped return value of the method (the loop skips the item, or keeps it) is divergent
    always = CONTINUES.replace("if self.enabled and not self.can_take(item):", "if not self.can_take(item):")
    before = tree(tmp_path / "before", always)  # called on every path: the call site is the only route
    after = tree(tmp_path / "after", always.replace("            return False", "            return True"))
    assert main(["--method", "Probe.can_take", str(before), str(after)]) == 1
    assert "divergent" in capsys.readouterr().out


def test_a_call_site_that_awaits_is_run_to_its_end_and_proven(tmp_path, capsys):
    # the entry is a coroutine function stepped to its end (no event loop): the method's
    # branches all run, and an edit of the method is told apart
    root = tree(tmp_path / "t", AWAITS)
    assert main(["--method", "Probe.clamp", str(root), str(root)]) == 0
    assert "branches before 2/2 after 2/2" in capsys.readouterr().out
    after = tree(tmp_path / "after", AWAITS.replace("if n > self.limit:", "if n >= self.limit:"))
    assert main(["--method", "Probe.clamp", str(root), str(after)]) == 1


def test_an_async_method_called_directly_is_driven_and_its_result_compared(tmp_path, capsys):
    probe = AWAITS.replace("await asyncio.sleep(self.clamp(n))", "await asyncio.sleep(0)\n"
                           "            return n if n < self.limit else self.limit")
    root = tree(tmp_path / "t", probe)
    assert main(["--method", "Probe.handle", str(root), str(root)]) == 0
    assert "branches before 2/2 after 2/2" in capsys.readouterr().out
    after = tree(tmp_path / "after", probe.replace("n < self.limit", "n <= self.limit + 1"))
    assert main(["--method", "Probe.handle", str(root), str(after)]) == 1
    assert "different-return" in capsys.readouterr().out


SETS_ENV = '''\
    import os


    class Probe:
        def setup(self):
            if "PROBE_FILE" not in os.environ:
                os.environ["PROBE_FILE"] = "/var/probe/core"
            path = os.environ["PROBE_FILE"]
            if os.path.dirname(path):
                return 1
            return 2
'''


def test_an_environment_variable_the_code_sets_reads_back_in_the_same_run(tmp_path, capsys):
    """0.5.17 ServerArgs._handle_crash_dump_env sets a missing variable, then reads it: the read
    answered from the world raised KeyError, which real code never does, and the branch real code
    takes by default never ran."""
    root = tree(tmp_path / "t", SETS_ENV)
    assert main(["--method", "Probe.setup", str(root), str(root)]) == 0
    assert "branches before 4/4 after 4/4" in capsys.readouterr().out


ABSTRACT = '''\
    import abc


    class Probe(abc.ABC):
        @abc.abstractmethod
        def draft(self): ...

        def pick(self, n):
            return self.clamp(n)

        def clamp(self, n):
            if n > 3:
                return 3
            return n
'''


def test_a_method_of_an_abstract_base_runs(tmp_path, capsys):
    # 0.5.16 EagleDraftWorkerBase: the instance is made without __init__ all the same
    root = tree(tmp_path / "t", ABSTRACT)
    assert main(["--method", "Probe.clamp", str(root), str(root)]) == 0


CLASS_METHOD = '''\
    class Probe:
        limit = 3

        @classmethod
        def launch(cls, n):
            return cls.clamp(n, cls.limit)

        @staticmethod
        def clamp(n, limit):
            if n > limit:
                return limit
            return n
'''


def test_a_call_site_in_a_class_method_reads_cls_as_the_instance_s_class(tmp_path, capsys):
    # `cls.clamp(...)` in a classmethod: the call site runs with `cls` bound to the class (was:
    # NameError on `cls` in both versions, a difference of messages)
    root = tree(tmp_path / "t", CLASS_METHOD)
    assert main(["--method", "Probe.clamp", str(root), str(root)]) == 0
    assert "branches before 2/2 after 2/2" in capsys.readouterr().out
    after = tree(tmp_path / "after", CLASS_METHOD.replace("if n > limit:", "if n >= limit:"))
    assert main(["--method", "Probe.clamp", str(root), str(after)]) == 1
