"""A function the code under test makes (a lambda, a local def) and hands to a stand-in is called
back by the world, once, with made-up arguments: its branches run and are compared
(standins.call_back). Written as upstream's validators are: `result.add_check(name, value,
lambda _: ...)` on a result class from another module (a stand-in)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = {"sglang/srt/stage.py": """
    from sglang.srt.checks import Result


    class Stage:
        def run(self, batch):
            return self.verify(batch)

        def verify(self, batch):
            result = Result()
            result.add_check("prompt", None, lambda _: batch.prompt or batch.embeds)
            result.add_check("size", batch.size, lambda size, least=2: size is None or size > least)
            return result
    """}
AFTER = {"sglang/srt/stage.py": """
    from sglang.srt.checks import Result


    def verify_inputs(batch):
        result = Result()
        result.add_check("prompt", None, lambda _: batch.prompt or batch.embeds)
        result.add_check("size", batch.size, lambda size, least=2: size is None or size > least)
        return result


    class Stage:
        def run(self, batch):
            return self.verify(batch)

        def verify(self, batch):
            return verify_inputs(batch)
    """}


def _check(tmp_path, after_text: str) -> dict:
    checks = {"sglang/srt/checks.py": ""}
    return first_pair(moves_report(tmp_path, {**checks, **BEFORE}, {**checks, "sglang/srt/stage.py": after_text}))


def test_the_callbacks_run_and_every_branch_in_them_is_compared(tmp_path):
    pair = _check(tmp_path, AFTER["sglang/srt/stage.py"])
    assert pair["verdict"] == "equivalent"
    assert {side: (c["hit"], c["branches"]) for side, c in pair["coverage"].items()} == {
        "before": (4, 4), "after": (4, 4)}


def test_a_callback_reading_another_value_on_the_way_is_divergent(tmp_path):
    # the same code, another default: only calling it back tells them apart (without, the line
    # was a residual difference no configuration showed: inconclusive)
    pair = _check(tmp_path, AFTER["sglang/srt/stage.py"].replace("least=2", "least=3"))
    assert pair["verdict"] == "divergent"
    first = pair["divergences"][0]
    assert any(e[0] == "called back returned" for e in first["before"]["events"]), first
