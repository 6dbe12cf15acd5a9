"""Robustness: on every variant of the method, the codemod either produces output that the
equivalence harness proves equivalent (full branch coverage in both versions) or refuses,
naming file, line and construct.  Never output that behaves differently.

The variants are tested by shape, one file each (tests/test_robustness_<shape>.py: each variant
its own test, named by its id, asserting `robustness.check_outcome`), and over the whole set
(each shape file's `test_the_shape_as_a_whole`: none divergent, the comments); all of them are evaluated once
per session, in one pool of worker processes started as soon as the tests are collected, while
the other tests run (torch imported once per worker: see tests/robustness.py and
tests/conftest.py), each test waiting for its own variant only. The tally (variants, equivalent, refused, divergent) is printed in
pytest's terminal summary (tests/conftest.py), with or without `-s`. This file: the set of
variants, and the checker itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.robustness import DIVERGENT, EQUIVALENT, WHOLE_SHAPE, variant_ids
from tests.variants import SHAPES, variants

VARIANTS = variants()
IDS = [v.id for v in VARIANTS]
TESTS = Path(__file__).resolve().parent


def test_enough_variants_of_every_kind():
    assert len(VARIANTS) >= 200
    assert len(set(IDS)) == len(IDS)
    assert {v.shape for v in VARIANTS} == {"instance_log", "server_args_write_log", "server_args_write",
                                           "record_call", "record_dflash"}
    assert sum(1 for v in VARIANTS if v.constructs) >= 50 and sum(1 for v in VARIANTS if not v.constructs) >= 150


def test_every_variant_is_tested_once_by_its_shapes_file():
    """Each shape has its file, which parametrizes test_variant by exactly that shape's ids and
    ends with the shape as a whole: the files together test every variant, none twice."""
    files = sorted(TESTS.glob("test_robustness_*.py"))
    shapes = {f.stem.removeprefix("test_robustness_"): f for f in files}
    assert set(shapes) == set(SHAPES)
    tested = []
    for shape in SHAPES:
        tree = ast.parse(shapes[shape].read_text())
        tests = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert [t.name for t in tests] == ["test_variant", WHOLE_SHAPE]
        (mark,) = tests[0].decorator_list
        assert ast.unparse(mark) == "pytest.mark.parametrize('variant', variant_ids(SHAPE))"
        assert f"SHAPE = {shape!r}" in ast.unparse(tree)
        assert "check_outcome(robustness.outcome(variant))" in ast.unparse(tests[0])
        assert "check_shape(" in ast.unparse(tests[1])
        tested += variant_ids(shape)
    assert sorted(tested) == sorted(IDS)


def test_the_run_evaluates_in_the_order_the_tests_ask():
    """The session's run: the variants of the selected tests in their order (a whole-shape test:
    the rest of its shape); each outcome is waited for alone, and without a pool only the ones
    asked for are evaluated."""
    from types import SimpleNamespace

    from tests.robustness import Run, wanted

    def item(module, name, variant=None):
        return SimpleNamespace(module=SimpleNamespace(__name__=module), originalname=name, name=name,
                               callspec=SimpleNamespace(params={"variant": variant}))

    first, second = variant_ids("record_dflash")[3], variant_ids("instance_log")[0]
    items = [item("tests.test_layout", "test_no_cycle"), item("tests.test_robustness_record_dflash", "test_variant", first),
             item("tests.test_robustness_instance_log", "test_variant", second)]
    assert wanted(items) == [first, second]
    whole = wanted(items + [item("tests.test_robustness_record_dflash", WHOLE_SHAPE)])
    assert whole[:2] == [first, second] and sorted(whole) == sorted({second, *variant_ids("record_dflash")})

    refused = "record_call:unmapped-self-read"  # refused: no harness run, fast
    run = Run(["record_call:early-return", refused], processes=0)
    assert run.outcome(refused).kind == "refused" and list(run.done) == [refused]
    with pytest.raises(KeyError):
        run.outcome(first)


def test_a_shape_as_a_whole_keeps_every_comment():
    """`check_shape` fails on a divergent variant, on fewer outputs than cosmetic variants (a
    cosmetic one refused), on a lost comment, and on a set whose output holds none of the
    odd-place comments."""
    from tests.robustness import ODD_PLACE_COMMENTS, Outcome, check_shape

    def produced(before, after, kind=EQUIVALENT):
        return Outcome("v", kind, comments_before=before, comments_after=after, touched=["f.py"])

    kept = produced([*ODD_PLACE_COMMENTS, "# x"], ["# x", *ODD_PLACE_COMMENTS])
    refused = Outcome("r", "refused", cosmetic=False)
    check_shape([kept, refused])
    for outcomes in [[kept, Outcome("d", DIVERGENT, "why", cosmetic=False)], [kept, Outcome("c", "refused")],
                     [produced([*ODD_PLACE_COMMENTS, "# x"], [*ODD_PLACE_COMMENTS])],
                     [produced(["# x"], ["# x"])]]:
        with pytest.raises(AssertionError):
            check_shape(outcomes)


# --- the checker itself: a refusal must say where and what ------------------------------


def _variant(name: str):
    return next(v for v in VARIANTS if v.id == name)


class _Refusal:
    def __init__(self, path, line, message):
        self.path, self.line, self.message = path, line, message

    def __str__(self):
        return self.message


def test_refusal_check_wants_file_line_in_method_and_construct(tmp_path):
    from tests.robustness import check_refusal, method_lines
    from tests.variants import RUNNER

    v = _variant("record_call:unmapped-self-read")
    runner = tmp_path / RUNNER
    inside = min(method_lines(v.source)) + 1
    good = f"{runner}:{inside}: read of self.server_args.tp_size, which the recipe does not map"
    assert check_refusal(v, tmp_path, _Refusal(runner, inside, good)) is None
    assert "line 1 is not inside" in check_refusal(v, tmp_path, _Refusal(runner, 1, good))
    assert "does not name" in check_refusal(v, tmp_path, _Refusal(None, inside, good))
    vague = f"{runner}:{inside}: cannot handle this method"
    assert "self.server_args.tp_size" in check_refusal(v, tmp_path, _Refusal(runner, inside, vague))
    cosmetic = _variant("record_call:renamed-locals")
    assert "refused a cosmetic variant" in check_refusal(cosmetic, tmp_path, _Refusal(runner, inside, good))


def test_comments_are_read_by_tokens_not_text():
    from tests.robustness import comments_of

    assert comments_of('x = "# not a comment"  # real\n# also real\n') == ["# real", "# also real"]


def _break_the_codemod(monkeypatch) -> None:
    """The kv codemod, made to test `fp8_e5m3` where the method tests `fp8_e5m2`."""
    import codemods.extract_kv_dtype as api

    real = api.refactor

    def broken(root, steps=range(1, 5), **kw):
        plan = real(root, steps, **kw)
        for path, text in plan.changes.items():
            plan.changes[path] = text.replace('== "fp8_e5m2"', '== "fp8_e5m3"')
        return plan

    monkeypatch.setattr(api, "refactor", broken)


def test_a_divergent_codemod_is_caught(tmp_path, monkeypatch):
    """The evaluation is not a rubber stamp: a codemod that changes behaviour is divergent."""
    from tests.robustness import Evaluator

    _break_the_codemod(monkeypatch)
    outcome = Evaluator(examples=5).evaluate(_variant("record_call:renamed-locals"))
    assert outcome.kind == DIVERGENT and "fp8_e5m2" in outcome.detail


def test_an_unmapped_read_is_varied_not_reported(monkeypatch):
    """`self.server_args.tp_size` is no input the preset names: if a codemod let it through, the
    harness varies it like any other read (no "input not covered"): here the code is unchanged
    but for a comment, and is proven equivalent."""
    import codemods.extract_kv_dtype as api
    from codemods.core.plan import Plan
    from tests.robustness import Evaluator
    from tests.variants import RUNNER

    def pass_through(root, steps=range(1, 5), **kw):
        runner = (root / RUNNER).resolve()
        text = runner.read_text()
        return Plan(root=root.resolve(), shape="record_call", changes={runner: text + "\n# touched\n"},
                    originals={runner: text})

    monkeypatch.setattr(api, "refactor", pass_through)
    outcome = Evaluator(examples=5).evaluate(_variant("record_call:unmapped-self-read"))
    assert outcome.kind == EQUIVALENT, outcome.detail


@pytest.mark.parametrize("attribute", ["model_dtype", "torch_dtype"])
def test_a_renamed_read_is_proven(tmp_path, attribute):
    """The method reads `self.dtype` under another name: the preset's hints do not name it, the
    world varies it, and the extraction (by hand, as the wrapper passes it) is equivalent."""
    import json
    import shutil

    from equivalence.cli import main
    from tests.variants import FIXTURES, RUNNER

    trees = {}
    for name, old, new in (("record_call", "self.kv_cache_dtype = self.dtype", f"self.kv_cache_dtype = self.{attribute}"),
                           ("record_call_after", "model_dtype=self.dtype", f"model_dtype=self.{attribute}")):
        trees[name] = tmp_path / name
        shutil.copytree(FIXTURES / name, trees[name])
        runner = trees[name] / RUNNER
        assert old in runner.read_text()
        runner.write_text(runner.read_text().replace(old, new))
    out = tmp_path / "r.json"
    assert main([str(trees["record_call"]), str(trees["record_call_after"]), "--json", str(out),
                 "--examples", "10"]) == 0
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["inputs"][f"self.{attribute}"][0] == "<stand-in>"  # varied by the world, the preset not naming it
    assert all(c["missed"] == [] for c in pair["coverage"].values())


def test_a_variant_with_the_programs_of_another_takes_its_proof(monkeypatch):
    """A comment edit changes no program: the proof of the variant without it answers, while the
    codemod and the comment checks still run on the variant itself."""
    from tests.robustness import ODD_PLACE_COMMENTS, Evaluator

    evaluator, proofs = Evaluator(examples=5), []
    prove = evaluator._prove
    monkeypatch.setattr(evaluator, "_prove", lambda *a: proofs.append(a[0].id) or prove(*a))
    first = evaluator.evaluate(_variant("record_call:renamed-locals"))
    second = evaluator.evaluate(_variant("record_call:comments-odd-places+renamed-locals"))
    assert proofs == ["record_call:renamed-locals"]
    assert first.kind == second.kind == EQUIVALENT
    assert "the programs of record_call:renamed-locals, proven there" in second.detail
    assert all(c in second.comments_before and c in second.comments_after for c in ODD_PLACE_COMMENTS)


def test_an_output_that_differs_is_proven_anew(monkeypatch):
    """Sharing never hides a difference: the same variant's output changed by a broken codemod is
    other programs, proven again, and divergent."""
    from tests.robustness import Evaluator

    evaluator = Evaluator(examples=5)
    assert evaluator.evaluate(_variant("record_call:renamed-locals")).kind == EQUIVALENT
    _break_the_codemod(monkeypatch)
    outcome = evaluator.evaluate(_variant("record_call:comments-odd-places+renamed-locals"))
    assert outcome.kind == DIVERGENT and "fp8_e5m2" in outcome.detail and "proven there" not in outcome.detail
