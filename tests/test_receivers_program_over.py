"""pysource.receivers.Program.over: a program over the same files with some texts replaced keeps
the parses of the others and reads the replaced ones anew."""

from pathlib import Path

from pysource import parsing
from pysource.checkout import Checkout
from pysource.receivers import Program

RUNNER = "class Runner:\n    def step(self):\n        return 1\n"
CALLER = ("from pkg.runner import Runner\n\n\n"
          "def go(r: Runner):\n    return r.step()\n")


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "runner.py").write_text(RUNNER)
    (tmp_path / "pkg" / "caller.py").write_text(CALLER)
    return tmp_path


def test_the_replaced_file_is_read_anew_and_the_others_are_kept(tmp_path):
    root = _tree(tmp_path)
    with parsing.Parses():
        base = Checkout(root, root, "pkg")
        program = Program(base)
        runner, caller = root / "pkg/runner.py", root / "pkg/caller.py"
        old_runner, old_caller = program.file(runner), program.file(caller)
        changed = Checkout(root, root, "pkg", overrides={"pkg/runner.py": RUNNER + "\n    def more(self):\n"
                                                                              "        return 2\n"})
        other = program.over(changed)
        assert other.file(caller) is old_caller  # same text: its parse and names kept
        new_runner = other.file(runner)
        assert new_runner is not old_runner
        assert [f.name for f in new_runner.tree.body[0].body] == ["step", "more"]
        assert program.over(base).file(runner) is old_runner  # nothing replaced: everything kept
