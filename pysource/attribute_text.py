"""Where a file's text binds an attribute, and whether any of those places may declare its type,
told from its bytes without parsing the file (`receivers.Program.attribute_contract` parses
only the files that may declare one).

A binding spells `self.attr = ...` (or `self.attr: T = ...`), `def attr(` or, at the start of a
line, `attr:` (a class-level annotation). The last also spells a parameter on a line of its own
(`    model_runner: ModelRunner,` in a signature spanning lines, common in sglang), which binds
nothing: such a line is told apart only where it cannot be a statement of a file that parses
(`_never_a_statement`), never by guessing; a line it cannot tell is kept, and its file parsed.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from pysource.text_search import matches_near

OPENERS, CLOSERS = b"([{", b")]}"


@lru_cache(maxsize=64)
def binds(attr: str) -> re.Pattern:
    """The pattern every binding of `attr` matches (each match spells `attr`, at most `self.` and
    white space after its start)."""
    a = re.escape(attr.encode())
    return re.compile(rb"\bself\.\s*" + a + rb"\s*(?::[^=\n]*)?=[^=]|\bdef\s+" + a + rb"\s*\(|^[ \t]+" + a + rb"\s*:",
                      re.M)


def bindings(data: bytes, attr: str) -> tuple[list[int], bool]:
    """(the lines of `data` binding `attr`, whether one of them may declare its type: as
    `Program.attribute_contract` reads a parse, a property, a class-level annotation, `self.attr: T`,
    `self.attr = f(...)` (f may be a class) or `self.attr = p` (p may be a parameter annotated)."""
    lines, may_declare = [], False
    for hit in matches_near(binds(attr), data, attr.encode(), 5):
        start = hit.start()
        if data.startswith(b"self", start):
            may_declare = may_declare or _assignment_may_declare(data, start)
        elif data[start:start + 1] in b" \t" and _never_a_statement(data, start):
            continue
        else:
            may_declare = True
        lines.append(data.count(b"\n", 0, start) + 1)
    return lines, may_declare


def _assignment_may_declare(data: bytes, start: int) -> bool:
    """Whether `self.attr = ...` at `start` may declare a type: its text to the end of the line,
    parsed alone, is an annotated assignment, or assigns a call, or a name the file spells as an
    annotated parameter (`p: T`, also at the start of a line: the line before may end in a
    comment); or it is no statement alone (it goes on past the line), and the file's parse says."""
    end = data.find(b"\n", start)
    try:
        statement = ast.parse(data[start:len(data) if end == -1 else end]).body
    except (SyntaxError, ValueError):
        return True
    if len(statement) != 1 or not isinstance(statement[0], ast.Assign):
        return True
    value = statement[0].value
    if isinstance(value, ast.Name):
        return re.search(rb"(?:[(,]|^[ \t]*)\s*" + value.id.encode() + rb"\s*:", data, re.M) is not None
    return isinstance(value, ast.Call)


def _never_a_statement(data: bytes, start: int) -> bool:
    """Whether the line at `start` (`    attr: ...`) cannot be a statement of a file that parses,
    so it is not a class-level annotation (a parameter, a dict entry, a line of a string). The line
    holds no quote and no backslash (then `#` starts its comment and its brackets are code) and
    no `=`, and: a closing bracket on it has no opening one before it; or its brackets balance and
    it ends with `,` (`attr: T,` is no statement: an annotation is not a tuple); or they balance
    and the next line of code starts with a closing bracket."""
    end = data.find(b"\n", start)
    end = len(data) if end == -1 else end
    line = data[start:end]
    if any(c in line for c in (b'"', b"'", b"\\")):
        return False
    code = line.partition(b"#")[0].rstrip()
    if b"=" in code:
        return False
    depth = 0
    for c in code:
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
            if depth < 0:
                return True
    if depth != 0:
        return False
    return code.endswith(b",") or _next_code_line(data, end).startswith(tuple(bytes([c]) for c in CLOSERS))


def _next_code_line(data: bytes, end: int) -> bytes:
    while end < len(data):
        start = end + 1
        end = data.find(b"\n", start)
        end = len(data) if end == -1 else end
        line = data[start:end].strip()
        if line and not line.startswith(b"#"):
            return line
    return b""
