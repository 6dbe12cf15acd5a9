"""extract_method and a same-named function of another module: `mod.METHOD(...)` inside the class,
where `mod` is a module the file imports, is that module's function, not a use of the method
(neither a call site to rewrite nor a use steps 1-2 would break); a receiver the file binds any
other way may be the instance, and is still refused."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from codemods.extract_method import MethodSpec, Refusal, refactor
from tests.checkouts import write_tree

RUNNER = "pkg/runner.py"
HELPERS = "pkg/helpers.py"
BEFORE = textwrap.dedent('''\
    from pkg import helpers


    class Runner:
        def __init__(self, width: int):
            self.width = width
            self.bound = None
            self.bind()

        def bind(self):
            self.bound = helpers.bind(slots=self.width * 2)
''')
TREE = {"pkg/__init__.py": "", HELPERS: "def bind(slots):\n    return list(range(slots))\n"}


def _run(tmp_path, runner: str, **spec) -> dict[str, str]:
    root = write_tree(tmp_path / "t", {**TREE, RUNNER: runner})
    plan = refactor(root, MethodSpec("Runner", "bind", "pkg.placed", **spec), range(1, 5))
    return {p.relative_to(plan.root).as_posix(): t for p, t in plan.changes.items()}


@pytest.mark.parametrize("spec", [{}, {"function_name": "bind_slots", "no_wrapper": True}])
def test_a_same_named_function_of_an_imported_module_is_not_a_use(tmp_path, spec):
    out = _run(tmp_path, BEFORE, **spec)
    placed = out["pkg/placed.py"]
    assert "helpers.bind(slots=width * 2)" in placed, placed
    assert "from pkg import helpers" in placed
    root = tmp_path / "t"
    for rel, text in out.items():
        (root / rel).write_text(text)
    got = subprocess.run([sys.executable, "-c", "from pkg.runner import Runner; print(Runner(3).bound)"],
                         cwd=root, capture_output=True, text=True)
    assert got.stdout.strip() == "[0, 1, 2, 3, 4, 5]", got.stderr


def test_a_receiver_bound_otherwise_too_is_still_refused(tmp_path):
    shadowed = BEFORE.replace("    def bind(self):\n", "    def bind(self, other=None):\n") \
        .replace("        self.bound = helpers", "        helpers = other or self\n        self.bound = helpers")
    assert shadowed != BEFORE
    with pytest.raises(Refusal) as e:
        _run(tmp_path, shadowed)
    assert "helpers.bind" in str(e.value) and "runner.py:" in str(e.value)
