"""A move and the edits made on its way, told apart. A hand-written extraction often passes a
parameter from another place than the old body read (`describe(self.parallel.tp_size)` where the
method read `self.tp_size`): a field's source changed. When the whole path diverges, the check
runs again with each such argument put back as the old body read it (a text override of the
after version's file, nothing written): the move is then judged alone, and the edit, listed
apart, is what changes behaviour, with the configuration the whole path showed."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from equivalence.engine.judge.module_globals import NEW_DEF
from equivalence.engine.report.verdict import Report
from pysource import parsing


@dataclass(frozen=True)
class SourceEdit:
    param: str  # the function's parameter
    now: str  # what the after version passes
    was: str  # what the old body read in its place

    def what(self) -> str:
        return (f"field source changed: `{self.param}` is passed `{self.now}` where the old body read "
                f"`{self.was}`")


@dataclass(frozen=True)
class Undone:
    override: dict[str, str]  # the after file (relative) -> its text with the old sources passed
    places: tuple[tuple[SourceEdit, int], ...]  # each edit put back, with the line of the call


def source_edits(static: dict) -> list[SourceEdit]:
    """The parameters the static check's map says are passed from elsewhere than the old body
    read (one place read before, another passed now)."""
    out = []
    for e in static.get("map", []):
        reads = set(e.get("before_reads") or ())
        if e.get("kind") == "parameter" and len(reads) == 1 and e["expression"] not in reads:
            out.append(SourceEdit(e["name"], e["expression"], next(iter(reads))))
    return out


def undo(after_root: Path, rel: str, function: str, edits: list[SourceEdit], text: str | None = None
         ) -> Undone | None:
    """The after file `rel` (or its `text` already overridden) with each call of `function`
    passing an edit's `now` passing its `was` instead; None when no call passes one of them as
    written."""
    path = after_root / rel
    text = path.read_text(encoding="utf-8") if text is None else text
    tree = parsing.parse(text, str(path))
    by_now = {e.now: e for e in edits}
    spans, places = [], []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _names(call.func, function)):
            continue
        for arg in (*call.args, *(k.value for k in call.keywords)):
            edit = by_now.get(ast.unparse(arg))
            if edit is not None:
                spans.append((arg, edit.was))
                places.append((edit, call.lineno))
    if not spans:
        return None
    return Undone({rel: _replaced(text, spans)}, tuple(places))


@dataclass(frozen=True)
class ViewEdit:
    """The moved function reads the instance through a view (`cfg = resolving_view(server_args)`,
    then `cfg.x` where the old body read `self.x`): a field's source changed for every read."""

    local: str
    call: str  # the view's call as written
    instance: str  # the parameter it is given

    def what(self) -> str:
        return (f"fields read through a view: `{self.local} = {self.call}`, then `{self.local}.X` where the old "
                f"body read `self.X`")


def view_edits(origin: ast.FunctionDef, function: ast.FunctionDef) -> list[tuple[ViewEdit, ast.Assign]]:
    """The statements of the function's body that bind a local to a call on one of its parameters
    and whose local is read for attributes the old body read of its instance (most of them)."""
    me = origin.args.args[0].arg if origin.args.args else "self"
    read = {n.attr for n in ast.walk(origin) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == me}
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    out = []
    for stmt in function.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call) and len(stmt.value.args) == 1 and not stmt.value.keywords
                and isinstance(stmt.value.args[0], ast.Name) and stmt.value.args[0].id in params):
            continue
        local = stmt.targets[0].id
        attrs = {n.attr for n in ast.walk(function) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and n.value.id == local}
        if attrs and len(attrs & read) * 2 >= len(attrs):
            out.append((ViewEdit(local, ast.unparse(stmt.value), stmt.value.args[0].id), stmt))
    return out


def undo_views(text: str, function: ast.FunctionDef, views: list[tuple[ViewEdit, ast.Assign]]) -> str:
    """`text` (the function's file) without each view: its statement gone, its local read as the
    instance it was given (`cfg.x` -> `server_args.x`), so that the body is the old one's again."""
    spans: list[tuple[ast.AST, str]] = [(stmt, "") for _, stmt in views]
    for view, stmt in views:
        spans += [(n, view.instance) for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == view.local
                  and isinstance(n.ctx, ast.Load)]
    return _replaced(text, spans, wrap=False)


@dataclass(frozen=True)
class DeclareEdit:
    """The moved function hands the values the old body wrote to the instance to a call instead
    (`declare(args, "why", x=v)` where the old body did `self.x = v`): the writes are declared, not
    made, and what becomes of them is up to that call's function."""

    call: str  # the declaring function as written
    instance: str  # the parameter it is given
    fields: tuple[str, ...]

    def what(self) -> str:
        return (f"writes declared, not made: `{self.call}({self.instance}, …, "
                f"{', '.join(f'{f}=…' for f in self.fields)})` where the old body assigned "
                f"{', '.join(f'`self.{f}`' for f in self.fields)}")


def declare_edits(origin: ast.FunctionDef, function: ast.FunctionDef) -> list[tuple[DeclareEdit, ast.Expr]]:
    """The call statements of the function that pass one of its parameters and, by keyword only,
    fields the old body assigned to its instance (and nothing else by keyword)."""
    me = origin.args.args[0].arg if origin.args.args else "self"
    written = {n.attr for n in ast.walk(origin) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
               and isinstance(n.value, ast.Name) and n.value.id == me}
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    out = []
    for stmt in ast.walk(function):
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        call = stmt.value
        given = [a.id for a in call.args if isinstance(a, ast.Name) and a.id in params]
        fields = tuple(k.arg for k in call.keywords)
        if len(given) == 1 and fields and None not in fields and set(fields) <= written:
            out.append((DeclareEdit(ast.unparse(call.func), given[0], fields), stmt))
    return out


def undo_declares(text: str, declares: list[tuple[DeclareEdit, ast.Expr]]) -> str:
    """`text` with each declaring call replaced by the writes it declares, in its order
    (`args.x = v`), as the old body made them."""
    spans = []
    for edit, stmt in declares:
        indent = "\n" + " " * stmt.col_offset
        spans.append((stmt, indent.join(f"{edit.instance}.{k.arg} = {ast.unparse(k.value)}"
                                        for k in stmt.value.keywords)))
    return _replaced(text, spans, wrap=False)


def function_in(text: str, path: str, like: ast.FunctionDef) -> ast.FunctionDef:
    """The `def` of `text` at `like`'s line and of its name (the same function, its file rewritten
    below its header)."""
    return next(n for n in ast.walk(parsing.parse(text, path)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == like.name and n.lineno == like.lineno)


@dataclass(frozen=True)
class WrapEdit:
    """The class's call of the function passes its result through a call the old body did not
    make (`redact(build_info(...))` where the old method went on with what it had built): an
    edit of the caller, apart from the move."""

    wrapper: str  # the wrapping call's function as written

    def what(self) -> str:
        return (f"result wrapped at the call site: `{self.wrapper}(…)` around the call, a call the old body "
                f"did not make")


def wrap_edits(origin: ast.FunctionDef, text: str, path: str, class_name: str, function: str
               ) -> list[tuple[WrapEdit, ast.Call]]:
    """The calls in class `class_name` of the file's `text` that take one argument, a call of
    `function`, and that call something the old method never called."""
    called = {_callee(c.func) for c in ast.walk(origin) if isinstance(c, ast.Call)}
    out = []
    for cls in parsing.parse(text, path).body:
        if not (isinstance(cls, ast.ClassDef) and cls.name == class_name):
            continue
        for call in ast.walk(cls):
            if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords \
                    and isinstance(call.args[0], ast.Call) and _names(call.args[0].func, function) \
                    and _callee(call.func) not in called | {None, function}:
                out.append((WrapEdit(ast.unparse(call.func)), call))
    return out


def undo_wraps(text: str, wraps: list[tuple[WrapEdit, ast.Call]]) -> str:
    """`text` with each wrapping call replaced by the call it wraps."""
    return _replaced(text, [(call, ast.get_source_segment(text, call.args[0])) for _, call in wraps])


def _callee(func) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _names(func, function: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == function) or \
        (isinstance(func, ast.Attribute) and func.attr == function)


def _replaced(text: str, spans: list[tuple[ast.AST, str]], wrap: bool = True) -> str:
    """`text` with each node's source replaced, in parentheses when `wrap` (ast offsets are UTF-8
    bytes within a line)."""
    data = text.encode("utf-8")
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for node, new in sorted(spans, key=lambda s: (s[0].lineno, s[0].col_offset), reverse=True):
        begin = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + node.end_col_offset
        data = data[:begin] + (f"({new})" if wrap else new).encode("utf-8") + data[end:]
    return data.decode("utf-8")


def default_edits(origin: ast.FunctionDef, function: ast.FunctionDef, file: str) -> list[dict]:
    """Defaults of the function that the old method did not have, or had with another value:
    each one listed (a caller that leaves the argument out now gets it)."""
    old = _defaults(origin)
    out = []
    for name, default in _defaults(function).items():
        if name not in old:
            out.append({"file": file, "line": default.lineno, "before": "",
                        "what": f"default added: `{name}={ast.unparse(default)}` (the old method had none for it)"})
        elif ast.unparse(old[name]) != ast.unparse(default):
            out.append({"file": file, "line": default.lineno, "before": "",
                        "what": f"default changed: `{name}={ast.unparse(old[name])}` -> "
                                f"`{name}={ast.unparse(default)}`"})
    return out


def _defaults(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    params = [*fn.args.posonlyargs, *fn.args.args]
    out = dict(zip((a.arg for a in params[len(params) - len(fn.args.defaults):]), fn.args.defaults))
    out.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})
    return out


WORDS = {"changed": "line changed", "removed": "line removed", "added": "line added",
         "mapping-mismatch": "a parameter passes another value than the old body read",
         "call-site": "the call site changed", "import": "an import changed", "default": "a default changed",
         "header": "the statement's header changed"}


def body_edits(report: Report, sources_listed: bool = False, views: tuple[ViewEdit, ...] = (),
               wrappers: tuple[str, ...] = (), declares: tuple[DeclareEdit, ...] = ()) -> list[dict]:
    """What the static check found beyond the move itself: each change of the moved body it does
    not explain (file:line on both sides), each module global the moved code reads that changed.
    Left out: lines apart only in their annotations (`self: Owner`); `sources_listed`: the
    fields' sources changed, listed already (`source_edits`), not again as the lines reading them;
    `views` (listed already): the view's statement, the lines apart only in reading through it, and
    its function as a new global; `wrappers` (listed already, `WrapEdit`): the line apart only in
    the call wrapping the function's result; `declares` (listed already): the line apart only in
    declaring the writes it made."""
    out = []
    through = [(re.compile(rf"\b{re.escape(v.local)}\."), " ".join(f"{v.local} = {v.call}".split())) for v in views]
    view_functions = {v.call.partition("(")[0].rpartition(".")[2] for v in views} | \
        {d.call.rpartition(".")[2] for d in declares}
    for pair in report.pairs:
        static = pair.static
        if not isinstance(static, dict):
            continue
        declared = set().union(*(_writes_declared(r.get("after") or "", declares, through)
                                 for r in static.get("residuals", []))) if declares else set()
        before_file = str(static.get("before", "")).split(":")[0]
        after_file = str(static.get("after", "")).split(":")[0]
        # a component's static check: each moved method where it is ("file:line name; ...")
        files = [{w.rpartition(" ")[2]: w.split(":")[0] for w in str(static.get(side, "")).split("; ")}
                 for side in ("before", "after")]
        for r in static.get("residuals", []):
            if r.get("explained") or (sources_listed and r.get("kind") == "mapping-mismatch"):
                continue
            before, after = (r.get("before") or "").strip(), (r.get("after") or "").strip()
            if before and after and before != after and _unannotated(before) == _unannotated(after) is not None:
                continue
            if wrappers and before and _unwrapped(r.get("after_mapped") or "", wrappers) == _unwrapped(before, ()):
                continue
            if any(" ".join(after.split()) == statement or (before and pattern.sub("self.", after) == before)
                   for pattern, statement in through):
                continue
            if declared and before and (_statements(before) or {""}) <= declared and (
                    not after or _statements(after) is None and _declaring(after, declares)):
                continue
            what = WORDS.get(r["kind"], r["kind"])
            method = r.get("method")
            docstring = _docstring_only(before) and _docstring_only(after)
            if docstring:
                what = "docstring " + {"added": "added", "removed": "removed"}.get(r["kind"], "changed") + \
                    " (not behaviour)"
            elif before == after:
                what += (f": `{_short(before)}` reads the same, but where the code now is, its names stand for other "
                         f"objects (`self` is the new home)")
            else:
                what += ": " + " → ".join(f"`{_short(x)}`" if x else "nothing" for x in (before, after))
            b_file, a_file = (files[0].get(method, before_file), files[1].get(method, after_file)) if method \
                else (before_file, after_file)
            out.append({"file": a_file if r.get("after_line") else b_file,
                        "line": r.get("after_line") or r.get("before_line"),
                        "before": f"{b_file}:{r['before_line']}" if r.get("before_line") else None,
                        "what": what, **({"method": method} if method else {}),
                        **({"docstring": True} if docstring else {})})
        for c in static.get("constants", []):
            if c.get("equal") and c.get("detail") == NEW_DEF:
                lines = c.get("lines") or {}
                out.append({"file": after_file, "line": (lines.get("after") or [None])[0], "before": None,
                            "what": f"new `{c['name']}` the moved code calls (run for real in the checks)"})
            if not c.get("equal") and c["name"] not in view_functions:
                lines = c.get("lines") or {}
                readers = c.get("read_by") or []
                out.append({"file": files[1].get(readers[0], after_file) if readers else after_file,
                            "line": (lines.get("after") or [None])[0],
                            "before": f"{before_file}:{lines['before'][0]}" if lines.get("before") else None,
                            "what": f"module global `{c['name']}` changed: `{_short(str(c.get('before')))}` → "
                                    f"`{_short(str(c.get('after')))}`",
                            **({"read_by": c["read_by"]} if c.get("read_by") else {})})
    return out


def _declaring(code: str, declares: tuple[DeclareEdit, ...]) -> ast.Call | None:
    """The declaring call `code` is alone (one of `declares`), else None."""
    try:
        (stmt,) = ast.parse(code.strip()).body
    except (SyntaxError, ValueError):
        return None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return call if isinstance(call, ast.Call) and any(ast.unparse(call.func) == d.call for d in declares) else None


def _writes_declared(code: str, declares: tuple[DeclareEdit, ...], through) -> set[str]:
    """The writes a declaring call stands for, each as the old body would make it on `self` (its
    reads through a view read as `self`), dumped; empty when `code` is no declaring call."""
    call = _declaring(code, declares)
    if call is None:
        return set()
    declare = next(d for d in declares if ast.unparse(call.func) == d.call)
    writes = "\n".join(f"{declare.instance}.{k.arg} = {ast.unparse(k.value)}" for k in call.keywords)
    for pattern in [re.compile(rf"\b{re.escape(declare.instance)}\."), *(p for p, _ in through)]:
        writes = pattern.sub("self.", writes)
    return _statements(writes) or set()


def _statements(code: str) -> set[str] | None:
    """Each statement of `code`, dumped; None when it does not parse as statements that are all
    assignments."""
    try:
        body = ast.parse(code.strip()).body
    except SyntaxError:
        return None
    if not body or not all(isinstance(b, ast.Assign) for b in body):
        return None
    return {ast.dump(b) for b in body}


def _unwrapped(code: str, wrappers: tuple[str, ...]) -> str | None:
    """The code's AST with each one-argument call of a `wrappers` function replaced by its
    argument; None when it does not parse."""
    class Unwrap(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if len(node.args) == 1 and not node.keywords and ast.unparse(node.func) in wrappers:
                return node.args[0]
            return node

    try:
        return ast.dump(Unwrap().visit(ast.parse(code.strip())))
    except SyntaxError:
        return None


def _docstring_only(code: str) -> bool:
    """Whether `code` is nothing or a lone string literal (a docstring: not behaviour unless
    `__doc__` is read)."""
    if not code:
        return True
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return False
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str)


def _short(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= 120 else text[:110] + " …"


class _NoAnnotations(ast.NodeTransformer):
    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef


def _unannotated(code: str) -> str | None:
    """The code's AST without annotations (a `def` header alone given an empty body); None when
    it does not parse."""
    text = code.rstrip()
    if text.startswith(("def ", "async def ", "class ", "if ", "for ", "while ", "with ")):
        text = text.removesuffix(":") + ":\n    pass"
    try:
        return ast.dump(_NoAnnotations().visit(ast.parse(text)))
    except SyntaxError:
        return None
