"""A local naming an attribute chain of the instance in the old body (`arch = self.vae.arch`),
the moved function given that chain as a parameter: the static check reads the local as the
chain, unless something between could rebind a link of it (upstream's pipeline configs of
0.5.22: `get_decode_scale_and_shift` -> `get_channelwise_decode_scale_and_shift(arch_config, ...)`)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    class Pipeline:
        def decode(self, device):
            return self.scale_and_shift(device)

        def scale_and_shift(self, device):
            arch = self.vae.arch
            scale = 1.0 / arch.std
            shift = arch.mean * arch.dim
            return scale, shift, device
    """
AFTER = """
    def channelwise_scale_and_shift(arch, device):
        scale = 1.0 / arch.std
        shift = arch.mean * arch.dim
        return scale, shift, device


    class Pipeline:
        def decode(self, device):
            return self.scale_and_shift(device)

        def scale_and_shift(self, device):
            return channelwise_scale_and_shift(self.vae.arch, device)
    """


def _pair(tmp_path, before: str) -> dict:
    return first_pair(moves_report(tmp_path, {"sglang/srt/pipeline.py": before}, {"sglang/srt/pipeline.py": AFTER}))


def test_a_local_naming_the_chain_the_function_is_given_reads_as_the_chain(tmp_path):
    pair = _pair(tmp_path, BEFORE)
    assert pair["static"]["residuals"] == [] and pair["verdict"] == "equivalent"


def test_not_when_a_call_between_may_rebind_a_link(tmp_path):
    # `self.vae.reload()` may set `self.vae.arch` anew: the local and the chain may differ after it
    before = BEFORE.replace("            scale = 1.0 / arch.std\n",
                            "            self.vae.reload()\n            scale = 1.0 / arch.std\n")
    pair = _pair(tmp_path, before)
    assert pair["static"]["residuals"] and pair["verdict"] != "equivalent"
