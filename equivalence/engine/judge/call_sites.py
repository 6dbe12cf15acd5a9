"""Every call site in the class checked against the old one, statically.

The runs execute the first call site only (load/version.py builds the entry from it), while an
extraction without a wrapper (or step 1's static method) rewrites every call site. Here each
AFTER site is paired with the BEFORE site at the same place (same enclosing method, same order)
and its call, bound to the callee's parameters, must pass:

- for a parameter of the old method, what the BEFORE site passed for it (or both its default);
- for any other (`server_args`, `model_config`), what the first AFTER site passes, which the
  runs check;

and its statements (the one calling, and those after it reading a local it bound) must change
around the call as the first site's did: not at all (`x += f(self)` for `x += self.m()`), or into
what the first site's became (`self.y = f(...)` for a bare `self.m()`). A site that does not is a "call-site" residual: a change only running
that site could judge, so the check is inconclusive there, never equivalent.
"""

from __future__ import annotations

import ast
import copy

from pysource.extraction import CallSite, Extraction
from pysource.modules import source_segment

DEFAULT = "<default>"


class _Callee:
    """What a version's call sites call: its parameters (self dropped) with their defaults."""

    def __init__(self, fn: ast.FunctionDef, drop_self: bool, text: str):
        args = fn.args
        positional = args.posonlyargs + args.args
        self.positional = [a.arg for a in positional][1 if drop_self else 0:]
        self.names = self.positional + [a.arg for a in args.kwonlyargs]
        defaults = zip(positional[len(positional) - len(args.defaults):], args.defaults)
        self.defaults = {a.arg: ast.dump(d) for a, d in [*defaults, *zip(args.kwonlyargs, args.kw_defaults)]
                         if d is not None}
        self.text = text

    def bind(self, call: ast.Call, self_name: str) -> dict[str, str] | None:
        """parameter -> `ast.dump` of what the call passes (DEFAULT where nothing), self spelled
        `self`; None when a starred argument or an unknown keyword leaves it unknown. A property's
        read (an `ast.Attribute`) passes nothing."""
        args, keywords = (call.args, call.keywords) if isinstance(call, ast.Call) else ([], [])
        if any(isinstance(a, ast.Starred) for a in args) or len(args) > len(self.positional) \
                or any(k.arg is None or k.arg not in self.names for k in keywords):
            return None
        out = dict.fromkeys(self.names, DEFAULT)
        for name, value in zip(self.positional, args):
            out[name] = _dump(value, self_name)
        for k in keywords:
            out[k.arg] = _dump(k.value, self_name)
        return out

    def passed(self, bound: dict[str, str], name: str) -> str:
        """What the call passes for `name`, its default spelled out."""
        return self.defaults.get(name, DEFAULT) if bound[name] == DEFAULT else bound[name]


def call_site_mismatches(before: Extraction, after: Extraction) -> list[tuple[CallSite | None, CallSite | None, str]]:
    """(BEFORE site, AFTER site, why) for each AFTER call site that does not pass and apply what
    the BEFORE site at its place did, under the map of the first site."""
    b_sites, a_sites = _sites(before), _sites(after)
    b_callee, a_callee = _callee(before, b_sites), _callee(after, a_sites)
    if not a_sites or not b_sites or b_callee is None or a_callee is None:
        return []
    out = []
    first = (b_sites[0], a_sites[0])
    b_first, a_first = b_callee.bind(b_sites[0].call, _self(before, b_sites[0])), \
        a_callee.bind(a_sites[0].call, _self(after, a_sites[0]))
    b_methods, a_methods = _methods(before), _methods(after)
    gone, arrived = [], []  # sites whose method the other version's class does not have
    left, came = [], []  # sites beyond the other version's count in their method (a call that moved)
    for method in dict.fromkeys(s.method for s in b_sites + a_sites):
        bs = [s for s in b_sites if s.method == method]
        as_ = [s for s in a_sites if s.method == method]
        if method not in a_methods:
            gone += bs  # the method left the class (or was deleted): its call went with it
            continue
        if method not in b_methods:
            arrived += as_
            continue
        for b, a in zip(bs, as_):
            why = _mismatch(before, after, (b, a), first, (b_callee, a_callee), (b_first, a_first))
            if why:
                out.append((b, a, why))
        counts = f"{method} calls it {len(bs)} time(s) before, {len(as_)} after"
        left += [(b, counts) for b in bs[len(as_):]]
        came += [(a, counts) for a in as_[len(bs):]]
    # a call that moved to another method (a new one, or one that did not make it): paired in order
    # with one that left its method (or went with it), and compared
    for (b, _), (a, _) in zip(left + [(g, "") for g in gone], came + [(a, "") for a in arrived]):
        why = _mismatch(before, after, (b, a), first, (b_callee, a_callee), (b_first, a_first))
        if why:
            out.append((b, a, f"the call moved from {b.method} to {a.method}, and {why}"))
    moved = min(len(left) + len(gone), len(came) + len(arrived))
    out += [(b, None, counts) for b, counts in left[moved:]]
    rest = (came + [(a, f"{a.method}, a method the class did not have, calls it") for a in arrived])[moved:]
    out += [(None, a, why) for a, why in rest]
    return out


def _methods(ext: Extraction) -> set[str]:
    return {n.name for n in ext.class_node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _mismatch(before, after, pair, first, callees, first_bound) -> str:
    (b, a), (b0, a0), (b_callee, a_callee), (b_first, a_first) = pair, first, callees, first_bound
    b_bound, a_bound = b_callee.bind(b.call, _self(before, b)), a_callee.bind(a.call, _self(after, a))
    if b_bound is None or a_bound is None or b_first is None or a_first is None:
        return "a starred argument or an unknown keyword: which parameters the call fills is not known"
    for name in a_callee.names:
        if name in b_callee.names:  # both left at the default: a changed default is a residual of its own
            if (a_bound[name], b_bound[name]) != (DEFAULT, DEFAULT) \
                    and a_callee.passed(a_bound, name) != b_callee.passed(b_bound, name):
                return f"passes {name} otherwise than the call it replaces"
        elif a_bound[name] != a_first[name]:
            return f"passes {name} otherwise than the first call site ({_where(after, a0)})"
    skeletons = [_skeleton(v, s) for v, s in ((before, b), (after, a), (before, b0), (after, a0))]
    b_skel, a_skel, b0_skel, a0_skel = skeletons
    if not ((a_skel == b_skel and a0_skel == b0_skel) or (a_skel == a0_skel and b_skel == b0_skel)):
        return f"its statements changed otherwise than the first call site's ({_where(after, a0)})"
    return ""


def _sites(ext: Extraction) -> list[CallSite]:
    """The class's call sites of the method or the function, the wrapper's own call excluded."""
    return [s for s in ext.call_sites if s.method != ext.method_name]


def _callee(ext: Extraction, sites: list[CallSite]) -> _Callee | None:
    if not sites:
        return None
    if sites[0].calls == "function":
        return _Callee(ext.function, False, ext.text(ext.target_rel)) if ext.function is not None else None
    if ext.method is None:
        return None
    return _Callee(ext.method, ext.method_kind != "static", ext.text(ext.source_rel))


def _self(ext: Extraction, site: CallSite) -> str:
    fn = _method(ext, site)
    return fn.args.args[0].arg if fn is not None and fn.args.args else "self"


def _method(ext: Extraction, site: CallSite) -> ast.FunctionDef | None:
    return next((f for f in ext.class_node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and f.name == site.method), None)


def _skeleton(ext: Extraction, site: CallSite) -> str:
    """The site's statements (the one calling, then those reading a local it bound) with each call
    of its callee replaced by a placeholder, self spelled `self`."""
    callee = ast.dump(site.call.func if isinstance(site.call, ast.Call) else site.call)  # (a property's read)
    statements = [_Placeholders(callee).visit(copy.deepcopy(s)) for s in site.statements]
    return "\n".join(_dump(s, _self(ext, site)) for s in statements)


class _Placeholders(ast.NodeTransformer):
    def __init__(self, callee: str):
        self.callee = callee

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if ast.dump(node.func) == self.callee:
            return ast.Name("__call__", ast.Load())
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:  # a property's read
        if ast.dump(node) == self.callee:
            return ast.Name("__call__", ast.Load())
        return self.generic_visit(node)


def _dump(node: ast.AST, self_name: str) -> str:
    if self_name != "self":
        node = copy.deepcopy(node)
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id == self_name:
                n.id = "self"
    return ast.dump(node)


def _where(ext: Extraction, site: CallSite) -> str:
    return f"{ext.source_rel}:{site.line}"


def site_source(ext: Extraction, site: CallSite | None) -> str:
    """The site's statements as written ("" for no site)."""
    if site is None:
        return ""
    text = ext.text(ext.source_rel)
    return "\n".join(source_segment(text, s) or "" for s in site.statements)
