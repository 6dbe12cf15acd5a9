"""Values that are equal in Python but of other types (False, 0, 0.0) are options of their own, and
text the code turns into a number (`float(s)`) reads as the code's own numbers, floats too: the
shape of 0.5.21's `OpenAIServingChat._parse_inkling_reasoning_effort`, which stayed inconclusive
(13 of 20 branches) while 0 and 0.0 were taken for False and no text read as 0.0 <= x <= 0.99."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BODY = """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("a level is no boolean")
    if isinstance(value, (int, float)):
        level = float(value)
        if not math.isfinite(level) or not 0.0 <= level <= 0.75:
            raise ValueError("a level is in [0.0, 0.75]")
        return level
    names = {"off": 0.0, "some": 0.25, "half": 0.5, "most": 0.7, "full": 0.75}
    if value in names:
        return names[value]
    try:
        level = float(value)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"no level: {value!r}") from exc
    if not math.isfinite(level) or not 0.0 <= level <= 0.75:
        raise ValueError("a level is in [0.0, 0.75]")
    return level
"""


def _indent(text: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in text.strip("\n").splitlines(True))


BEFORE = f"""
import math


class Dimmer:
    def apply(self, request):
        return self.parse_level(request.level)

    @staticmethod
    def parse_level(value):
{_indent(BODY, "    ")}
"""
AFTER = f"""
import math


def parse_level(value):
{_indent(BODY, "")}


class Dimmer:
    def apply(self, request):
        return parse_level(request.level)
"""


def _pair(tmp_path, after: str) -> dict:
    return first_pair(moves_report(tmp_path, {"sglang/srt/dimmer.py": BEFORE}, {"sglang/srt/dimmer.py": after}))


def test_every_branch_is_run(tmp_path):
    pair = _pair(tmp_path, AFTER)
    assert pair["verdict"] == "equivalent", pair["coverage"]
    after = pair["coverage"]["after"]
    assert after["hit"] == after["branches"] == 18, after
    offered = {repr(v) for v in pair["inputs"]["local:request.level"]}
    assert offered >= {"0", "0.0", "False", "True", "'0.0'", "'0.5'", "'-0.5'", "'nan'"}, offered


def test_a_bound_changed_on_the_text_path_only_is_seen(tmp_path):
    last = AFTER.rindex("0.0 <= level <= 0.75")
    pair = _pair(tmp_path, AFTER[:last] + "0.0 < level <= 0.75" + AFTER[last + len("0.0 <= level <= 0.75"):])
    assert pair["verdict"] == "divergent"
    assert any(d["example"].get("local:request.level") in ("0.0", "0") for d in pair["divergences"]), pair["divergences"]
