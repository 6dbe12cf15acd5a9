"""Searching a file's bytes for a pattern that always spells a given name, fast.

Python's `re` skips ahead to a pattern's literal prefix, but a pattern that starts with `\b`, `^`
(under `re.M`) or an alternation has none: it is tried at every position of the text, several
times (up to forty) slower than finding the name. Every match of such a pattern holds the name
and starts shortly before it (a few characters, after a run of white space), so it is enough to try the
pattern at those few places around each occurrence of the name: the same answer as
`pattern.search(data)`, at the cost of finding the name.
"""

from __future__ import annotations

import re
from typing import Iterator

WHITE_SPACE = frozenset(b" \t\n\r\f\v")  # what `\s` matches in a bytes pattern (in a str one: str.isspace)


def search_near(pattern: re.Pattern, data: bytes | str, name: bytes | str, reach: int = 0) -> bool:
    """Whether `pattern` matches in `data`, given that each of its matches spells `name` and
    starts at most `reach` characters before the white space that precedes it (`self.\\s*NAME`:
    reach 5; a pattern that starts with the name, after a look-behind: 0). `re` sees the whole
    text from each start (`\\b`, `^`, look-behinds as in a search)."""
    return next(matches_near(pattern, data, name, reach), None) is not None


def matches_near(pattern: re.Pattern, data: bytes | str, name: bytes | str, reach: int = 0) -> Iterator[re.Match]:
    """`pattern`'s matches in `data` (as `search_near`), in order of the occurrence of `name` each
    holds: the first match found around each occurrence, each start once."""
    space = WHITE_SPACE.__contains__ if isinstance(data, bytes) else str.isspace
    at, last = data.find(name), -1
    while at != -1:
        start = at
        while start > 0 and space(data[start - 1]):
            start -= 1
        for s in range(max(0, start - reach, last + 1), at + 1):
            m = pattern.match(data, s)
            if m is not None:
                last = s
                yield m
                break
        at = data.find(name, at + 1)
