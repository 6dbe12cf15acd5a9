"""Extract Method proper: a piece of a method's body went into a function the method now calls,
the rest stayed (upstream's `SparseLinearAttentionImpl.__init__` -> `_initialize_linear_attention`
in 0.5.22). The static check reads the method with its call of the function replaced by the
function's body, its parameters mapped: the old body, line for line (substitution._around_the_call)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    class Attention:
        def __init__(self, heads, size, kind="softmax"):
            self.heads = heads
            self.scale = size ** -0.5
            self.proj = [0.0] * size
            if kind == "elu":
                self.feature = lambda x: max(x, 0) + 1
            elif kind == "softmax":
                self.feature = lambda x: x / size
            else:
                raise ValueError(f"unknown feature map: {kind}")
            self.ready = True
    """
AFTER = """
    def _init_features(model, size, kind):
        model.proj = [0.0] * size
        if kind == "elu":
            model.feature = lambda x: max(x, 0) + 1
        elif kind == "softmax":
            model.feature = lambda x: x / size
        else:
            raise ValueError(f"unknown feature map: {kind}")


    class Attention:
        def __init__(self, heads, size, kind="softmax"):
            self.heads = heads
            self.scale = size ** -0.5
            _init_features(self, size, kind)
            self.ready = True
    """


def _move(tmp_path, after_text: str) -> tuple[dict, dict]:
    report = moves_report(tmp_path, {"sglang/srt/attention.py": BEFORE}, {"sglang/srt/attention.py": after_text})
    (move,) = report["moves"]
    return move, first_pair(report)


def test_the_method_with_the_piece_read_back_in_is_the_old_body(tmp_path):
    move, pair = _move(tmp_path, AFTER)
    assert (move["from"], move["to"], move["verdict"]) == (
        "Attention.__init__", "sglang.srt.attention._init_features", "equivalent")
    assert pair["static"]["residuals"] == []
    assert {side: c["hit"] == c["branches"] for side, c in pair["coverage"].items()} == {"before": True, "after": True}


def test_a_line_the_method_kept_changed_on_the_way_is_seen(tmp_path):
    move, pair = _move(tmp_path, AFTER.replace("self.scale = size ** -0.5", "self.scale = size ** -1"))
    assert move["verdict"] == "divergent"
    assert [r["kind"] for r in pair["static"]["residuals"]] == ["changed"]


def test_a_function_that_returns_a_value_is_compared_alone(tmp_path):
    # what follows the call would not run on every path through an inlined `return value`
    after = AFTER.replace('raise ValueError(f"unknown feature map: {kind}")',
                          'raise ValueError(f"unknown feature map: {kind}")\n        return model.feature')
    _, pair = _move(tmp_path, after)
    assert any(r["kind"] == "removed" for r in pair["static"]["residuals"])
