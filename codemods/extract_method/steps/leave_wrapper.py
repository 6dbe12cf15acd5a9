"""Step 3: put back an instance method of the same name that calls the moved function.

After step 2 the class has no such method and its call sites call the module function
(`self.y = module.f(...)`, then a recipe's record `if`). The wrapper makes that call with the
arguments taken from `self` (and its own parameters), applies the results and returns what
the function returns, and the call sites call the method again.

In a run that did step 1 too, the wrapper has the method's original signature and every
call site gets back exactly its original text. In a run that starts at step 3 neither is
recorded anywhere, so they are read off the tree: a keyword argument every call site passes
as `self...` is taken from `self` by the wrapper (an own parameter the callers happened to
fill from `self` the same way is indistinguishable, and is treated so: same behaviour); the
other parameters become the wrapper's own, and the call sites pass them by keyword.

Where the wrapper goes:
- in a run that did step 2 too, exactly where the method was (step 2 hands over the index),
  so the whole refactoring's diff stays minimal;
- in a run that starts at step 3 that place is recorded nowhere, so a fixed rule decides:
  right after the record method (`_record_kv_cache_dtype`) when the class has it - the method
  sat there in every release that has both - else right after the method holding the first
  call site, else at the end of the class. The step's message says which.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import libcst as cst

from codemods.extract_method.call_sites import (
    Site,
    apply_swaps,
    find_sites,
    holders,
    require_calls,
    require_sites,
    rewrite_sites,
)
from codemods.syntax.nodes import class_members, def_line, parse, top_class
from codemods.core.errors import Refusal
from codemods.core.formatting import Style, format_statement
from codemods.extract_method.steps.make_static import call_site_block, inferred_args
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.signature import kwarg, new_call
from codemods.extract_method.steps.wrapper_from_tree import static_from_tree
from codemods.core.steps import Step
from codemods.core.runner import Outcome, Tree
from codemods.extract_method.models import Handed, Hole, MethodRun, Static
from codemods.extract_method.steps_done import Reading
from codemods.extract_method.steps.positional import make_positional, pass_positionally
from codemods.extract_method.outside_callers import rewrite_outside_calls
from codemods.syntax.type_checking import drop_imports


def _member_name(s: cst.CSTNode) -> Optional[str]:
    return s.name.value if isinstance(s, (cst.FunctionDef, cst.ClassDef)) else None


def wrapper_position(cls: cst.ClassDef, recipe: Recipe, holder: Optional[cst.CSTNode]) -> tuple[int, str]:
    """Split run: (index in the class body to insert the wrapper at, why there)."""
    members = list(cls.body.body)
    record = recipe.record.method.rpartition(".")[2] if recipe.record else None
    found = [i for i, s in enumerate(members) if record and _member_name(s) == record]
    if found:
        return found[-1] + 1, f"after {recipe.class_name}.{record}"
    for i, s in enumerate(members):
        if s is holder and _member_name(s):
            return i + 1, f"after {recipe.class_name}.{_member_name(s)}, which holds the call site"
    return len(members), f"at the end of {recipe.class_name}"


def _is_record_if(s: cst.CSTNode, local: Optional[str]) -> bool:
    return local is not None and isinstance(s, cst.If) and s.orelse is None and \
        cst.Module([]).code_for_node(s.test) == f"{local} is not None"


def leave_wrapper(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style, target_text: str,
                  hole: Optional[Hole] = None, static: Optional[Static] = None,
                  members: Optional[dict] = None) -> tuple[cst.Module, str]:
    """(new module, where the wrapper went). `hole`, `static`: what steps 2 and 1 of the same run found."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    if class_members(cls, recipe.method_name):
        raise Refusal(f"{recipe.class_name} already has a member {recipe.method_name}", path,
                      def_line(text, recipe.class_name, recipe.method_name))
    callee = recipe.callee
    sites = find_sites(cls, recipe.function, text, holders(text, recipe.class_name, recipe.function)
                       if members is None else members)
    sites = [s for s in sites if s.call is not None and cst.Module([]).code_for_node(s.call.func) == callee] \
        if recipe.infer else sites
    require_sites(sites, recipe, path, callee)
    require_calls(sites, recipe.target_alias, path, recipe.callee)
    split = static is None or len(static.sites) != len(sites)
    if split and recipe.write_back:
        raise Refusal(f"--write-back {recipe.write_back[0]}: the wrapper is put back in the run that does step 1 "
                      f"(what the function returns is not read off a tree at step 2): run steps 1-4 together",
                      path, sites[0].line if sites else None)
    shape = static_from_tree(sites, recipe, target_text, path) if split else static
    if recipe.record or shape.results:
        for site in sites:
            line = site.statement
            if not (site.in_simple_statement and len(line.body) == 1 and isinstance(line.body[0], cst.Assign)
                    and line.body[0].value is site.call):
                raise Refusal(f"the call of {callee}(...) is not the unpacking assignment step 2 writes", path,
                              site.line)

    if hole is None:
        at, where = wrapper_position(cls, recipe, sites[0].holder if sites else None)
        leading = [cst.EmptyLine(indent=False)]
    else:
        (at, leading), where = hole, "where the method was"
    wrapper = _wrapper(recipe, shape, leading)
    restored = [i for i, site in enumerate(sites) if _member_name(site.holder) not in recipe.group_callers]
    cls = _restore_call_sites(cls, [sites[i] for i in restored], recipe, shape,
                              None if split else [static.sites[i] for i in restored], style)
    members_body = list(cls.body.body)
    members_body.insert(at, format_statement(wrapper, 1, style))
    cls = cls.with_changes(body=cls.body.with_changes(body=members_body))
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:])), where


def _wrapper(recipe: Recipe, shape: Static, leading) -> cst.FunctionDef:
    args = inferred_args(shape.params, shape.own) + [kwarg(n, cst.Name(n)) for n in shape.own]
    call = cst.Module([]).code_for_node(cst.Call(cst.parse_expression(recipe.callee), args))
    code = f"return {call}\n" if shape.returns_value and shape.flag is None else call_site_block(recipe, shape, call)
    return shape.original.with_changes(
        body=cst.IndentedBlock(body=list(cst.parse_module(code).body)), leading_lines=leading,
        decorators=shape.original.decorators if recipe.is_property else [])  # a property stays one


def _as_replacement(original):
    return [original] if isinstance(original, cst.BaseStatement) else original  # else a `Header`


def _restore_call_sites(cls: cst.ClassDef, sites: list[Site], recipe: Recipe, shape: Static,
                        originals: Optional[list], style: Style) -> cst.ClassDef:
    """Call sites back to calling the method: their original text (`originals`), else `self.m(own=...)`."""
    method = f"self.{recipe.method_name}"

    def call_of(site: Site) -> cst.Call:
        own = [a for a in site.call.args if a.keyword is not None and a.keyword.value in shape.own]
        return new_call(site.call, method, own)

    if shape.flag is not None:  # `[FLAG = ]f(...)` and `if ...: self.ATTR = VALUE` back to the original line
        swaps = {}
        for i, site in enumerate(sites):
            line = site.statement
            block = site.path[next(k for k, n in enumerate(site.path) if n is line) - 1]
            body = list(block.body)
            k = next(k for k, n in enumerate(body) if n is line)
            body[k:k + (2 if shape.flag[2] else 1)] = [originals[i]]
            swaps[id(block)] = block.with_changes(body=body)
        return apply_swaps(cls, sites, swaps)
    if not (recipe.record or shape.results):
        if originals is None:
            return rewrite_sites(cls, sites, call_of, style)
        return rewrite_sites(cls, sites, lambda site: _as_replacement(originals[sites.index(site)]), style)
    swaps = {}
    for i, site in enumerate(sites):
        line = site.statement
        if originals is not None:
            replacement = [originals[i]]
        else:
            call = call_of(site).with_changes(lpar=(), rpar=())  # black's, around the assignment's value
            restored = cst.SimpleStatementLine(body=[cst.Expr(call)], leading_lines=line.leading_lines,
                                               trailing_whitespace=line.trailing_whitespace)
            replacement = [format_statement(restored, site.depth, style)]
        if recipe.record is None:
            swaps[id(line)] = replacement
            continue
        block = site.path[next(k for k, n in enumerate(site.path) if n is line) - 1]
        body = list(block.body)
        k = next(k for k, n in enumerate(body) if n is line)
        body[k:k + (2 if k + 1 < len(body) and _is_record_if(body[k + 1], recipe.record.local) else 1)] = replacement
        swaps[id(block)] = block.with_changes(body=body)
    return apply_swaps(cls, sites, swaps)


class LeaveWrapper(Step[MethodRun, Handed]):
    """Step 3: a wrapper of the original signature goes back into the class."""

    number = 3

    def done(self, r: Reading) -> bool:
        """A wrapper calls the function (steps 1-2 are done); or, the method moved, the tree is as
        step 3 leaves it without one (--no-wrapper), or the function no longer takes what --narrow
        names (step 4 is done); or the class never had the method and the target defines it."""
        if r.has_method or not r.moved:
            return True
        return r.without_wrapper or bool(r.recipe.narrows and not r.takes_narrowed)

    def run(self, run: MethodRun, tree: Tree, carry: Handed) -> Outcome[Handed]:
        recipe, style, source = run.recipe, run.ctx.style, run.source
        module, static = tree.module, carry.static
        current = dict(tree.current)
        files: dict[Path, str] = {}
        originals: dict[Path, Optional[str]] = {}
        placed = ""
        if not recipe.no_wrapper:
            module, placed = leave_wrapper(module, tree.text, source, recipe, style, current[run.target], carry.hole,
                                           static, carry.members)
        names: list[str] = []
        calls = 0
        if recipe.positional:
            target, names = make_positional(current[run.target], run.target, recipe.function, style)
            files[run.target] = current[run.target] = target
            _, cls = top_class(module, recipe.class_name, source)
            new, calls = pass_positionally(cls, recipe.callee, names, style)
            module = module.with_changes(body=[new if s is cls else s for s in module.body])
        rewritten = 0
        if run.outside is not None and run.outside.calls and static is not None and static.flag is not None:
            first = run.outside.calls[0]
            raise Refusal(f"--write-back {static.flag[0]} with --no-wrapper: {first.path}:{first.line} calls "
                          f"{recipe.qualified} from outside the class, where the write would have to follow the call; "
                          f"keep the wrapper", run.source, run.status.line)
        if run.outside is not None:
            module, rewritten = _rewrite_outside(run, module, static, current, names, files, originals)
        dropped = False
        if recipe.no_wrapper:
            module, dropped = _drop_unused_target_import(run, module, static)
        text = run.render(module)
        if recipe.no_wrapper:
            lines = [f"step 3: no wrapper: {recipe.qualified} is gone, its call sites call {recipe.callee}"]
        else:
            at = def_line(text, recipe.class_name, recipe.method_name)
            lines = [f"step 3: wrapper {recipe.qualified} placed {placed} (line {at})"]
        if dropped:
            lines.append(f"step 3: no import of {recipe.target_alias} in {source.name}: nothing there calls "
                         f"{recipe.callee}")
        if run.outside is not None:
            touched = len({c.path for c in run.outside.calls})
            lines.append(f"step 3: {rewritten} call(s) in {touched} file(s) outside {recipe.class_name} "
                         f"now call {recipe.callee}")
        if recipe.positional and names:
            listed = ", ".join(names)
            lines.append(f"step 3: {calls} call(s) in {recipe.class_name} pass {listed} by position" if calls else
                         f"step 3: no call in {recipe.class_name} to pass {listed} by position: the parameters "
                         f"are positional-or-keyword, and calls by keyword still bind them")
        return Outcome(recipe.subject(3), module, files, originals, messages=lines, text=text)


def _drop_unused_target_import(run: MethodRun, module: cst.Module, static: Optional[Static]) -> tuple[cst.Module, bool]:
    """--no-wrapper where nothing in the class's module calls the function any more (only other
    modules did): the import step 2 added for the call sites goes. Kept when the user's file
    imported the target module already (a tree at step 2 imports it because step 2 did), or
    when the name appears anywhere but in its import (a string or comment counts: kept)."""
    if static is not None and static.sites:  # the class's own call sites call it through the import
        return module, False
    spelled = re.compile(rf"(?<![\w.]){re.escape(run.recipe.target_alias)}\b")
    if len(spelled.findall(run.render(module))) != 1 or (run.status.done != 2 and spelled.search(run.original)):
        return module, False
    return drop_imports(module, {run.recipe.target_alias}, run.ctx.style), True


def _rewrite_outside(run: MethodRun, module: cst.Module, static: Optional[Static], current: dict[Path, Optional[str]],
                     names: list[str], files: dict[Path, str], originals: dict[Path, Optional[str]]
                     ) -> tuple[cst.Module, int]:
    """--no-wrapper: the calls outside the class call the function (`outside_callers`); the files
    they are in go into `files` (their texts before the run into `originals`)."""
    recipe, ctx = run.recipe, run.ctx
    if static is None:
        first = run.outside.calls[0]
        raise Refusal(f"{first.path}:{first.line} calls {recipe.qualified} from outside the class: a run that "
                      f"rewrites such calls starts at step 1 (it maps their arguments by the method's signature)",
                      run.source, run.status.line)

    def text_of(path: Path) -> str:
        if path == run.source:
            return run.render(module)
        return current[path] if path in current else ctx.checkout.text(path)

    texts, rewritten = rewrite_outside_calls(run.outside, recipe, static.original.params,
                                             names if recipe.positional else [], ctx.style, text_of, ctx.checkout,
                                             static.params)
    for path, new in texts.items():
        if path == run.source:
            module = parse(path, new)
        else:
            files[path] = new
            originals[path] = run.originals[path] if path in run.originals else ctx.checkout.text(path)
    return module, rewritten
