"""Robustness: on every variant of the method, the codemod either produces output that the
equivalence harness proves equivalent (full branch coverage in both versions) or refuses,
naming file, line and construct.  Never output that behaves differently.

All variants are evaluated once per session (in worker processes, torch imported once per
worker: see tests/robustness.py); each variant is then its own test, named by its id, and
the tally (variants, equivalent, refused, divergent) is printed in pytest's terminal
summary (tests/conftest.py), with or without `-s`.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests import robustness
from tests.robustness import DIVERGENT, EQUIVALENT, REFUSED, Outcome, evaluate_all, tally
from tests.variants import variants

VARIANTS = variants()
IDS = [v.id for v in VARIANTS]
WHOLE_SET = ("test_tally", "test_comments_survive_over_the_whole_set")


@pytest.fixture(scope="session")
def outcomes(request) -> dict[str, Outcome]:
    """Outcomes of the variants this session's selected tests need (all, for the set-wide tests)."""
    wanted = set()
    for item in request.session.items:
        name = getattr(item, "originalname", item.name)
        module = getattr(getattr(item, "module", None), "__name__", None)
        if module == __name__ and name in WHOLE_SET:
            wanted = set(IDS)
            break
        if module == __name__ and name == "test_variant":
            wanted.add(item.callspec.params["variant"])
    ids = [i for i in IDS if i in wanted]
    result = evaluate_all(ids)
    robustness.RESULTS.update(result)
    return result


def test_enough_variants_of_every_kind():
    assert len(VARIANTS) >= 200
    assert len(set(IDS)) == len(IDS)
    assert {v.shape for v in VARIANTS} == {"instance_log", "server_args_write_log", "server_args_write",
                                           "record_call", "record_dflash"}
    assert sum(1 for v in VARIANTS if v.constructs) >= 50 and sum(1 for v in VARIANTS if not v.constructs) >= 150


@pytest.mark.parametrize("variant", IDS)
def test_variant(variant, outcomes):
    outcome = outcomes[variant]
    assert outcome.kind != DIVERGENT, f"{variant}: {outcome.detail}"
    if outcome.cosmetic:
        assert outcome.kind == EQUIVALENT, f"{variant} is cosmetic but was {outcome.kind}: {outcome.detail}"
    if outcome.kind == EQUIVALENT:
        before, after = Counter(outcome.comments_before), Counter(outcome.comments_after)
        assert before == after, (f"{variant}: comments lost {dict(before - after)}, "
                                 f"gained {dict(after - before)} in {outcome.touched}")


def test_comments_survive_over_the_whole_set(outcomes):
    """Over every variant the codemod rewrote, the touched files' comments before == after."""
    produced = [o for o in outcomes.values() if o.touched]
    before = sum((Counter(o.comments_before) for o in produced), Counter())
    after = sum((Counter(o.comments_after) for o in produced), Counter())
    assert len(produced) >= 150
    # the odd-place comments of the variants are among them, and none is lost or invented
    assert before["# picks the KV cache dtype"] > 0 and before["# may be a bare nn.Module"] > 0
    assert before == after, f"lost {dict(before - after)}, gained {dict(after - before)}"


def test_tally(outcomes):
    counts = tally(outcomes)
    assert counts["variants"] == len(VARIANTS) >= 200
    assert counts[EQUIVALENT] + counts[REFUSED] + counts[DIVERGENT] == counts["variants"]
    assert counts[DIVERGENT] == 0, [f"{o.id}: {o.detail}" for o in outcomes.values() if o.kind == DIVERGENT]


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


def test_a_divergent_codemod_is_caught(tmp_path, monkeypatch):
    """The evaluation is not a rubber stamp: a codemod that changes behaviour is divergent."""
    import codemods.extract_kv_dtype as api
    from tests.robustness import Evaluator

    real = api.refactor

    def broken(root, steps=range(1, 5), **kw):
        plan = real(root, steps, **kw)
        for path, text in plan.changes.items():
            plan.changes[path] = text.replace('== "fp8_e5m2"', '== "fp8_e5m3"')
        return plan

    monkeypatch.setattr(api, "refactor", broken)
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
