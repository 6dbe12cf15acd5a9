"""A property whose getter raises AttributeError, in a class whose base the check stubs: the stub
base's `__getattr__` (it records what the class misses) must not turn the getter's error into
"object has no attribute PROPERTY" (0.5.15.post1's `ModelRunner.hybrid_gdn_config`, moved to a
function of `model_config`: divergent on `model_config` None until this held)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

MIXIN = {"sglang/srt/mixins.py": "class CacheMixin:\n    pass\n"}
BEFORE = """
    from sglang.srt.mixins import CacheMixin


    class Runner(CacheMixin):
        def text_ready(self):
            return self.text_config is not None and self.text_config.ready

        @property
        def text_config(self):
            config = self.model_config.hf_config.get_text_config()
            return config if config.kind in ("dense", "hybrid") else None
    """
AFTER = """
    from sglang.srt.mixins import CacheMixin


    def text_config_of(model_config):
        config = model_config.hf_config.get_text_config()
        return config if config.kind in ("dense", "hybrid") else None


    class Runner(CacheMixin):
        def text_ready(self):
            return text_config_of(self.model_config) is not None and text_config_of(self.model_config).ready
    """


def test_the_getter_s_own_error_is_what_the_caller_sees(tmp_path):
    report = moves_report(tmp_path, {**MIXIN, "sglang/srt/runner.py": BEFORE}, {**MIXIN, "sglang/srt/runner.py": AFTER})
    pair = first_pair(report)
    assert pair["verdict"] == "equivalent", pair["divergences"]
    assert pair["coverage"]["after"]["hit"] == pair["coverage"]["after"]["branches"] > 0
