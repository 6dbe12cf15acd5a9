"""A key the code hands torch as a device or a dtype (`torch.device(self.device)`,
`t.to(device, dtype)`) is offered what torch's signatures take ("cpu", torch.float32, None)
before a stand-in, which torch rejects before the rest of the code runs: without it no run got
past such a line, and a changed constant after it went unseen (0.5.21's
`JoyImageEditPipelineConfig.get_decode_scale_and_shift`: 5 of 19 mutants killed, now 18)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    import torch


    class Scaler:
        def scales(self, dtype):
            return self.make_scales(dtype)

        def make_scales(self, dtype):
            base = torch.ones(self.width, device=torch.device(self.device))
            return (2.0 * base).to(self.device, dtype)
    """
AFTER = """
    import torch


    def make_scales(width, device, dtype):
        base = torch.ones(width, device=torch.device(device))
        return (2.0 * base).to(device, dtype)


    class Scaler:
        def scales(self, dtype):
            return make_scales(self.width, self.device, dtype)
    """


def _pair(tmp_path, after: str) -> dict:
    return first_pair(moves_report(tmp_path, {"sglang/srt/scaler.py": BEFORE}, {"sglang/srt/scaler.py": after}))


def test_torch_gets_a_device_and_a_dtype_it_takes(tmp_path):
    pair = _pair(tmp_path, AFTER)
    assert pair["verdict"] == "equivalent"
    assert pair["inputs"]["self.device"][:2] == ["cpu", None], pair["inputs"]
    assert pair["inputs"]["local:dtype"][0] == "torch.float32", pair["inputs"]


def test_a_constant_after_the_device_is_seen(tmp_path):
    pair = _pair(tmp_path, AFTER.replace("(2.0 * base)", "(2.5 * base)"))
    assert pair["verdict"] == "divergent"
    assert "different-return" in {d["kind"] for d in pair["divergences"]}, pair["divergences"]
