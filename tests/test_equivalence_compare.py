"""The comparison and classification rules on the kv preset's effects: expected differences are
classified, real ones are not (the wrapper applies kv_cache_dtype and records the string)."""

from __future__ import annotations

import torch

from equivalence.engine.judge.compare import DEFERRED, EAGER, EQUAL, NOT_MODELLED, classify
from equivalence.engine.load.version import Caller
from equivalence.engine.run.observe import Observation
from equivalence.engine.world.world import ABSENT

BF16, FP8 = torch.bfloat16, torch.float8_e4m3fn


def obs(events, kv=FP8, exception=None, state=None, not_modelled=()):
    state = state if state is not None else (("kv_cache_dtype", kv),)
    return Observation(tuple(events), exception, None, tuple(state), tuple(not_modelled))


LOG = ("log", "INFO", "KV cache dtype: torch.float8_e4m3fn")
SET = ("set", "self.kv_cache_dtype", FP8)
RECORD = "self._record_kv_cache_dtype"
REC = ("call", RECORD, ("fp8_e4m3",), ())
APPLIED = {("set", "self.kv_cache_dtype"), ("call", RECORD)}


def check(before, after, absent=frozenset(), eager=frozenset()):
    caller = Caller(applied=APPLIED, eager={f"self.{a}" for a in eager})
    return classify(before, after, caller, {f"self.{a}": ABSENT for a in absent})


def test_identical_runs_are_equal():
    assert check(obs([SET, REC, LOG]), obs([SET, REC, LOG])) == EQUAL


def test_writes_moved_after_the_other_effects_are_deferred_writes():
    assert check(obs([SET, REC, LOG]), obs([LOG, SET, REC])) == DEFERRED


def test_repeated_writes_collapse_to_the_last_one():
    before = obs([("set", "self.kv_cache_dtype", FP8), LOG, ("set", "self.kv_cache_dtype", BF16)], kv=BF16)
    after = obs([LOG, ("set", "self.kv_cache_dtype", BF16)], kv=BF16)
    assert check(before, after) == DEFERRED


def test_reordered_record_and_write_is_not_deferred_writes():
    assert check(obs([SET, REC, LOG]), obs([LOG, REC, SET])) not in (EQUAL, DEFERRED, EAGER)


def test_two_record_calls_reordered_are_not_deferred_writes():
    r1, r2 = ("call", RECORD, ("a",), ()), ("call", RECORD, ("b",), ())
    assert check(obs([SET, r1, r2]), obs([SET, r2, r1])) not in (EQUAL, DEFERRED, EAGER)


def test_a_dropped_record_is_a_divergence():
    assert check(obs([SET, REC]), obs([SET])) not in (EQUAL, DEFERRED, EAGER)


def test_a_different_log_is_a_divergence():
    assert check(obs([SET, LOG]), obs([SET, ("log", "INFO", "other")])) == "different-logs"


def test_writes_dropped_on_exception_are_deferred_writes():
    err = ("KeyError", "torch.float8_e5m2fnuz", None)
    before = obs([SET], exception=err, state=(("kv_cache_dtype", FP8),))
    after = obs([], exception=err, state=())
    assert check(before, after) == DEFERRED


def test_a_different_exception_is_a_divergence():
    before = obs([], exception=("ValueError", "Unsupported kv_cache_dtype: x.", None))
    after = obs([], exception=("ValueError", "Unsupported kv_cache_dtype.", None))
    assert check(before, after) == "different-exception-message"


def test_attribute_error_on_an_absent_attribute_read_up_front_is_eager_read():
    before = obs([SET, LOG])
    after = obs([], exception=("AttributeError", "no model", "model"), state=())
    assert check(before, after, absent={"model"}, eager={"model"}) == EAGER
    # not read up front by the new call site, or not absent in the configuration: divergence
    assert check(before, after, absent={"model"}, eager=set()) not in (EQUAL, DEFERRED, EAGER)
    assert check(before, after, absent=set(), eager={"model"}) not in (EQUAL, DEFERRED, EAGER)


def test_eager_read_needs_the_after_version_to_fail_before_any_effect():
    before = obs([SET, LOG])
    after = obs([LOG], exception=("AttributeError", "no model", "model"), state=())
    assert check(before, after, absent={"model"}, eager={"model"}) not in (EQUAL, DEFERRED, EAGER)


def test_unmodelled_input_never_passes():
    a = obs([SET], not_modelled=("sglang.srt.utils.is_hip",))
    assert check(a, a) == NOT_MODELLED


def test_log_info_on_rank0_and_logger_info_are_different_effects(tmp_path):
    """log_info_on_rank0 logs on rank 0 only: replacing it by logger.info is a divergence."""
    import json
    import shutil
    from pathlib import Path

    from equivalence.cli import main

    fixtures = Path(__file__).parent.parent / "fixtures" / "trees"
    after = tmp_path / "after"
    shutil.copytree(fixtures / "instance_log", after)
    runner = after / "sglang/srt/model_executor/model_runner.py"
    old = 'log_info_on_rank0(logger, f"KV cache dtype: {self.kv_cache_dtype}")'
    assert old in runner.read_text()
    runner.write_text(runner.read_text().replace(old, 'logger.info(f"KV cache dtype: {self.kv_cache_dtype}")'))
    out = tmp_path / "r.json"
    assert main([str(fixtures / "instance_log"), str(after), "--json", str(out)]) == 1
    (div,) = json.loads(out.read_text())["pairs"][0]["divergences"]
    assert div["kind"] == "different-logs"
    assert div["before"]["events"][-1][-1] == "rank0" and div["after"]["events"][-1][-1] != "rank0"


def _reorder(before, after):
    nothing = Caller(applied=set(), eager=set())
    return classify(obs(before), obs(after), nothing, {})


def test_independent_effects_in_another_order_are_classified_and_dependent_ones_are_not():
    from equivalence.engine.judge.compare import REORDERED

    a, b = ("set", "self.a", 1), ("set", "self.b", None)
    clock = ("call", "time.time", (), ())
    assert _reorder([a, b], [b, a]) == REORDERED  # two attributes
    assert _reorder([b, clock, a], [clock, a, b]) == REORDERED  # a write past a call that cannot see it
    assert _reorder([a, ("set", "self.a", 2)], [("set", "self.a", 2), a]) == "different-writes"  # one attribute
    own = ("call", "self._record", (), ())  # the instance's own method may read what was written
    assert _reorder([a, own], [own, a]) == "different-effect-order"
    handed = ("call", "registry.add", ("<Sender>",), ())  # ... as may a call given an object
    assert _reorder([a, handed], [handed, a]) == "different-effect-order"
    assert _reorder([clock, ("call", "log.flush", (), ())], [("call", "log.flush", (), ()), clock]) \
        == "different-calls"  # two calls keep their order
    assert _reorder([a, b], [a]) != REORDERED


def test_a_write_into_another_object_keeps_its_place():
    from equivalence.engine.judge.compare import REORDERED

    own, shared = ("set", "self.kv_cache_dtype", 1), ("set", "self.server_args.kv_cache_dtype", "fp8")
    assert _reorder([own, shared], [shared, own]) != REORDERED
