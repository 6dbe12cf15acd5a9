"""Which steps a tree has already been through: the shape `pysource.extraction.locate` finds (the
harness's reading of any version, the codemod's output or upstream's), read once (`read`: a
`Reading`), each step saying whether it is done on it (`Step.done`), `progress` counting them.

0: the instance method ("method"); 1: a `@staticmethod` in place ("static"); 2: the class has no
such method and a call site calls the module function ("moved"); 3: a wrapper calls the module
function ("wrapper") and step 4 has work left (a parameter to narrow, or something the tidy
would drop); 4: it has none, or the class never had the method and the target module defines the
function, or the method calls it by a name imported from there (upstream's own extraction).
What no step writes is refused here (a class-level assignment of the name), or left to step 1
to refuse (several definitions).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.core.errors import BadInput, Refusal
from codemods.core.formatting import Style
from codemods.core.steps import Steps
from codemods.extract_method.models import NOT_FOUND, Status
from codemods.extract_method.recipe import Recipe
from codemods.syntax.tidy import tidy_source
from codemods.syntax.nodes import class_members, def_line, parse_text, top_class
from pysource import parsing
from pysource.extraction import Extraction, LocateError, locate

LAST = 4  # the steps of an extraction (`pipeline.STEPS`)


@dataclass
class Reading:
    """The class's module and the target module as the steps' `done` read them (`read`): what the
    class holds of the method, the shape `pysource.extraction.locate` finds, whether the target
    defines the function; what step 4 would still do is computed when a step asks."""

    module: cst.Module  # the class's module
    target_text: Optional[str]  # the target module (None: absent)
    recipe: Recipe
    line: Optional[int]  # the method's line; after step 2, the call site's
    several: bool = False  # the class defines the method more than once (step 1 refuses, naming the second)
    has_method: bool = False  # the class defines it
    shape: Optional[str] = None  # "method", "static", "moved", "wrapper"; None: none found
    ours: bool = False  # the extraction found moves it to the recipe's target module
    defines: bool = False  # the target module defines the function
    alias_ours: bool = False  # the wrapper calls it through the module as the class's module binds it

    @property
    def found(self) -> bool:
        """The method is there, or its extraction is."""
        return self.several or self.has_method or self.moved or self.defines

    @property
    def moved(self) -> bool:
        """The class has no such method and a call site calls the module function."""
        return not self.has_method and self.shape == "moved" and self.ours

    @property
    def without_wrapper(self) -> bool:
        """--no-wrapper, and no keyword-only parameter left for --positional to turn: step 3 leaves
        a tree where the function is called as step 3 makes it."""
        return self.recipe.no_wrapper and not (self.recipe.positional and self.takes_keywords)

    @cached_property
    def takes_keywords(self) -> bool:
        return _takes_keywords(self.target_text, self.recipe)

    @cached_property
    def takes_narrowed(self) -> bool:
        """The moved function still takes a parameter step 4 narrows."""
        return _takes(self.target_text, self.recipe)

    @cached_property
    def step_4_pending(self) -> bool:
        """Step 4 has work left: a parameter to narrow, or something the tidy would drop."""
        return _step_4_pending(self.module, self.target_text, self.recipe)


def progress(root: Path, module: cst.Module, text: str, path: Path, target_text: Optional[str], recipe: Recipe,
             steps: Steps, asked: Optional[range] = None) -> Status:
    """How far the tree has got, for a run asked to do the steps `asked` (None: those it lacks):
    the steps that say they are done on it (`Step.done`, in order), NOT_FOUND when neither the
    method nor its extraction is there; but for two trees a step with nothing to do cannot tell
    apart. Without a wrapper (and without --positional) step 3 changes nothing: a tree after step 2
    is one after step 3 (or 4), so a run asked to start at step 3 starts there. And the last step
    with nothing to do, asked for alone, runs and says so (where a whole run says already applied)."""
    reading = read(root, module, text, path, target_text, recipe)
    status = Status(steps.progress(reading) if reading.found else NOT_FOUND, reading.line)
    if status.done == NOT_FOUND or asked is None:
        return status
    if recipe.no_wrapper and not recipe.positional and status.done in (3, LAST) and asked.start == 3:
        return Status(2, status.line)
    if status.done == LAST and asked == range(LAST, LAST + 1) and recipe.infer and not recipe.narrows and status.line:
        return Status(LAST - 1, status.line)
    return status


def read(root: Path, module: cst.Module, text: str, path: Path, target_text: Optional[str],
         recipe: Recipe) -> Reading:
    """The class's module `text` (parsed: `module`) and the target's `target_text` (None: absent)
    of the tree at `root`, as the steps read them; what no step writes, or goes on from, refused."""
    _, cls = top_class(module, recipe.class_name, path)
    members = class_members(cls, recipe.method_name)
    line = def_line(text, recipe.class_name, recipe.method_name)
    if len(members) > 1:
        return Reading(module, target_text, recipe, line, several=True, has_method=True)
    if members and isinstance(members[0][1], cst.SimpleStatementLine):  # `name = ...`: no step writes that
        raise Refusal(f"{recipe.qualified} is a class-level assignment, not a method: "
                      f"this codemod neither writes nor understands that form; convert it by hand", path, line)
    defines = _defines(target_text, recipe.function)
    ext = _located(root, text, target_text, recipe)
    ours = ext is not None and ext.target_module == recipe.target_module
    shape = ext.shape if ext is not None else None
    alias_ours = ext is not None and ext.alias == recipe.target_alias
    if not members:
        _calling_what_is_not_there(text, path, target_text, recipe)
        if shape == "moved" and ours:
            line = next((s.line for s in ext.call_sites if s.calls == "function"), line)
        return Reading(module, target_text, recipe, line, shape=shape, ours=ours, defines=defines,
                       alias_ours=alias_ours)
    if shape == "wrapper" and ours and recipe.no_wrapper and (alias_ours or defines):
        raise Refusal(f"{recipe.qualified} is already a wrapper of {recipe.target_module}.{recipe.function}: the "
                      f"extraction with a wrapper is done, and --no-wrapper cannot go on from it (no step turns "
                      f"the calls of a wrapper into calls of the function); call {recipe.function} where "
                      f"{recipe.method_name} is called and drop the wrapper by hand, or run without --no-wrapper",
                      path, line)
    return Reading(module, target_text, recipe, line, has_method=True, shape=shape, ours=ours, defines=defines,
                   alias_ours=alias_ours)


def _located(root: Path, text: str, target_text: Optional[str], recipe: Recipe) -> Optional[Extraction]:
    """Where the tree keeps the method's logic, reading the texts of this run; None when neither the
    method nor a call of the function is there, or the call names what the tree does not hold."""
    overrides = {recipe.source_file: text, **({recipe.target_file: target_text} if target_text is not None else {})}
    try:
        return locate(root, recipe.source_file, recipe.class_name, recipe.method_name, recipe.function, overrides)
    except LocateError:
        return None


def _calling_what_is_not_there(text: str, path: Path, target_text: Optional[str], recipe: Recipe) -> None:
    """A call site calls `module.function(...)`, which the target does not define: a tree no step
    leaves, and no step can go on from."""
    hit = re.search(rf"(?<![\w.]){re.escape(recipe.callee)}\s*\(", text)
    if hit and not _defines(target_text, recipe.function):
        raise BadInput(f"{recipe.class_name} calls {recipe.callee}(...) but {recipe.target_file} does not "
                       f"define {recipe.function}", path, text.count("\n", 0, hit.start()) + 1)


def _defines(target_text: Optional[str], function: str) -> bool:
    """Whether the target module defines `function` at module level."""
    if not target_text:
        return False
    try:
        tree = parsing.parse(target_text)
    except SyntaxError:
        return f"def {function}(" in target_text
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == function for s in tree.body)


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
            return any(p.name.value in narrowed for p in (*s.params.params, *s.params.kwonly_params))
    return False
