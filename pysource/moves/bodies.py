"""Method bodies read in the terms both versions share, and compared."""

from __future__ import annotations

import ast
import difflib
import keyword
import re

WRAPPER_STATEMENTS = 3  # a delegation: at most this many statements, one of them the call

_TOKEN = re.compile(r"\w+|[^\w\s]")


def body(node) -> list[ast.stmt]:
    """The statements, the docstring left out."""
    statements = node.body
    if statements and isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant) \
            and isinstance(statements[0].value.value, str):
        statements = statements[1:]
    return statements


def tokens(node) -> list[str]:
    """The body in the terms both sides share: the instance (`self`, or a parameter standing for
    it) and its attributes read as the attribute's name alone, a view of it (`cfg = view(self)`)
    read as the instance, the instance handed on as an argument (`f(self)`, `g(x, owner=self)`)
    left out, imports left out, and names without their leading underscores (`self._step()`
    and `step(owner)` read alike)."""
    receiver = _receiver(node)
    statements = body(node)
    names = {receiver} if receiver else set()
    texts = [ast.unparse(s) for s in statements]
    if receiver:
        for i, s in enumerate(statements):
            view = _view_of(s, names)
            if view and any(re.search(rf"\b{view}\.", t) for t in texts[i + 1:]):
                names.add(view)
                texts[i] = ""  # read through the view, it is the instance
    text = "\n".join(t for t in texts if t)
    text = _IMPORT.sub("", text)
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}\.", "", text)
    text = _SAME.sub("", text)  # `x = self.x`: a local for the attribute, read alike
    out = _TOKEN.findall(text)
    if names:
        out = _without_handed_on(out, names)
    return [t.lstrip("_") or t if t[0] == "_" else t for t in out]


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t][^\n]*$", re.MULTILINE)


_SAME = re.compile(r"^[ \t]*(\w+) = \1[ \t]*$", re.MULTILINE)


def _receiver(node) -> str | None:
    """The parameter standing for the instance: the first positional one, else (`def f(*, owner)`)
    the keyword-only one whose attributes the body reads most, when it reads at least three."""
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if params:
        return params[0]
    kwonly = {a.arg for a in node.args.kwonlyargs}
    if not kwonly:
        return None
    read = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in kwonly:
            read.setdefault(n.value.id, set()).add(n.attr)
    best = max(read, key=lambda k: len(read[k]), default=None)
    return best if best and len(read[best]) >= 3 else None


def _view_of(statement, names: set[str]) -> str | None:
    """`cfg = view(self)` or `cfg = self`: the local standing for the instance (when the body
    reads attributes of it)."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return None
    v = statement.value
    if isinstance(v, ast.Call) and len(v.args) == 1 and not v.keywords:
        v = v.args[0]
    return statement.targets[0].id if isinstance(v, ast.Name) and v.id in names else None


def _without_handed_on(toks: list[str], names: set[str]) -> list[str]:
    """The tokens without the instance where it is a whole argument: `f(self, x)` -> `f(x)`,
    `f(x, owner=self)` -> `f(x)`."""
    out: list[str] = []
    drop_comma = False
    for i, t in enumerate(toks):
        if drop_comma:
            drop_comma = False
            if t == ",":
                continue
        if t in names and (toks[i + 1] if i + 1 < len(toks) else "") in (")", ","):
            if len(out) >= 3 and out[-1] == "=" and out[-3] in ("(", ","):
                del out[-2:]  # `key=self`
            if out and out[-1] in ("(", ","):
                if out[-1] == ",":
                    out.pop()
                else:
                    drop_comma = True
                continue
        out.append(t)
    return out


def similarity(a: list[str], b: list[str]) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def similarity_and_coverage(a: list[str], b: list[str]) -> tuple[float, float]:
    """difflib's ratio, and the share of `a` found in order in `b` (a body rewritten around the
    old one: `x = v` becoming `declare(cfg, x=v)` keeps every old token), a name `b` consistently
    calls by another (`renamed`) counting as found."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    ratio = 2 * matched / (len(a) + len(b)) if a or b else 1.0
    if not a:
        return ratio, 1.0
    renames = renamed(a, b, matcher.get_opcodes())
    if renames:
        a = [renames.get(t, t) for t in a]
        matched = max(matched, sum(block.size for block in
                                   difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()))
    return ratio, matched / len(a)


_NAME = re.compile(r"[A-Za-z_]\w*")


def renamed(a: list[str], b: list[str], opcodes) -> dict[str, str]:
    """The names of `a` that `b` writes as another name wherever the two are aligned, at least
    twice and always as the same one (RefactoringMiner's replacements: the helper a rewritten
    body calls under its new name)."""
    seen: dict[str, set[str]] = {}
    count: dict[str, int] = {}
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for x, y in zip(a[i1:i2], b[j1:j2]):
            if _NAME.fullmatch(x) and _NAME.fullmatch(y) and not keyword.iskeyword(x) and not keyword.iskeyword(y):
                seen.setdefault(x, set()).add(y)
                count[x] = count.get(x, 0) + 1
    return {x: next(iter(ys)) for x, ys in seen.items() if len(ys) == 1 and count[x] >= 2}


def delegates(node) -> bool:
    """A thin delegation: a few statements, no control flow, and one statement that is a call
    (returned, assigned, awaited or on its own) handing each parameter on as it is. A short body
    whose parameters only feed an expression (`return int(x - y)`) is not one."""
    statements = body(node)
    if not statements or len(statements) > WRAPPER_STATEMENTS:
        return False
    if any(isinstance(s, (ast.If, ast.For, ast.While, ast.Try, ast.With)) for s in statements):
        return False
    params = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)[1:]}
    for name in (node.args.vararg, node.args.kwarg):
        if name is not None:
            params.add(name.arg)
    calls = [s.value for s in statements if isinstance(getattr(s, "value", None), ast.Call)] + \
            [s.value.value for s in statements if isinstance(getattr(s, "value", None), ast.Await)
             and isinstance(s.value.value, ast.Call)]
    return any(not (isinstance(c.func, ast.Name) and c.func.id in BUILTINS) and params <= _handed_on(c)
               for c in calls)


BUILTINS = frozenset(dir(__import__("builtins")))


def _handed_on(call: ast.Call) -> set[str]:
    """The names a call hands on as they are: `f(a, *rest, key=b, **kw)` -> {a, rest, b, kw}."""
    values = [*call.args, *(k.value for k in call.keywords)]
    values = [v.value if isinstance(v, ast.Starred) else v for v in values]
    return {v.id for v in values if isinstance(v, ast.Name)}


def called(node) -> dict[tuple[str, bool], str | None]:
    """What a body calls: (name, whether module level) -> the attribute of the instance it is
    called on (`self.attr.m(...)`), None for `f(...)` and `module.f(...)`."""
    me = node.args.args[0].arg if node.args.args else "self"
    out = {}
    for c in (c for s in body(node) for c in ast.walk(s) if isinstance(c, ast.Call)):
        f = c.func
        if isinstance(f, ast.Name):
            out[(f.id, True)] = None
        elif isinstance(f, ast.Attribute):
            held = f.value
            if isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == me:
                out[(f.attr, False)] = held.attr
            elif not (isinstance(held, ast.Name) and held.id == me):
                out.setdefault((f.attr, True), None)
    return out
