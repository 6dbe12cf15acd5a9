"""The `--kv-cache-dtype` strings the configurations must include: every string the decision
tests a value against, so that every branch guarded by such a test can be reached.

Collected from the decision's code (and the helpers it calls):
- `==` / `!=` / `in` / `not in` comparisons: their string constants, including the elements of
  a literal container, or of a module-level literal container named there
  (`kv in SUPPORTED`);
- `.startswith(p)` / `.endswith(s)` (a string or a tuple of strings): `p` and `s` themselves,
  plus a longer value that passes the test (`p + "x"`, `"x" + s`);
- subscripts / `.get` of a module-level literal dict (`MAP[kv]`): its string keys.
Branch coverage (coverage.py) then says whether these were enough: a branch never hit makes
the pair "inconclusive", never "equivalent".
"""

from __future__ import annotations

import ast
import functools
import operator

from pysource.bindings import binding_index

AFFIX_FILL = "x"


def _strings(node: ast.AST) -> list[str]:
    return [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]


@functools.lru_cache(maxsize=16)  # per module (by identity); callers do not change it
def literal_globals(tree: ast.Module | None) -> dict[str, ast.AST]:
    """Module-level names bound exactly once, to a literal (`ast.literal_eval` accepts it):
    fixed by the source, so code rather than an input."""
    out: dict[str, ast.AST] = {}
    for stmt in tree.body if tree is not None else []:
        target = value = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        value = _converted_display(value, tree)
        if isinstance(target, ast.Name) and value is not None:
            try:
                ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            out[target.id] = value
    index = binding_index(tree) if out else {}
    return {name: value for name, value in out.items() if len(index.get(name, ())) == 1}


CONVERSIONS = {"frozenset": ast.Set, "set": ast.Set, "tuple": ast.Tuple, "list": ast.List}


def _converted_display(value: ast.AST | None, tree: ast.Module) -> ast.AST | None:
    """`frozenset({"a", "b"})` (also set, tuple, list of a display) read as the display it holds
    (a set display for a set): sglang spells its constant sets so; a module rebinding the builtin's
    name keeps the call as it is."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in CONVERSIONS \
            and len(value.args) == 1 and not value.keywords \
            and isinstance(value.args[0], (ast.Set, ast.List, ast.Tuple)) \
            and value.func.id not in binding_index(tree):
        made = CONVERSIONS[value.func.id](elts=value.args[0].elts, **({} if value.func.id in ("frozenset", "set") else {"ctx": ast.Load()}))
        return ast.copy_location(made, value) if value.args[0].elts or made.__class__ is not ast.Set else value
    return value


def _containers(tree: ast.Module | None) -> dict[str, ast.AST]:
    """Module-level names bound once to a literal tuple / list / set / dict."""
    return {k: v for k, v in literal_globals(tree).items() if isinstance(v, (ast.Tuple, ast.List, ast.Set, ast.Dict))}


def _local_containers(fn: ast.AST, module: ast.Module | None) -> dict[str, ast.AST]:
    """The function's locals bound once, to a literal tuple / list / set / dict (`allowed =
    set(["a", "b"])` too), and never bound otherwise in it: tables of its own."""
    stores: dict[str, int] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    out = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and stores.get(n.targets[0].id) == 1:
            value = _converted_display(n.value, module) if module is not None else n.value
            if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                try:
                    ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                out[n.targets[0].id] = value
    return out


def _affixes(call: ast.Call) -> list[str]:
    """Strings for a `.startswith(...)` / `.endswith(...)` test: the affix and a longer match."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("startswith", "endswith") and call.args):
        return []
    out = []
    for affix in _strings(call.args[0]):
        longer = affix + AFFIX_FILL if call.func.attr == "startswith" else AFFIX_FILL + affix
        out += [affix, longer]
    return out


def string_literals(functions: list[ast.AST], module: ast.Module | None, walk=ast.walk) -> list[str]:
    """The strings, in `walk` order of first appearance, for the given decision functions."""
    found: list[str] = []
    for fn in functions:
        containers = {**_containers(module), **_local_containers(fn, module)}
        for node in walk(fn):
            if isinstance(node, ast.Compare):
                found += _strings(node)
                for side in [node.left, *node.comparators]:
                    if isinstance(side, ast.Name) and side.id in containers:
                        found += _strings(containers[side.id])
            elif isinstance(node, ast.Call):
                found += _affixes(node)
                func = node.func
                if (isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Name)
                        and isinstance(containers.get(func.value.id), ast.Dict)):
                    found += _strings(ast.Tuple(elts=[k for k in containers[func.value.id].keys if k], ctx=ast.Load()))
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                table = containers.get(node.value.id)
                if isinstance(table, ast.Dict):
                    found += _strings(ast.Tuple(elts=[k for k in table.keys if k], ctx=ast.Load()))
    return list(dict.fromkeys(found))


def _keys(table: ast.AST) -> list:
    elts = table.keys if isinstance(table, ast.Dict) else table.elts
    return [e.value for e in elts if isinstance(e, ast.Constant) and type(e.value) in (str, int, float)]


def key_literals(functions: list[ast.AST], module: ast.Module | None, walk=ast.walk) -> list:
    """The keys of the tables the given functions look values up in, in order of first appearance:
    dict and set displays written in them (`defaultdict(f, {"cuda": ...})[device]`) and the
    literal dicts and sets they name, module-level or their own locals (`device in SUPPORTED`)."""
    found: list = []
    for fn in functions:
        tables = {k: v for k, v in {**_containers(module), **_local_containers(fn, module)}.items()
                  if isinstance(v, (ast.Dict, ast.Set))}
        for node in walk(fn):
            if isinstance(node, (ast.Dict, ast.Set)):
                found += _keys(node)
            elif isinstance(node, ast.Name) and node.id in tables:
                found += _keys(tables[node.id])
    return list(dict.fromkeys(found))


def fixed_names(module: ast.Module, unit: ast.AST) -> dict[str, object]:
    """The names whose value the source fixes for `unit`: the module's names bound once to a
    scalar literal (`DEBUG = False`) that `unit` does not bind itself, and the unit's own locals
    bound once, by `name = EXPR`, to an expression of literals and such names
    (`baseline = 24 * (1024**2)`: a test on it always goes one way); and the builtin `range` where
    neither binds the name (so `range(N)` is a fixed sequence)."""
    stores: dict[str, list[ast.AST]] = {}
    for n in ast.walk(unit):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores.setdefault(n.id, []).append(n)
        elif isinstance(n, ast.arg):
            stores.setdefault(n.arg, []).extend([n, n])
        elif isinstance(n, ast.alias):
            stores.setdefault((n.asname or n.name).split(".")[0], []).extend([n, n])
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                stores.setdefault(name, []).extend([n, n])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            stores.setdefault(n.name, []).extend([n, n])
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            stores.setdefault(n.name, []).extend([n, n])
        elif isinstance(n, ast.MatchMapping) and n.rest:
            stores.setdefault(n.rest, []).extend([n, n])
    out = {}
    if "range" not in stores and module is not None and not {"range", "*"} & binding_index(module).keys():
        out["range"] = range  # the builtin, which nothing binds over: `range(128)` is fixed by the source
    for name, node in literal_globals(module).items():
        if name in stores:
            continue
        v = ast.literal_eval(node)
        if isinstance(v, (bool, int, float, str, type(None))):
            out[name] = v
    once = {id(found[0]): name for name, found in stores.items() if len(found) == 1}
    assigned = [(once[id(a.targets[0])], a.value) for a in ast.walk(unit) if isinstance(a, ast.Assign)
                and len(a.targets) == 1 and id(a.targets[0]) in once]
    while True:  # a local fixed by others: `score = layers * size**2`
        new = [(name, value) for name, value in assigned if name not in out
               and is_known(v := constant_value(value, out)) and isinstance(v, (bool, int, float, str, type(None)))]
        if not new:
            return out
        for name, value in new:
            out[name] = constant_value(value, out)


_UNKNOWN = object()


def constant_value(test: ast.AST, constants: dict[str, object]):
    """The value of a test that depends only on literals and on `constants` (names fixed by the
    source: module-level names bound once to a literal, `TYPE_CHECKING`), else _UNKNOWN."""
    if isinstance(test, ast.Constant):
        return test.value
    if isinstance(test, ast.Name):
        return constants.get(test.id, _UNKNOWN)
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "typing" \
            and test.attr == "TYPE_CHECKING":
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = constant_value(test.operand, constants)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(test, ast.BoolOp):
        values = [constant_value(v, constants) for v in test.values]
        if any(v is _UNKNOWN for v in values):
            return _UNKNOWN
        out = values[0]
        for v in values[1:]:
            out = (out and v) if isinstance(test.op, ast.And) else (out or v)
        return out
    if isinstance(test, (ast.Tuple, ast.List)) and not test.elts:
        return ()
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, (ast.USub, ast.UAdd)):
        v = constant_value(test.operand, constants)
        return v if not _number(v) else (-v if isinstance(test.op, ast.USub) else v)
    if isinstance(test, ast.BinOp) and type(test.op) in _ARITHMETIC:
        left, right = constant_value(test.left, constants), constant_value(test.right, constants)
        if not (_number(left) and _number(right)) or isinstance(test.op, ast.Pow) and not -64 <= right <= 64:
            return _UNKNOWN
        try:
            return _ARITHMETIC[type(test.op)](left, right)
        except (ArithmeticError, ValueError):
            return _UNKNOWN
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and constants.get(test.func.id) is range \
            and not test.keywords and 1 <= len(test.args) <= 3:
        args = [constant_value(a, constants) for a in test.args]
        if not all(type(a) is int for a in args):
            return _UNKNOWN
        try:
            return range(*args)
        except ValueError:  # a step of 0
            return _UNKNOWN
    if isinstance(test, ast.Compare) and all(type(op) in _ORDER for op in test.ops):
        values = [constant_value(v, constants) for v in [test.left, *test.comparators]]
        if not all(_number(v) for v in values):
            return _UNKNOWN
        return all(_ORDER[type(op)](a, b) for op, a, b in zip(test.ops, values, values[1:]))
    return _UNKNOWN


def is_known(value) -> bool:
    """`constant_value` found a value."""
    return value is not _UNKNOWN


def _number(v) -> bool:
    return type(v) in (int, float)


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_ORDER = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
          ast.NotEq: operator.ne}
