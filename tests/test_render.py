"""`core.render.Renderer` prints exactly what `Module.code` prints, whatever a step changed: a
top-level statement, a class member, or one statement inside a method (whose other lines are
then copied from the original text)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemods.core.render import Renderer

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/trees/record_dflash/sglang/srt/model_executor/model_runner.py"


def _edits(module: cst.Module):
    """Modules that change one statement of one method (every statement of every method in turn:
    replaced by a new one, or by a copy that prints the same), one class member, or one top-level
    statement."""
    for cls in (s for s in module.body if isinstance(s, cst.ClassDef)):
        def with_member(old, new):
            members = [new if s is old else s for s in cls.body.body]
            new_cls = cls.with_changes(body=cls.body.with_changes(body=members))
            return module.with_changes(body=[new_cls if s is cls else s for s in module.body])

        for fn in (s for s in cls.body.body if isinstance(s, cst.FunctionDef)):
            yield with_member(fn, fn.deep_clone())
            if not isinstance(fn.body, cst.IndentedBlock):
                continue
            for i, statement in enumerate(fn.body.body):
                for new in (cst.parse_statement("x = 1  # changed\n"), statement.deep_clone()):
                    body = [*fn.body.body[:i], new, *fn.body.body[i + 1:]]
                    yield with_member(fn, fn.with_changes(body=fn.body.with_changes(body=body)))
            yield with_member(fn, fn.with_changes(name=cst.Name("renamed")))
    for i, statement in enumerate(module.body):
        yield module.with_changes(body=[*module.body[:i], statement.deep_clone(), *module.body[i + 1:]])


def _check(text: str, most: int = 10_000, every: int = 1) -> int:
    """How many edits (each `every`-th, at most `most`) rendered as LibCST prints them."""
    module = cst.parse_module(text)
    render = Renderer(module, text).render
    count = 0
    for i, edited in enumerate(_edits(module)):
        if i % every:
            continue
        assert render(edited) == edited.code
        count += 1
        if count == most:
            break
    return count


def test_every_edit_of_a_fixture_runner_renders_as_libcst_prints_it():
    assert _check(FIXTURE.read_text()) > 50


def test_comments_blank_lines_and_odd_indentation_survive():
    text = '''import os


class A:
    """Doc."""

    x = 1  # trailing

    # a comment above
    def f(self,
          a):  # after the colon
        # leading comment
        y = 1; z = 2

        if a:
            return y
        # a comment at the end of the body


    @staticmethod
    def g():
      return 3   # two-space body


def h():
    pass
'''
    assert _check(text) > 10


@pytest.mark.parametrize("rel", ["sglang/srt/model_executor/model_runner.py", "sglang/srt/managers/scheduler.py"])
def test_a_real_release(rel):
    from tests.releases import release_root

    assert _check((release_root("0.5.15.post1") / rel).read_text(), most=12, every=37) == 12
