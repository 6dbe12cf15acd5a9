"""What moved between two versions of a package: every method that left its class, and where
its body went (RefactoringMiner's question, answered by body similarity, not by names).

A method has left its class when the class (same file, same name) no longer defines it, or
defines it as a thin delegation where the old one had a body of its own. Its destination is
the new definition (a module-level function, or a method of another class) whose body, read in
the same terms, is most like the old one: `self.x` and `OWNER.x` both read as `x` (the instance
passed whole, or one of its attributes passed as a parameter, costs nothing), the docstring left
out, and the rest compared token by token (difflib's matching blocks). A delegation left in the
class names its destination outright. The kind follows from where the body went: a function
(the wrapper kept, or every caller rewritten), a component the owner holds (`self.ATTR =
CLASS(...)` in the owner), a base class of the owner (pulled up), or another class.

Only files whose text differs are parsed; the result is a list of `Move`, typed, in file order.
"""

from __future__ import annotations

import ast
import collections
import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pysource import parsing
from pysource.modules import module_name

SIMILAR = 0.6  # the least similarity a destination needs (0.45 when its name is the method's)
SIMILAR_SAME_NAME = 0.45
OTHER_CLASS = 0.75  # ... when it is a method of another class, not reached by a delegation left behind
DELEGATED = 0.3  # ... when the delegation left in the class calls it
NEAREST = 8  # destinations compared token by token: those sharing the most vocabulary
MIN_TOKENS = 12  # a body this short (`return self.x`) matches too much to count as moved
WRAPPER_STATEMENTS = 3  # a delegation: at most this many statements, one of them the call


@dataclass(frozen=True)
class Definition:
    """A function or method of one version."""

    rel: str  # the file, relative to the folder holding the package
    class_name: str | None  # None: module level
    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef

    @property
    def module(self) -> str:
        return module_name(self.rel)

    @property
    def qualname(self) -> str:
        return f"{self.class_name}.{self.name}" if self.class_name else self.name


@dataclass(frozen=True)
class Move:
    kind: str  # "function", "function, callers rewritten", "component", "superclass", "other class"
    origin: Definition  # the method, before
    destination: Definition  # where its body is, after
    similarity: float  # 0..1, the body against the old one in the same terms
    wrapper: bool  # the class still has the method, delegating
    attr: str | None = None  # a component's: the attribute of the owner that holds it

    @property
    def source(self) -> str:
        return f"{self.origin.class_name}.{self.origin.name}"

    @property
    def target(self) -> str:
        if self.kind == "component" and self.attr:
            return f"{self.origin.class_name}.{self.attr}.{self.destination.name}"
        return f"{self.destination.module}.{self.destination.qualname}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "from": self.source, "from_file": f"{self.origin.rel}:{self.origin.node.lineno}",
                "to": self.target, "to_file": f"{self.destination.rel}:{self.destination.node.lineno}",
                "wrapper": self.wrapper, "similarity": round(self.similarity, 2)}


def find_moves(before: Path, after: Path, package: str = "sglang") -> list[Move]:
    """Every method of `before` (a folder holding `package`) that left its class in `after`."""
    old, new = {}, {}
    before_defs: dict[str, collections.Counter] = {}  # file -> (indentation, name) of each def before
    for rel in _changed_files(Path(before), Path(after), package):
        a, b = _text(Path(before) / rel), _text(Path(after) / rel)
        before_defs[rel] = collections.Counter((len(i), n) for i, n in _DEF.findall(a or ""))
        gone, added = _defs_gone_and_added(a, b)
        if b is not None and (added or (a is not None and gone)):
            new[rel] = _parse(b, Path(after) / rel)  # a new def (a destination), or a class that lost one
        if a is not None and b is not None and (gone or _shrank(a, b)):
            old[rel] = _parse(a, Path(before) / rel)  # a method gone, or one that may now delegate
    old_defs = [d for rel, tree in old.items() if tree for d in _definitions(rel, tree)]
    new_defs = [d for rel, tree in new.items() if tree for d in _definitions(rel, tree)]
    existed = {(d.rel, d.class_name, d.name) for d in old_defs}
    candidates = [_Candidate(d, t, set(t)) for d in new_defs if (d.rel, d.class_name, d.name) not in existed
                  and (d.rel in old or (d.node.col_offset, d.name) not in before_defs[d.rel])
                  for t in [_tokens(d.node)]]
    after_methods = {(d.rel, d.class_name, d.name): d for d in new_defs if d.class_name}
    after_classes = {(rel, n.name): n for rel, tree in new.items() if tree for n in tree.body
                     if isinstance(n, ast.ClassDef)}
    moves = []
    taken: set[int] = set()
    for origin in (d for d in old_defs if d.class_name):
        if (origin.rel, origin.class_name) not in after_classes:
            continue  # the whole class went (or moved): not a method leaving it
        kept = after_methods.get((origin.rel, origin.class_name, origin.name))
        if kept is not None and (not _delegates(kept.node) or _delegates(origin.node)):
            continue
        found = _destination(origin, kept, candidates, taken)
        if found is None:
            continue
        destination, similarity = found
        taken.add(id(destination))  # one body, one origin
        owner = after_classes[(origin.rel, origin.class_name)]
        kind, attr = _kind(destination, owner, kept)
        moves.append(Move(kind, origin, destination, similarity, kept is not None, attr))
    return moves


def _changed_files(before: Path, after: Path, package: str) -> list[str]:
    out = []
    for rel in sorted(set(_py_files(before, package)) | set(_py_files(after, package))):
        a, b = before / rel, after / rel
        if not (a.is_file() and b.is_file()) or a.read_bytes() != b.read_bytes():
            out.append(rel)
    return out


def _py_files(root: Path, package: str) -> list[str]:
    top = root / package
    out = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        out += [os.path.relpath(os.path.join(folder, f), root) for f in files if f.endswith(".py")]
    return out


def _text(path: Path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def _parse(text: str, path: Path) -> ast.Module | None:
    try:
        return parsing.parse(text, str(path))  # once per text in a run: the check parses these files again
    except (SyntaxError, ValueError):
        return None  # a file that does not parse holds no move we could read


_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


def _defs_gone_and_added(before: str | None, after: str | None) -> tuple[bool, bool]:
    """Whether some `def` (by indentation and name) is in `before` only, in `after` only: read off
    the text, so that only the files where something moved are parsed."""
    old = collections.Counter(_DEF.findall(before or ""))
    new = collections.Counter(_DEF.findall(after or ""))
    return bool(old - new), bool(new - old)


def _shrank(before: str, after: str) -> bool:
    """A file a few lines shorter: a method body may have become a delegation."""
    return before.count("\n") - after.count("\n") >= WRAPPER_STATEMENTS


def _definitions(rel: str, tree: ast.Module) -> list[Definition]:
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(Definition(rel, None, node.name, node))
        elif isinstance(node, ast.ClassDef):
            out += [Definition(rel, node.name, f.name, f) for f in node.body
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _body(node) -> list[ast.stmt]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _delegates(node) -> bool:
    """A thin delegation: a few statements, one of them a call handing on the parameters."""
    body = _body(node)
    if not body or len(body) > WRAPPER_STATEMENTS:
        return False
    params = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)[1:]}
    for stmt in body:
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.Try, ast.With)):
            return False
    calls = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Call)]
    return any(params <= {x.id for x in ast.walk(c) if isinstance(x, ast.Name)} for c in calls)


def _destination(origin: Definition, kept: Definition | None, candidates: list["_Candidate"],
                 taken: set[int]) -> tuple[Definition, float] | None:
    """The new definition holding the method's body: the one its delegation calls when that one
    is new and alike enough, else the most similar one above the threshold."""
    tokens = _tokens(origin.node)
    if len(tokens) < MIN_TOKENS:
        return None
    free = [c for c in candidates if id(c.definition) not in taken
            and (c.definition.rel, c.definition.class_name) != (origin.rel, origin.class_name)]  # a rename stays
    if kept is not None:
        called = _called(kept.node)
        named = [c for c in free if (c.definition.name, c.definition.class_name is None) in called]
        scored = sorted(((_similarity(tokens, c.tokens), c) for c in named), key=lambda t: -t[0])
        if scored and scored[0][0] >= DELEGATED:
            return scored[0][1].definition, scored[0][0]
    bag = set(tokens)
    near = sorted((c for c in free if len(c.tokens) >= MIN_TOKENS and len(tokens) <= 3 * len(c.tokens)
                   and len(c.tokens) <= 3 * len(tokens)),
                  key=lambda c: -len(bag & c.bag) / len(bag | c.bag))[:NEAREST]
    scored = []
    for c in near:
        s = _similarity(tokens, c.tokens)
        same_name = c.definition.name.lstrip("_") == origin.name.lstrip("_")
        need = SIMILAR_SAME_NAME if same_name else SIMILAR
        if c.definition.class_name is not None:
            need = max(need, OTHER_CLASS)  # another class's method: only a near copy counts
        if s >= need:
            scored.append((s + (0.05 if same_name else 0), s, c.definition))
    if not scored:
        return None
    scored.sort(key=lambda t: -t[0])
    return scored[0][2], scored[0][1]


@dataclass
class _Candidate:
    definition: Definition
    tokens: list[str]
    bag: set[str]


def _called(node) -> set[tuple[str, bool]]:
    """(name, whether module level) of what a delegation calls: `f(...)`, `module.f(...)` reach a
    function, `self.attr.m(...)` a method."""
    out = set()
    for c in (c for s in _body(node) for c in ast.walk(s) if isinstance(c, ast.Call)):
        f = c.func
        if isinstance(f, ast.Name):
            out.add((f.id, True))
        elif isinstance(f, ast.Attribute):
            on_self = isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name) \
                and f.value.value.id == "self"
            out.add((f.attr, not on_self))
    return out


def _similarity(a: list[str], b: list[str]) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(node) -> list[str]:
    """The body in the terms both sides share: the instance (`self`, or a parameter standing for
    it) and its attributes read as the attribute's name alone; the docstring left out."""
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    receiver = params[0] if params else None
    text = "\n".join(ast.unparse(s) for s in _body(node))
    if receiver:
        text = re.sub(rf"\b{re.escape(receiver)}\.", "", text)
    return _TOKEN.findall(text)


def _kind(destination: Definition, owner: ast.ClassDef, kept: Definition | None) -> tuple[str, str | None]:
    if destination.class_name is None:
        return ("function" if kept is not None else "function, callers rewritten"), None
    bases = {b.id if isinstance(b, ast.Name) else b.attr for b in owner.bases if isinstance(b, (ast.Name, ast.Attribute))}
    if destination.class_name in bases:
        return "superclass", None
    for node in ast.walk(owner):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            called = node.value.func
            name = called.id if isinstance(called, ast.Name) else called.attr if isinstance(called, ast.Attribute) else None
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if name == destination.class_name and isinstance(t, ast.Attribute) \
                        and isinstance(t.value, ast.Name) and t.value.id == "self":
                    return "component", t.attr
    return "other class", None
