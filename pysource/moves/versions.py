"""The two versions as the move finder reads them: only the files whose text differs, each
parsed once (through `pysource.parsing`), with their classes and definitions."""

from __future__ import annotations

import ast
import collections
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pysource import parsing
from pysource.moves.model import Definition

ClassKey = tuple[str, str]  # (file, class name)


@dataclass
class Version:
    root: Path
    trees: dict[str, ast.Module] = field(default_factory=dict)  # the changed files that parse
    changed: list[str] = field(default_factory=list)  # every file whose text differs from the other version's

    def definitions(self) -> list[Definition]:
        out = []
        for rel, tree in self.trees.items():
            for node in _live(tree.body):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.append(Definition(rel, None, node.name, node))
                elif isinstance(node, ast.ClassDef):
                    out += [Definition(rel, node.name, f.name, f) for f in _live(node.body)
                            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return out

    def classes(self) -> dict[ClassKey, ast.ClassDef]:
        return {(rel, n.name): n for rel, tree in self.trees.items() for n in tree.body if isinstance(n, ast.ClassDef)}


def _live(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` without the plain `def`s a later plain `def` of the same name replaces (dead code: the
    name holds the last one); decorated ones (a property's setter, an overload) are kept."""
    last = {s.name: i for i, s in enumerate(body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return [s for i, s in enumerate(body) if not (isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and last[s.name] != i and not s.decorator_list and not body[last[s.name]].decorator_list)]


SHRUNK = 0.8  # a definition this much shorter (in lines) may have left a delegation behind


def changed_versions(before: Path, after: Path, package: str) -> tuple[Version, Version]:
    """Parsed: an old file where a definition or class went or a definition shrank or grew, a new
    file where one arrived or grew, or whose old file is parsed (read off the text: most changed files only
    change inside bodies that stay)."""
    old, new = Version(before), Version(after)
    old.changed = new.changed = _changed_files(before, after, package)
    for rel in old.changed:
        a, b = _text(before / rel), _text(after / rel)
        was, now = _outline(a), _outline(b)
        lost = any(k not in now or now[k] < SHRUNK * n for k, n in was.items())
        if a is not None and lost:
            _add(old, rel, a)
        grew = any(k in was and n > was[k] for k, n in now.items())  # a body merged into one that existed
        if a is not None and grew and not lost:
            _add(old, rel, a)
        if b is not None and (lost or grew or any(k not in was for k in now)):
            _add(new, rel, b)
    return old, new


_HEADER = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)([^\n]*)", re.MULTILINE)


def _outline(text: str | None) -> dict[tuple, int]:
    """(enclosing headers, def or class, name, a class's bases, occurrence) -> its lines up to the next header."""
    if text is None:
        return {}
    out, seen = {}, collections.Counter()
    headers = list(_HEADER.finditer(text))
    enclosing: list[tuple[int, str]] = []
    for h, following in zip(headers, headers[1:] + [None]):
        indent = len(h.group(1))
        while enclosing and enclosing[-1][0] >= indent:
            enclosing.pop()
        bases = h.group(4).strip() if h.group(2) == "class" else ""  # a class that changed bases: both sides read
        key = (tuple(n for _, n in enclosing), h.group(2), h.group(3), bases)
        enclosing.append((indent, h.group(3)))
        seen[key] += 1
        end = following.start() if following else len(text)
        out[(*key, seen[key])] = text.count("\n", h.start(), end)
    return out


def _add(version: Version, rel: str, text: str) -> None:
    tree = _parse(text, version.root / rel)
    if tree is not None:
        version.trees[rel] = tree


def _text(path: Path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def _changed_files(before: Path, after: Path, package: str) -> list[str]:
    out = []
    for rel in sorted(set(_py_files(before, package)) | set(_py_files(after, package))):
        a, b = before / rel, after / rel
        if not (a.is_file() and b.is_file()) or a.read_bytes() != b.read_bytes():
            out.append(rel)
    return out


def _py_files(root: Path, package: str) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root / package):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        out += [os.path.relpath(os.path.join(folder, f), root) for f in files if f.endswith(".py")]
    return out


def _parse(text: str, path: Path) -> ast.Module | None:
    try:
        return parsing.parse(text, str(path))
    except (SyntaxError, ValueError):
        return None  # a file that does not parse holds no move we could read
