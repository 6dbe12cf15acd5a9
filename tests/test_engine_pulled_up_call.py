"""A method pulled up into a base whose body is one call of another module's function, passing
what a wrapper passes (`return mhc.post(self.hc_cfg, x, ...)`, 0.5.22's `DeepseekV4DecoderLayer.hc_post`
into `DeepseekV4DecoderLayerBase`): `--method` checks the method on both sides. The before
version had been read as the wrapper of an extracted `post`, run for real there and an input
after: divergent, 36/44 branches of a function nobody moved."""

from __future__ import annotations

import json

from equivalence.cli import main
from tests.hand_moves import write_tree

OPS = """
    def combine(cfg, x):
        if cfg.scale > 1:
            return x * cfg.scale
        return x
    """
BEFORE = """
    from sglang.srt import ops


    class Layer:
        def post(self, x):
            return ops.combine(self.cfg, x)
    """
AFTER = """
    from sglang.srt import ops


    class LayerBase:
        def post(self, x):
            return ops.combine(self.cfg, x)


    class Layer(LayerBase):
        pass
    """


def test_a_pulled_up_one_call_method_is_the_method_on_both_sides(tmp_path):
    before = write_tree(tmp_path / "b", {"sglang/srt/ops.py": OPS, "sglang/srt/layer.py": BEFORE})
    after = write_tree(tmp_path / "a", {"sglang/srt/ops.py": OPS, "sglang/srt/layer.py": AFTER})
    out = tmp_path / "r.json"
    code = main(["--method", "Layer.post", str(before), str(after), "--json", str(out)])
    report = json.loads(out.read_text())
    (pair,) = report["pairs"]
    assert (code, report["verdict"]) == (0, "equivalent"), pair.get("divergences", [])[:1]
    assert pair["coverage"]["before"]["branches"] == pair["coverage"]["after"]["branches"]
