"""Which steps a tree has already been through, read off the class and the target module.

0: the instance method; 1: it is a `@staticmethod`; 2: the class has no such method and a
call site calls the module function (`module.function(...)`); 3: a wrapper calls the module
function and step 4 has work left (a parameter to narrow, or something the tidy would drop);
4: it has none, or the class never had the method and the target module defines the function,
or the method calls it by a name imported from there (upstream's own extraction).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import libcst as cst
import libcst.matchers as m

from codemods.syntax.nodes import class_members, def_line, dotted, top_class
from codemods.core.errors import BadInput, Refusal
from codemods.core.formatting import Style
from codemods.extract_method.recipe import Recipe
from codemods.syntax.tidy import tidy_source
from codemods.syntax.nodes import parse_text

NOT_FOUND = -1


@dataclass(frozen=True)
class Status:
    done: int  # last step applied: 0..4, or NOT_FOUND
    line: Optional[int]


def detect(module: cst.Module, text: str, path: Path, target_text: Optional[str], recipe: Recipe) -> Status:
    _, cls = top_class(module, recipe.class_name, path)
    members = class_members(cls, recipe.method_name)
    line = def_line(text, recipe.class_name, recipe.method_name)
    defines = bool(target_text) and f"def {recipe.function}(" in target_text
    if not members:
        hit = re.search(rf"(?<![\w.]){re.escape(recipe.callee)}\s*\(", text)
        if hit:  # steps 1-2: the call site calls the module function (step 3 checks it exactly)
            at = text.count("\n", 0, hit.start()) + 1
            if not defines:
                raise BadInput(f"{recipe.class_name} calls {recipe.callee}(...) but {recipe.target_file} does not "
                               f"define {recipe.function}", path, at)
            if recipe.no_wrapper and not (recipe.positional and _takes_keywords(target_text, recipe)):
                # step 3 leaves no wrapper: done when the function is as step 3 makes it
                return Status(3 if _step_4_pending(module, target_text, recipe) else 4, at)
            return Status(4 if recipe.narrows and not _takes(target_text, recipe) else 2, at)
        return Status(4 if defines else NOT_FOUND, line)
    if len(members) > 1:
        return Status(0, line)  # step 1 refuses, naming the second definition
    node = members[0][1]
    if isinstance(node, cst.SimpleStatementLine):  # `name = ...` in the class: no step writes that
        raise Refusal(f"{recipe.qualified} is a class-level assignment, not a method: "
                      f"this codemod neither writes nor understands that form; convert it by hand", path, line)
    decorators = [dotted(d.decorator) for d in node.decorators]
    if decorators == ["staticmethod"]:
        return Status(1, line)
    called = {dotted(c.func) for c in m.findall(node, m.Call())}
    if recipe.callee in called:
        return Status(3 if target_text and _step_4_pending(module, target_text, recipe) else 4, line)
    if defines and recipe.function in called:  # upstream style: the function imported by name
        return Status(4, line)
    return Status(0, line)


def _step_4_pending(module: cst.Module, target_text: str, recipe: Recipe) -> bool:
    if recipe.narrows:
        return _takes(target_text, recipe)
    try:
        target = parse_text(target_text)
    except cst.ParserSyntaxError:
        return False
    return bool(tidy_source(module, target, recipe.function, Style(enabled=False), globals_=recipe.tidy_globals)[1])


def _takes_keywords(target_text: str, recipe: Recipe) -> bool:
    """Whether the moved function still takes keyword-only parameters `--positional` would make
    positional-or-keyword (the first one has a default, or every one before it has none)."""
    try:
        module = parse_text(target_text)
    except cst.ParserSyntaxError:
        return False
    for s in module.body:
        if isinstance(s, cst.FunctionDef) and s.name.value == recipe.function and s.params.kwonly_params:
            first = s.params.kwonly_params[0]
            return first.default is not None or not any(q.default is not None for q in s.params.params)
    return False


def _takes(target_text: str, recipe: Recipe) -> bool:
    """Whether the moved function still takes a parameter step 4 narrows."""
    try:
        module = parse_text(target_text)
    except cst.ParserSyntaxError:
        return False
    narrowed = {n.param for n in recipe.narrows}
    for s in module.body:
        if isinstance(s, cst.FunctionDef) and s.name.value == recipe.function:
            return any(p.name.value in narrowed for p in s.params.kwonly_params)
    return False
