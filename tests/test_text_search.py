"""pysource.text_search.search_near answers as `pattern.search` does, trying only near the name."""

import re

import pytest

from pysource.text_search import search_near

NAME = b"runner"
BINDS = re.compile(rb"\bself\.\s*runner\s*=[^=]|\bdef\s+runner\s*\(|^[ \t]+runner\s*:", re.M)
CALLED = re.compile(rb"\brunner\s*\(")

CASES = [
    (BINDS, 5, b"self.runner = x\n", True),
    (BINDS, 5, b"self.runner == x\n", False),
    (BINDS, 5, b"myself.runner = x\n", False),  # \b before self sees the character before the start
    (BINDS, 5, b"self.\n      runner = 1\n", True),  # white space running over a line
    (BINDS, 5, b"class C:\n    runner: int\n", True),  # ^ under re.M, after indentation
    (BINDS, 5, b"x = 1; runner: int\n", False),  # not at a line's start
    (BINDS, 5, b"def runner (self):\n", True),
    (BINDS, 5, b"undef runner(", False),
    (BINDS, 5, b"runner\nrunner\n    self.runner = 2\n", True),  # not the first occurrence
    (BINDS, 5, b"", False),
    (CALLED, 0, b"a = runner (x)", True),
    (CALLED, 0, b"a = my_runner(x)", False),
    (CALLED, 0, b"runner(x)", True),  # at the very start
]


@pytest.mark.parametrize("pattern,reach,data,expected", CASES)
def test_same_answer_as_search(pattern, reach, data, expected):
    assert (pattern.search(data) is not None) is expected
    assert search_near(pattern, data, NAME, reach) is expected


STR_CASES = [  # a str pattern that starts with the name, after a look-behind (rebinding's)
    ("table[0] = 1", True),
    ("self.table[0] = 1", False),  # the look-behind sees the dot before the start
    ("x = my_table[0]", False),
    ("t = table\ntable [1] = 2", True),  # not the first occurrence; white space before `[`
    ("table\u00a0[0]", True),  # \s of a str pattern: any white space str.isspace knows
]


@pytest.mark.parametrize("text,expected", STR_CASES)
def test_str_pattern(text, expected):
    pattern = re.compile(r"(?<![\w.])table\s*\[")
    assert (pattern.search(text) is not None) is expected
    assert search_near(pattern, text, "table") is expected


def test_attribute_lines_match_the_pattern_with_its_word_boundary():
    """`annotations._lines` tries `self...` only where `self` is spelled: the lines of
    `\\bself\\s*\\.\\s*(...)\\b`'s matches, found left to right without overlap, as `finditer` finds them."""
    import re as _re

    from codemods.syntax.annotations import _lines

    def by_finditer(text, alts):
        out, line, at = [], 1, 0
        for hit in _re.finditer(r"\bself\s*\.\s*(?:" + alts + r")\b", text):
            line += text.count("\n", at, hit.start())
            at = hit.start()
            out.append(line)
        return out

    texts = ["myself.x self.x", "self.self.x", "self.\nself.x\nself . x", "_self.x\nself.x", "éself.x self.x",
             "self.xy self.x\n  self.\n x", "(self.x)+self.x"]
    for text in texts:
        for alts in ("x", "self|x", "xy"):
            assert list(_lines(text, _re.compile(r"self\s*\.\s*(?:" + alts + r")\b"))) == by_finditer(text, alts)
