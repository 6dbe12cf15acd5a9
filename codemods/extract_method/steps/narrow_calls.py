"""Step 4 without a wrapper (`--no-wrapper`): the calls of the function pass what `--narrow` names.

No method is left to pass `param=arg` for its callers: the call sites step 2 made in the class, and
the calls step 3 rewrote in other files (`--pass-self`), call `ALIAS.function(param=arg, ...)`
themselves. Each becomes `ALIAS.function(new_param=arg.attribute, ...)` (`narrow_param.narrowed_call`;
`ALIAS.function(..., arg.attribute, ...)` where it passed `arg` by position, `--positional`), its
statement formatted again alone.

Every file that spells the function's name is read (a run may start at step 4 after steps 1-3 were
written), and what the rewrite cannot follow is refused with its line: `ALIAS.function` not called,
the function imported by name or reached through the target module's full name, a call passing
the parameter other than once by keyword.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Mapping, Optional, Sequence

import libcst as cst

from codemods.core.errors import Refusal
from codemods.core.formatting import Style
from codemods.extract_method.call_sites import find_sites, holders, rewrite_sites
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.steps.narrow_param import narrowed_call
from codemods.syntax.nodes import dotted, top_class
from codemods.syntax.restyle import restyle
from codemods.syntax.source_edits import SourceEdits
from pysource import parsing
from pysource.checkout import Checkout
from pysource.modules import absolute_module


def narrow_class_calls(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style,
                       positional: Sequence[str] = ()) -> tuple[cst.Module, int]:
    """(the class's module with every `ALIAS.function(...)` of the class narrowed, how many); any
    other spelling of `ALIAS.function` in the module refused. `positional`: the function's
    positional-or-keyword parameters before narrowing (`narrowed_call`)."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    alias, callee = recipe.target_alias, recipe.callee
    sites = [s for s in find_sites(cls, recipe.function, text, holders(text, recipe.class_name, recipe.function))
             if dotted(s.node.value) == alias]
    for site in sites:
        if site.call is None:
            raise Refusal(f"{callee} is used other than by calling it (passed as a value?): its narrowed "
                          f"parameters cannot be passed there", path, site.line)
    spelled = [text.count("\n", 0, hit.start()) + 1
               for hit in re.finditer(rf"(?<![\w.]){re.escape(alias)}\s*\.\s*{re.escape(recipe.function)}\b", text)]
    if len(spelled) > len(sites):
        lines = {s.line for s in sites}
        at = next((line for line in spelled if line not in lines), spelled[len(sites)])
        raise Refusal(f"{callee} is spelled outside {recipe.class_name}'s calls of it (in another function, a "
                      f"string?): this step rewrites the class's calls only; rewrite that one by hand first", path, at)
    if not sites:
        return module, 0
    cls = rewrite_sites(cls, sites,
                        lambda site: narrowed_call(site.call, recipe, path, site.line, "the call", positional), style)
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:])), len(sites)


def narrow_outside_calls(checkout: Checkout, current: Mapping[Path, Optional[str]], recipe: Recipe, style: Style,
                         skip: set[Path], positional: Sequence[str] = ()) -> tuple[dict[Path, str], int]:
    """({file: its new text}, how many calls) for the files other than `skip` that call the function
    through ALIAS (`current`: the texts the steps so far left, the others read from the checkout;
    `positional`: as `narrow_class_calls`)."""
    files = {p.resolve(): p for p, t in current.items() if t is not None}  # the same file named once
    for p in checkout.select(lambda data: True, mentioning=recipe.function.encode()):
        files.setdefault(Path(p).resolve(), Path(p))
    skipped = {p.resolve() for p in skip}
    out: dict[Path, str] = {}
    count = 0
    for resolved in sorted(set(files) - skipped):
        key = path = files[resolved]
        text = current[key] if key in current else checkout.text(path)
        if recipe.function not in text:
            continue
        calls = _calls_in(path, text, recipe, checkout.package_of(path) or "")
        if not calls:
            continue
        edits, shift, lines = SourceEdits(text), 0, set()
        for call in calls:
            old = edits.segment(call)
            parsed = cst.parse_expression(old)
            new = cst.Module([]).code_for_node(narrowed_call(parsed, recipe, path, call.lineno, "the call",
                                                              positional))
            edits.replace_node(call, new)
            lines.add(call.lineno + shift)
            shift += new.count("\n") - old.count("\n")
        out[key] = restyle(edits.result(), lines, style)
        count += len(calls)
    return out, count


def _calls_in(path: Path, text: str, recipe: Recipe, package: str) -> list[ast.Call]:
    """The calls `ALIAS.function(...)` of the file, ALIAS imported from the target's package; any
    other way the file reaches the function refused at its line."""
    tree = parsing.parse(text, str(path))
    alias, function = recipe.target_alias, recipe.function
    local: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            where = absolute_module(node, package)
            for a in node.names:
                if where == recipe.target_package and a.name == alias:
                    local.add(a.asname or a.name)
                elif where == recipe.target_module and a.name == function:
                    raise Refusal(f"imports {function} from {recipe.target_module} by name: only calls "
                                  f"{recipe.callee}(...) are narrowed; call it so first", path, node.lineno)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr == function):
            continue
        through = ast.unparse(node.value)
        if through == recipe.target_module:
            raise Refusal(f"calls {recipe.target_module}.{function} by its full name: only calls "
                          f"{recipe.callee}(...) are narrowed; call it so first", path, node.lineno)
        if not (isinstance(node.value, ast.Name) and node.value.id in local):
            continue  # another object's attribute of the same name
        if id(node) not in called:
            raise Refusal(f"{through}.{function} is used other than by calling it (passed as a value?): its "
                          f"narrowed parameters cannot be passed there", path, node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == function \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in local:
            calls.append(node)
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    for c in calls:
        inner = [o for o in calls if o is not c and (c.lineno, c.col_offset) <= (o.lineno, o.col_offset)
                 and (o.end_lineno, o.end_col_offset) <= (c.end_lineno, c.end_col_offset)]
        if inner:
            raise Refusal(f"a call of {recipe.callee} inside another one (line {c.lineno}): rewrite one of them by "
                          f"hand first", path, inner[0].lineno)
    return calls
