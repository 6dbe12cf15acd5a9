"""Inline Temp on the way: `x = E` then `return x` in the old body, `return E` in the moved one (or
the other way round) is no difference for the static check (upstream's scheduler mixins of
0.5.22 wrote `return noisy_samples` as `return alpha_t * original_samples + sigma_t * noise`)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    class Scheduler:
        def step(self, sample, t):
            return self.add_noise(sample, t)

        def add_noise(self, sample, t):
            alpha = self.alphas[t]
            if alpha is None:
                return sample
            noisy = alpha * sample + self.sigma
            return noisy
    """
AFTER = """
    def add_noise(sample, t, alphas, sigma):
        alpha = alphas[t]
        if alpha is None:
            return sample
        return alpha * sample + sigma


    class Scheduler:
        def step(self, sample, t):
            return self.add_noise(sample, t)

        def add_noise(self, sample, t):
            return add_noise(sample, t, self.alphas, self.sigma)
    """


def _pair(tmp_path, after: str) -> dict:
    return first_pair(moves_report(tmp_path, {"sglang/srt/scheduler.py": BEFORE}, {"sglang/srt/scheduler.py": after}))


def test_a_temp_returned_at_once_reads_as_its_value(tmp_path):
    pair = _pair(tmp_path, AFTER)
    assert pair["static"]["residuals"] == [] and pair["verdict"] == "equivalent"


def test_another_value_returned_is_still_a_difference(tmp_path):
    pair = _pair(tmp_path, AFTER.replace("return alpha * sample + sigma", "return alpha * sample - sigma"))
    assert [r["kind"] for r in pair["static"]["residuals"]] == ["changed"] and pair["verdict"] == "divergent"
