"""Text edits at `ast` positions of one file: replace spans, add lines after statements.

`ast` gives lines and UTF-8 byte columns; edits are made on the file's UTF-8 bytes, so that a
file is rewritten only where an edit says and is otherwise left byte for byte as it was.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field


@dataclass
class SourceEdits:
    text: str
    _data: bytes = field(init=False, repr=False)
    _starts: list[int] = field(init=False, repr=False)
    _edits: dict[tuple[int, int], bytes] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self._data = self.text.encode("utf-8")
        self._starts = [0, *(m.end() for m in re.finditer(b"\n", self._data))]

    def offset(self, line: int, col: int) -> int:
        return self._starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self._data[start:end].decode("utf-8")

    def lines(self, node: ast.AST) -> tuple[int, int]:
        """The span of the whole lines `node` is on (from line start to line end, newline excluded)."""
        return self._starts[node.lineno - 1], self._line_end(node.end_lineno)

    def whole_lines(self, node: ast.AST) -> str:
        start, end = self.lines(node)
        return self._data[start:end].decode("utf-8")

    def indent(self, node: ast.AST) -> str:
        start = self._starts[node.lineno - 1]
        return self._data[start:start + node.col_offset].decode("utf-8")

    def alone_on_its_lines(self, node: ast.stmt) -> bool:
        """Nothing but indentation before the statement and a comment at most after it."""
        start, end = self.span(node)
        before = self._data[self._starts[node.lineno - 1]:start]
        after = self._data[end:self._line_end(node.end_lineno)].strip()
        return not before.strip() and (not after or after.startswith(b"#"))

    def replace(self, start: int, end: int, new: str) -> None:
        self._edits[(start, end)] = new.encode("utf-8")

    def replace_node(self, node: ast.AST, new: str) -> None:
        self.replace(*self.span(node), new)

    def add_after(self, stmt: ast.stmt, line: str) -> None:
        """Add `line` (indented as `stmt`) on a new line right after the lines of `stmt`."""
        end = self._line_end(stmt.end_lineno)
        previous = self._edits.get((end, end), b"").decode("utf-8")
        added = f"\n{self.indent(stmt)}{line}"
        if added not in previous:
            self.replace(end, end, previous + added)

    def result(self) -> str:
        out, last = [], len(self._data)
        for (start, end), new in sorted(self._edits.items(), reverse=True):
            if end > last:
                raise ValueError(f"overlapping edits at byte {start}")
            out.append(self._data[end:last])
            out.append(new)
            last = start
        out.append(self._data[:last])
        return b"".join(reversed(out)).decode("utf-8")

    def __bool__(self) -> bool:
        return bool(self._edits)

    def _line_end(self, line: int) -> int:
        end = self._starts[line] - 1 if line < len(self._starts) else len(self._data)
        return end - 1 if end > 0 and self._data[end - 1:end] == b"\r" else end
