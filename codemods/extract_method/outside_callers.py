"""`--no-wrapper`: the method's callers outside its class call the function instead.

No method is left for `x.METHOD(...)` to find, so step 3 rewrites every such call where the code
says that `x` is an instance of the class (`checkout.callers`: annotations, constructors, the
checkout's declarations of an attribute): `x.METHOD(a, b=c)` becomes
`ALIAS.function(NAME=x, p=a, b=c)` (`--pass-self NAME`: the function takes the instance whole,
so `x` is evaluated once and first, as before), by position where `--positional` says so, and
the file imports ALIAS as the class's module does (`from PACKAGE import ALIAS`). Only the call
changes; its statement is formatted again alone.

Every other use outside the class that would have found the method is refused, every place at
once: a receiver the code does not type (it may be another class's method of the same name), the
method taken as a value or read by name, a file binding ALIAS to something else, a call nested in
another such call, and any call at all without `--pass-self`, where the function would need the
instance's attributes read out at the call site.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.checkout.callers import Use, method_uses
from codemods.core.errors import Location, Refusal
from codemods.core.formatting import Style
from codemods.extract_method.analysis.rewrites import Param
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.signature import call_arguments, kwarg, new_call
from codemods.extract_method.steps.positional import _PassPositionally
from codemods.syntax.import_placement import add_import, from_import
from codemods.syntax.nodes import parse
from codemods.syntax.restyle import restyle
from codemods.syntax.source_edits import SourceEdits
from pysource.checkout import Checkout
from pysource.modules import absolute_module
from pysource.receivers import Program

NO_METHOD = "with --no-wrapper no method is left for it"


@dataclass
class OutsideCall:
    """One `x.METHOD(...)` outside the class that step 3 rewrites."""

    path: Path
    call: ast.Call
    line: int
    text: str  # the file's text the positions are of


@dataclass
class OutsideCalls:
    calls: list[OutsideCall]
    importing: set[Path]  # the files that need the import of ALIAS

    def edges(self, checkout: Checkout, target_module: str) -> list[tuple[str, str]]:
        """The import edges the rewrite adds: each caller's module imports the target module."""
        modules = {checkout.module_of(p) for p in self.importing}
        return sorted((m, target_module) for m in modules if m is not None)


def find_outside_calls(checkout: Checkout, recipe: Recipe, found: list[Location]
                       ) -> tuple[OutsideCalls, list[Location]]:
    """(the calls to rewrite, the uses to refuse) among `found`, the uses outside the class that
    would have found the method through an instance (`method_usages`)."""
    if not found:
        return OutsideCalls([], set()), []
    if recipe.pass_self is None and not recipe.is_property:
        return OutsideCalls([], set()), [Location(u.path, u.line, f"{_what(u)}: {NO_METHOD}, and a caller outside "
                                                                  f"the class is rewritten only when the function "
                                                                  f"takes the instance whole (--pass-self NAME)")
                                         for u in found]
    program = Program(checkout)
    typed = method_uses(program, f"{recipe.source_module}.{recipe.class_name}", [recipe.method_name])
    prop = recipe.is_property  # a read is its call
    callers = {(Path(u.path), u.line): u for u in typed.callers if u.in_class is None and (u.called or prop)}
    reasons = {(Path(a.path), a.line): a.what for a in typed.ambiguous}
    reasons.update({(Path(u.path), u.line): f"uses {u.receiver}.{u.method} other than by calling it (passed as a "
                                            f"value?): {NO_METHOD}" for u in typed.values + typed.callers
                    if u.in_class is None and not u.called and not prop})
    if prop:
        reasons.update({(Path(u.path), u.line): f"writes {u.receiver}.{u.method}: {NO_METHOD}"
                        for u in typed.callers if u.in_class is None and not isinstance(u.node.ctx, ast.Load)})
    reasons.update({(Path(a.path), a.line): f"{a.what}: {NO_METHOD}" for a in typed.by_name})
    calls, refused = [], []
    for u in found:
        key = (Path(u.path), u.line)
        if key in reasons:
            refused.append(Location(u.path, u.line, reasons[key]))
        elif key in callers:
            use = callers[key]
            f = program.file(use.path)
            node = use.node if prop else f.parent(use.node)  # a property: the read `x.prop` is the call
            calls.append(OutsideCall(Path(use.path), node, use.line, checkout.text(use.path)))
        # else: the code says the receiver is something else, whose method this is
    refused += _nested(calls)
    importing = set()
    for path in {c.path for c in calls}:
        how = _alias_binding(checkout, path, recipe)
        if isinstance(how, Location):
            refused.append(how)
        elif not how:
            importing.add(path)
    return OutsideCalls(calls, importing), refused


def _what(u: Location) -> str:
    return u.what.removesuffix(": steps 1-2 would break it")


def _nested(calls: list[OutsideCall]) -> list[Location]:
    """A call inside another's arguments: the rewrite replaces whole calls, one at a time."""
    out = []
    for c in calls:
        outer = next((o for o in calls if o is not c and o.path == c.path and _inside(c.call, o.call)), None)
        if outer is not None:
            out.append(Location(c.path, c.line, f"a call of {ast.unparse(c.call.func)} inside another one (line "
                                                f"{outer.line}): rewrite one of them by hand first"))
    return out


def _inside(inner: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno, inner.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _alias_binding(checkout: Checkout, path: Path, recipe: Recipe):
    """True when the file already imports ALIAS from the target package (and binds it no other way),
    False when nothing binds it, else the refusal at the first other binding."""
    alias, tree, package = recipe.target_alias, checkout.parse(path), checkout.package_of(path)
    imported, other = False, None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if (a.asname or a.name.partition(".")[0]) != alias:
                    continue
                if isinstance(node, ast.ImportFrom) and a.asname is None and a.name == alias and \
                        absolute_module(node, package) == recipe.target_package:
                    imported = True
                else:
                    other = other or node
        elif _binds(node, alias):
            other = other or node
    if other is not None:
        return Location(path, other.lineno, f"binds {alias}, the name the calls of {recipe.callee} would need for "
                                            f"the target module: rename it first")
    return imported


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, ast.arg):
        return node.arg == name
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    return isinstance(node, ast.ExceptHandler) and node.name == name


def rewrite_outside_calls(outside: OutsideCalls, recipe: Recipe, params: cst.Parameters, positional: list[str],
                          style: Style, text_of, checkout: Checkout, reads: Optional[list[Param]] = None
                          ) -> tuple[dict[Path, str], int]:
    """({file: its new text}, how many calls) with every call of `outside` rewritten (`text_of(path)`:
    the file as the steps so far left it; `params`: the method's original parameters; `reads`: a
    property's inferred parameters, each passed as `receiver.X` where the class passes `self.X`)."""
    out: dict[Path, str] = {}
    count = 0
    by_file: dict[Path, list[OutsideCall]] = {}
    for c in outside.calls:
        by_file.setdefault(c.path, []).append(c)
    for path, calls in by_file.items():
        text = text_of(path)
        if text != calls[0].text:  # an earlier step changed the file (a moved global's import): find them again
            calls = _found_again(path, text, recipe, checkout)
        edits, shift, lines = SourceEdits(text), 0, set()
        count += len(calls)
        for c in sorted(calls, key=lambda c: (c.call.lineno, c.call.col_offset)):
            old = edits.segment(c.call)
            new = _new_call(old, recipe, params, positional, style, path, c.line) if not recipe.is_property else \
                _new_read(old, recipe, reads or [], positional, style, path, c.line)
            edits.replace_node(c.call, new)
            lines.add(c.call.lineno + shift)
            shift += new.count("\n") - old.count("\n")
        new_text = restyle(edits.result(), lines, style)
        if path in outside.importing:
            module = add_import(parse(path, new_text), from_import(recipe.target_package, [recipe.target_alias]),
                                style, checkout.package_of(path) or "")
            new_text = module.code
        out[path] = new_text
    return out, count


def _found_again(path: Path, text: str, recipe: Recipe, checkout: Checkout) -> list[OutsideCall]:
    program = Program(checkout.with_texts({checkout.relative(path, checkout.package_root): text}))
    typed = method_uses(program, f"{recipe.source_module}.{recipe.class_name}", [recipe.method_name], only={path})
    f = program.file(path)
    return [OutsideCall(path, u.node if recipe.is_property else f.parent(u.node), u.line, text) for u in typed.callers
            if u.in_class is None and (u.called or recipe.is_property)]


def _new_call(old: str, recipe: Recipe, params: cst.Parameters, positional: list[str], style: Style, path: Path,
              line: int) -> str:
    """`x.METHOD(args)` as `ALIAS.function(NAME=x, args by keyword)` (by position where `positional` says)."""
    call = cst.parse_expression(old)
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == recipe.method_name):
        raise Refusal(f"{old!r} is not a call of {recipe.method_name} this tool can rewrite", path, line)
    receiver = call.func.value
    new = new_call(call, recipe.callee, [kwarg(recipe.pass_self, receiver), *call_arguments(call, params, path, line)])
    if positional:
        new = new.visit(_PassPositionally(recipe.callee, positional, style))
    return cst.Module([]).code_for_node(new)



class _Receiver(cst.CSTTransformer):
    """`self` -> the receiver (in a parameter's argument `self.X.Y`)."""

    def __init__(self, receiver: cst.BaseExpression):
        self.receiver = receiver

    def leave_Name(self, original, updated):
        return self.receiver if updated.value == "self" else updated


def _name_chain(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _new_read(old: str, recipe: Recipe, reads: list[Param], positional: list[str], style: Style, path: Path,
              line: int) -> str:
    """A property's read `x.prop` as `ALIAS.function(X=x.X, ...)` (`--pass-self NAME`: `NAME=x`), by
    position where `positional` says. The receiver is evaluated once per parameter: more than one
    (or none), it must be a chain of names (`self.runner`), else refused."""
    node = cst.parse_expression(old)
    if not (isinstance(node, cst.Attribute) and node.attr.value == recipe.method_name):
        raise Refusal(f"{old!r} is not a read of {recipe.method_name} this tool can rewrite", path, line)
    receiver = node.value.with_changes(lpar=(), rpar=()) if _name_chain(node.value) else node.value
    if recipe.pass_self:
        args = [kwarg(recipe.pass_self, receiver)]
    else:
        if len(reads) != 1 and not _name_chain(receiver):
            raise Refusal(f"{old}: the function takes {len(reads)} attributes of {cst.Module([]).code_for_node(receiver)}"
                          f", which would be evaluated {'once each' if reads else 'never'}: bind it to a name first",
                          path, line)
        args = [kwarg(p.name, cst.parse_expression(p.argument).visit(_Receiver(receiver))) for p in reads]
    new = cst.Call(cst.parse_expression(recipe.callee), args, lpar=node.lpar, rpar=node.rpar)
    if positional:
        new = new.visit(_PassPositionally(recipe.callee, positional, style))
    return cst.Module([]).code_for_node(new)
