"""Step 4: replace a parameter read only as `param.attribute` by a parameter of its own.

In the moved function `param: X` becomes `new_param: annotation` and every
`param.attribute` becomes `new_param` (several narrows of one parameter give several new
parameters, in place of the old one, keyword-only or positional-or-keyword as it was); the
wrapper passes `arg.attribute` for `param=arg`, and for `arg` passed by position (`--positional`)
`arg.attribute` at its place, one after the other. Only the function is formatted again. An
import step 2 added only for `X` then goes.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.syntax.nodes import LineMap, class_members, def_line, dotted, plain_names, top_class
from codemods.core.errors import Refusal
from codemods.core.formatting import Style, format_statement
from codemods.syntax.travelling_code import free_names
from codemods.syntax.fstring_debug import mentions_name, spell_out_debug_fields
from codemods.extract_method.recipe import Narrow, Recipe
from codemods.extract_method.signature import kwarg
from codemods.syntax.tidy import uses
from codemods.syntax.type_checking import drop_imports
from codemods.syntax.nodes import parse_text
from codemods.syntax.annotations import attribute_types
from pysource import parsing
from pysource.modules import absolute_module


class _NarrowReads(cst.CSTTransformer):
    """`param.attribute` -> `new`; every other node is traversed normally, so a read nested in a
    longer chain (`param.attribute.startswith(...)`, `f(param.attribute).x`) is replaced too."""

    def __init__(self, narrows: list[Narrow]):
        self.new = {(n.param, n.attribute): n.new_param for n in narrows}

    def leave_Attribute(self, original, updated):
        if isinstance(updated.value, cst.Name):
            new = self.new.get((updated.value.value, updated.attr.value))
            if new is not None:
                return cst.Name(new, lpar=updated.lpar, rpar=updated.rpar)
        return updated


class _Uses(cst.CSTVisitor):
    """Where `param` still stands as a name (not an attribute's or a keyword's name), and where
    `param.attribute` is written: each one a use the narrowing cannot carry."""

    def __init__(self, param: str, attributes: set[str], line):
        self.param, self.attributes, self.line = param, attributes, line
        self.found: list[tuple[int, str]] = []
        self._skip: set[int] = set()
        shown = " or ".join(f"{param}.{a}" for a in sorted(attributes))
        self.other = f"{param} used other than by reading {shown}"

    def _narrowed(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Attribute) and m.matches(node.value, m.Name(self.param)) \
            and node.attr.value in self.attributes

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))
        if self._narrowed(node):
            self._skip.add(id(node.value))  # the read the narrowing replaces

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.param and id(node) not in self._skip:
            self.found.append((self.line(node), self.other))

    def _targets(self, targets) -> None:
        for t in targets:
            for a in m.findall(t, m.Attribute()):
                if self._narrowed(a):
                    self.found.append((self.line(a), f"write to {dotted(a)}"))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets([t.target for t in node.targets])

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets([node.target])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets([node.target])

    def visit_Del(self, node: cst.Del) -> None:
        self._targets([node.target])


def _name_uses(node: cst.CSTNode, name: str, line) -> list[int]:
    """The lines where `name` stands as a name in `node` (a parameter, a variable, an import): not
    an attribute's name (`server_args.name`) nor a keyword's (`f(name=...)`)."""
    found = _Uses(name, set(), line)
    node.visit(found)
    return sorted(at for at, _ in found.found)


def expand_narrows(code: str, recipe: Recipe) -> tuple[Narrow, ...]:
    """The recipe's narrows, a `PARAM` alone (empty attribute) standing for each `PARAM.ATTR` the
    function reads (in order of first read), named `PARAM_ATTR`."""
    out: list[Narrow] = []
    for n in recipe.narrows:
        if n.attribute:
            out.append(n)
            continue
        funcs = [s for s in parse_text(code).body if isinstance(s, cst.FunctionDef)
                 and s.name.value == recipe.function]
        reads = [a.attr.value for f in funcs for a in m.findall(f.body, m.Attribute(value=m.Name(n.param)))]
        out += [Narrow(n.param, a, f"{n.param}_{a}") for a in dict.fromkeys(reads)]
    return tuple(out)


def narrow_function(code: str, path: Path, recipe: Recipe, style: Style) -> str:
    """The target module's new text, with the function's narrowed parameters."""
    name = recipe.function
    module = parse_text(code)
    defs = [(i, s) for i, s in enumerate(module.body) if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(defs) != 1:
        at = _position(module, defs[1][1].name) if defs else _text_line(code, f"def {name}(")
        raise Refusal(f"{name} is not defined exactly once at module level", path, at)
    index, func = defs[0]
    line = LineMap(func, _text_line(code, f"def {name}("))
    lists = {"params": list(func.params.params), "kwonly_params": list(func.params.kwonly_params)}
    by_param: dict[str, list[Narrow]] = {}
    for n in recipe.narrows:
        by_param.setdefault(n.param, []).append(n)
    for param, narrows in by_param.items():
        found = [(kind, i) for kind, params in lists.items() for i, p in enumerate(params) if p.name.value == param]
        if len(found) != 1:
            raise Refusal(f"{name} has no parameter {param} (keyword-only, or positional-or-keyword after "
                          f"--positional)", path, line(func.name))
        (kind, place), = found
        params = lists[kind]
        if kind == "params" and params[place].default is not None and any(q.default is not None
                                                                             for q in params[:place]):
            raise Refusal(f"{name}: {param} has a default and follows a parameter with one: narrowed, its "
                          f"parameters take none, and could not follow it positionally", path, line(params[place]))
        uses = _Uses(param, {n.attribute for n in narrows}, line)
        func.body.visit(uses)
        if uses.found:
            at, why = min(uses.found)
            raise Refusal(f"{name}: {why}", path, at)
        for n in narrows:
            clash = _name_uses(func, n.new_param, line)
            if clash:
                raise Refusal(f"{name} already uses the name {n.new_param}", path, clash[0])
        params[place:place + 1] = [
            params[place].with_changes(name=cst.Name(n.new_param), default=None, equal=cst.MaybeSentinel.DEFAULT,
                                        annotation=cst.Annotation(cst.parse_expression(n.annotation))
                                        if n.annotation else None) for n in narrows]
    narrowed = [mentions_name(param) for param in by_param]
    body = spell_out_debug_fields(func.body, lambda e: any(check(e) for check in narrowed))
    body = body.visit(_NarrowReads(list(recipe.narrows)))
    left = set(by_param) & plain_names(body)
    if left:  # never leave a read of a parameter that no longer exists
        raise Refusal(f"{name} uses {', '.join(sorted(left))} other than by reading the narrowed attributes",
                      path, line(func.name))
    func = func.with_changes(params=func.params.with_changes(**lists), body=body)
    func = format_statement(func, 0, style)
    return module.with_changes(body=(*module.body[:index], func, *module.body[index + 1:])).code


def drop_unused_imports(before: str, after: str, function: str, style: Style,
                        keep: Callable[[set[str]], set[str]] = lambda names: set()) -> str:
    """`after` (the target once narrowed) without the imports of names that only the function's
    narrowed-away parameters used (their annotations) and that nothing else in it uses; `keep`:
    those of some names that other files read through the target (they stay)."""
    old, new = parse_text(before), parse_text(after)
    gone = free_names(_functions(old, function)) - free_names(_functions(new, function))
    unused = {n for n in gone if not uses(after)[n]}
    unused -= keep(unused) if unused else set()
    return drop_imports(new, unused, style).code if unused else after


def _functions(module: cst.Module, name: str) -> list[cst.FunctionDef]:
    return [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]


def _position(module: cst.Module, node: cst.CSTNode) -> int:
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[node].start.line


def _text_line(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def narrow_caller(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style,
                  positional: Sequence[str] = ()) -> cst.Module:
    """The wrapper passes `new_param=arg.attribute` where it passed `param=arg` (`arg.attribute`
    where it passed `arg` by position: `positional`, as `narrowed_call`)."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    (index, wrapper), = class_members(cls, recipe.method_name)
    callee = recipe.callee
    at = def_line(text, recipe.class_name, recipe.method_name)
    line_of = LineMap(wrapper, at)
    calls = [c for c in m.findall(wrapper, m.Call()) if dotted(c.func) == callee]
    if len(calls) != 1:
        raise Refusal(f"the wrapper {recipe.method_name} calls {callee} {len(calls)} times, not once", path,
                      line_of(calls[1]) if calls else at)
    call = calls[0]
    new_call = narrowed_call(call, recipe, path, line_of(call), "the wrapper", positional)

    class _Swap(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            return new_call if original is call else updated

    wrapper = format_statement(wrapper.visit(_Swap()), 1, style)
    members = list(cls.body.body)
    members[index] = wrapper
    cls = cls.with_changes(body=cls.body.with_changes(body=members))
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:]))


def narrowed_call(call: cst.Call, recipe: Recipe, path: Path, line, who: str, positional: Sequence[str] = ()
                  ) -> cst.Call:
    """`call` passing `new_param=arg.attribute` where it passed `param=arg`, and `arg.attribute`
    (one for each new parameter, in their order) where it passed `arg` by position, `positional`
    naming the function's positional-or-keyword parameters before narrowing (`--positional`).
    `who` passes it, for the refusals: each narrowed parameter passed exactly once (by keyword, or
    by position before any `*args`), and a value read for several attributes a chain of names,
    which reading twice cannot change."""
    args = list(call.args)
    callee = recipe.callee
    leading = next((i for i, a in enumerate(args) if a.keyword is not None or a.star), len(args))
    replaced: dict[int, list[cst.Arg]] = {}  # the index of an argument in `args` -> what replaces it
    for param in dict.fromkeys(n.param for n in recipe.narrows):
        found = [i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == param]
        place = list(positional).index(param) if param in positional else None
        if place is not None and place < leading:
            found.append(place)
        elif place is not None and any(a.star == "*" for a in args):
            raise Refusal(f"{who} passes *args to {callee}, which may fill {param}: only known at run time", path,
                          line)
        if len(found) != 1:
            how = f"{param} to {callee} exactly once, by keyword or by position" if place is not None else \
                f"{param}= to {callee} exactly once"
            raise Refusal(f"{who} does not pass {how}", path, line)
        i = found[0]
        arg = args[i]
        names = [n.new_param for n in recipe.narrows if n.param == param]
        chain = dotted(arg.value)
        if len(names) > 1 and (chain is None or chain.endswith(")")):
            shown = f"{param}=" if arg.keyword is not None else ""
            raise Refusal(f"{who} passes {shown}{cst.Module([]).code_for_node(arg.value)} to {callee}: narrowed "
                          f"into {', '.join(names)}, it would be evaluated once each; pass a name", path, line)
        new = [cst.Attribute(value=arg.value, attr=cst.Name(n.attribute)) for n in recipe.narrows if n.param == param]
        if arg.keyword is None:
            replaced[i] = [arg.with_changes(value=new[0]), *(cst.Arg(value) for value in new[1:])]
        else:
            replaced[i] = [arg.with_changes(keyword=cst.Name(names[0]), value=new[0]),
                           *(kwarg(name, value) for name, value in zip(names[1:], new[1:]))]
    out = [new for i, a in enumerate(args) for new in replaced.get(i, [a])]
    return call.with_changes(args=out)


def positional_names(code: str, function: str) -> list[str]:
    """The positional-or-keyword parameters of `function` in the module `code` (none: not defined
    once at module level), in order: what calls may pass by position."""
    funcs = _functions(parse_text(code), function)
    return [p.name.value for p in funcs[0].params.params] if len(funcs) == 1 else []


def annotate_narrows(narrows: tuple[Narrow, ...], code: str, recipe: Recipe, checkout, root: Path
                     ) -> tuple[Narrow, ...]:
    """`narrows`, each without an annotation given one where the parameter is annotated with a
    class the target imports and that class declares the attribute's type unambiguously
    (`enable_symm_mem: bool = False` in `ServerArgs`), a type of builtins only (`bool`, `int |
    None`: nothing to import); else left unannotated."""
    if all(n.annotation for n in narrows):
        return narrows
    funcs = [s for s in parse_text(code).body if isinstance(s, cst.FunctionDef) and s.name.value == recipe.function]
    if len(funcs) != 1:
        return narrows
    params = (*funcs[0].params.params, *funcs[0].params.kwonly_params)
    annotated = {p.name.value: p.annotation.annotation for p in params if p.annotation}
    imported: dict[str, tuple[str, str]] = {}
    for node in ast.walk(parsing.parse(code)):
        if isinstance(node, ast.ImportFrom):
            where = absolute_module(node, recipe.target_package)
            for a in node.names:
                if where:
                    imported[a.asname or a.name] = (where, a.name)
    out = []
    for n in narrows:
        ann = annotated.get(n.param)
        found = imported.get(ann.value) if isinstance(ann, cst.Name) else None
        rel = checkout.module_file(found[0]) if found and not n.annotation else None
        if rel is not None:
            kind = attribute_types(checkout.text(rel), found[1], root, found[0], {n.attribute}).get(n.attribute)
            kind = _without_annotated(kind, checkout, found[0]) if kind is not None else None
            if kind is not None and _builtins_only(kind):
                n = replace(n, annotation=kind)
        out.append(n)
    return tuple(out)


def _builtins_only(annotation: str) -> bool:
    try:
        tree = parsing.expression(annotation)
    except SyntaxError:
        return False
    allowed = (ast.Expression, ast.Name, ast.Load, ast.Subscript, ast.Tuple, ast.BinOp, ast.BitOr, ast.Constant)
    return all(isinstance(x, allowed) for x in ast.walk(tree)) and all(
        hasattr(builtins, x.id) for x in ast.walk(tree) if isinstance(x, ast.Name)) and not any(
        isinstance(x, ast.Constant) and x.value is not None for x in ast.walk(tree))


_ANNOTATED = ("typing.Annotated", "typing_extensions.Annotated")


def _without_annotated(annotation: str, checkout, module: str) -> str:
    """`T` for `Annotated[T, ...]` (however the class's module spells Annotated: `A[bool, "..."]`
    with `A = Annotated` in another module), else `annotation`."""
    try:
        tree = parsing.expression(annotation).body
    except SyntaxError:
        return annotation
    if not (isinstance(tree, ast.Subscript) and isinstance(tree.value, ast.Name)
            and isinstance(tree.slice, ast.Tuple) and tree.slice.elts):
        return annotation
    return ast.unparse(tree.slice.elts[0]) if _is_annotated(checkout, f"{module}.{tree.value.id}") else annotation


def _is_annotated(checkout, qualname: str, depth: int = 3) -> bool:
    """Whether `qualname` names typing.Annotated, through imports and plain `X = Y` aliases."""
    found = checkout.canonical(qualname)
    if found in _ANNOTATED or depth == 0:
        return found in _ANNOTATED
    module, _, name = found.rpartition(".")
    rel = checkout.module_file(module) if module else None
    if rel is None:
        return False
    for s in checkout.parse(rel).body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and s.targets[0].id == name and isinstance(s.value, (ast.Name, ast.Attribute)):
            return _is_annotated(checkout, f"{module}.{ast.unparse(s.value)}", depth - 1)
    return False
