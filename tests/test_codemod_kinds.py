"""A refactoring kind is one object (`codemods.core.kind.Kind`), registered in `codemods.KINDS`:
every command `python -m codemods.NAME` is a registered kind's `main`, and each kind's steps are
numbered from 1; a kind of two steps made as docs/adding_a_kind.md says runs through the one
runner (`core.runner`: what each step says, in order; the files; the range; already applied)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import codemods
from codemods.core.context import Context
from codemods.core.errors import AlreadyApplied
from codemods.core.kind import Kind
from codemods.core.plan import Plan
from codemods.core.runner import Outcome, Tree, run_steps, steps_to_run
from codemods.core.steps import Step, Steps
from codemods.syntax.nodes import parse

REPO = Path(__file__).resolve().parent.parent


def test_every_command_is_a_registered_kind():
    commands = sorted(p.parent.name for p in (REPO / "codemods").glob("*/__main__.py"))
    assert commands == sorted(codemods.KINDS)


@pytest.mark.parametrize("name", sorted(codemods.KINDS))
def test_a_kind_is_its_command(name):
    kind = codemods.kind(name)
    assert isinstance(kind, Kind) and kind.name == name
    assert importlib.import_module(f"codemods.{name}.__main__").main == kind.main
    assert [s.number for s in kind.steps.steps] == list(kind.steps.all)
    parser = kind.build_parser()
    assert parser.prog == f"python -m codemods.{name}"
    options = {a.dest for a in parser._actions}
    assert {"path", "steps", "dry_run", "commit", "no_format"} <= options


# A kind of two steps, as docs/adding_a_kind.md builds one: step 1 appends a line to sglang/a.py,
# step 2 writes sglang/b.py; what each says comes out in the runner's order.


class _Append(Step):
    number = 1

    def done(self, reading) -> bool:
        return "# one" in reading[0]

    def run(self, run, tree, carry):
        module = parse(tree.source, tree.text + "# one\n")
        return Outcome("Append one", module, noted=["before 1"], messages=["after 1"], notes=["note 1"], carry=1)


class _Write(Step):
    number = 2

    def done(self, reading) -> bool:
        return reading[1]

    def run(self, run, tree, carry):
        new = tree.source.with_name("b.py")
        return Outcome(f"Write b (carry {carry})", tree.module, {new: "B = 1\n"}, {new: None}, messages=["after 2"])


TOY_STEPS = Steps([_Append(), _Write()])


class _Toy(Kind[str]):
    name = "toy"
    description = epilog = ""
    steps = TOY_STEPS

    def add_args(self, p):
        self.add_steps(p, "steps")

    def spec(self, args):
        return "a"

    def context(self, path, spec, *, format=True):
        return Context.open(path, "sglang/__init__.py", format=format)

    def plan(self, ctx, spec, steps):
        source = ctx.root / "sglang" / f"{spec}.py"
        text = ctx.read(source)
        done = TOY_STEPS.progress((text, (ctx.root / "sglang/b.py").exists()))
        steps = steps_to_run(TOY_STEPS, done, steps, lambda: AlreadyApplied("already applied", source), source, 1)
        plan = Plan(ctx.root, "toy", originals={source: text})
        module = parse(source, text)
        run_steps(TOY_STEPS, steps, None, Tree(source, module, text, {source: text}), 0, plan,
                  lambda m: m.code, ["analysis"])
        return plan


def _toy_tree(tmp_path: Path) -> Path:
    (tmp_path / "sglang").mkdir()
    (tmp_path / "sglang/__init__.py").write_text("")
    (tmp_path / "sglang/a.py").write_text("A = 1\n")
    return tmp_path


def test_a_kind_of_two_steps_runs_through_the_one_runner(tmp_path, capsys):
    root = _toy_tree(tmp_path)
    toy = _Toy()
    with toy.context(root, "a") as ctx:
        plan = toy.plan(ctx, "a", None)
    assert plan.messages == ["before 1", "step 1: Append one", "after 1", "analysis", "note 1",
                             "step 2: Write b (carry 1)", "after 2"]
    assert [(s.number, sorted(p.name for p in s.changes)) for s in plan.steps] == [(1, ["a.py"]), (2, ["a.py", "b.py"])]
    assert {p.name: t for p, t in plan.changes.items()} == {"a.py": "A = 1\n# one\n", "b.py": "B = 1\n"}
    assert plan.originals[root / "sglang/b.py"] is None
    assert toy.main([str(root), "--steps", "2-2", "--dry-run"]) == 2
    assert "no step is already applied here; run --steps 1-2 instead of --steps 2-2" in capsys.readouterr().err
    assert toy.main([str(root)]) == 0
    assert (root / "sglang/b.py").read_text() == "B = 1\n"
    assert toy.main([str(root), "--dry-run"]) == 5
