"""Step 1: turn the instance method into a keyword-only `@staticmethod`, in place.

Its `self.` reads become keyword-only parameters (the recipe's, or inferred: `analysis.definite_assignment`), its
own parameters stay (keyword-only, defaults and annotations kept), its writes to `self`
become locals it returns. Every call site in the class passes the parameters and applies
the results as the old body did (`self.y = self.m(...)`); a recipe's record is applied
after them (`if resolved is not None: self._record(resolved)`). With `pass_self` the
function takes the instance whole instead (`self` -> that name everywhere).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import libcst.matchers as m

from codemods.extract_method.call_sites import (
    Header,
    Site,
    find_sites,
    header_of,
    holders,
    require_calls,
    require_sites,
    rewrite_sites,
)
from pysource.classes import class_info
from codemods.syntax.nodes import (
    LineMap,
    carry_lost_comments,
    class_members,
    def_line,
    dotted,
    is_docstring,
    plain_names,
    stmt,
    top_class,
)
from codemods.core.errors import Refusal
from codemods.extract_method.analysis.definite_assignment import Analysis, _written_attributes
from codemods.extract_method.analysis.write_back import flag_writes
from codemods.core.formatting import Style, format_statement
from codemods.syntax.fstring_debug import mentions_name, spell_out_debug_fields
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.analysis.rewrites import Param, Rewrites
from codemods.extract_method.signature import call_arguments, kwarg, new_call, own_params
from codemods.core.steps import Step
from codemods.extract_method.analysis.annotations import Annotator
from codemods.syntax.nodes import own_code, parse, returns_a_value
from codemods.core.runner import Outcome, Tree
from codemods.extract_method.models import Handed, MethodRun, Static
from codemods.extract_method.properties import is_property
from codemods.extract_method.steps_done import Reading


class _ApplyRewrites(cst.CSTTransformer):
    """Swap the expressions and small statements chosen by the flow analysis."""

    def __init__(self, rewrites: Rewrites):
        self.rw = rewrites

    def on_leave(self, original, updated):
        if original in self.rw.exprs:
            new = self.rw.exprs[original]
            if isinstance(updated, cst.BaseExpression) and (updated.lpar or updated.rpar):
                new = new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
            return new
        if original in self.rw.stmts:
            new = self.rw.stmts[original]
            if isinstance(updated, cst.Assign) and isinstance(new, cst.Assign):
                return updated.with_changes(targets=new.targets)
            if isinstance(updated, cst.Expr):  # record call -> assignment of its argument
                return new.with_changes(value=updated.value.args[0].value, semicolon=updated.semicolon)
            return new
        if isinstance(original, cst.SimpleStatementLine) and any(s in self.rw.stmts for s in original.body):
            return carry_lost_comments(original, updated)  # e.g. from inside the record call's parentheses
        return updated


class _FallbackLines:
    """Lines of the rewritten method's nodes, else of the method's as it was."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __call__(self, node):
        return self.first(node) or self.second(node)


class _PassSelf(cst.CSTTransformer):
    def __init__(self, name: str):
        self.name = name

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.name) if updated.value == "self" else updated


def the_method(module: cst.Module, text: str, path: Path, recipe: Recipe):
    """(class index, class, index in the class body, the method, its line), refusing what is no plain method."""
    cls_index, cls = top_class(module, recipe.class_name, path)
    members = class_members(cls, recipe.method_name)
    name = recipe.qualified
    if len(members) != 1:
        raise Refusal(f"{name} is defined {len(members)} times in the class", path,
                      def_line(text, recipe.class_name, recipe.method_name, 1))
    index, func = members[0]
    line = def_line(text, recipe.class_name, recipe.method_name)
    if not isinstance(func, cst.FunctionDef):
        raise Refusal(f"{name} is not a plain method definition", path, line)
    if func.decorators and not (recipe.is_property and is_property(func)):
        raise Refusal(f"{name} has a decorator (@{cst.Module([]).code_for_node(func.decorators[0].decorator)})",
                      path, line)
    if func.asynchronous:
        raise Refusal(f"{name} is async", path, line)
    return cls_index, cls, index, func, line


def make_static(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style, root: Path,
                annotate: Optional[Callable[[list[Param]], None]] = None) -> tuple[cst.Module, Static]:
    """`annotate`: annotates the inferred parameters it can (`annotations.Annotator`; None: none)."""
    cls_index, cls, index, func, line = the_method(module, text, path, recipe)
    func = spell_out_debug_fields(func, mentions_name("self"))
    own = own_params(func, path, line, strict=not recipe.infer)
    line_of = LineMap(func, line)
    _refuse_mangled(func, path, line_of)
    original, flag = func, None
    if recipe.write_back and recipe.infer and not recipe.pass_self:
        attribute, local = recipe.write_back
        func, value = flag_writes(func, attribute, path, line_of, recipe.qualified, line)
        flag = (attribute, value, local)
        others = _written_attributes(func.body)
        if others:
            raise Refusal(f"--write-back {attribute}: {recipe.qualified} also writes "
                          f"{', '.join(f'self.{a}' for a in others)}: the function returns only whether it wrote "
                          f"self.{attribute}", path, line)
        line_of = _FallbackLines(line_of, LineMap(func, line))
    if recipe.pass_self:
        rewrites = _pass_self(func, recipe, path, line_of)
    elif recipe.infer:
        info = class_info(text, recipe.class_name, root, recipe.source_module)
        rewrites = Analysis(recipe, path, line_of, info).run(func.body)
    else:
        rewrites = recipe.analysis(func, module, text, cls, recipe, path, line_of)
    if recipe.is_property and rewrites.results:
        raise Refusal(f"{recipe.qualified} is a property that writes "
                      f"{', '.join(rewrites.attributes.get(r, r) for r in rewrites.results)}: a read of "
                      f"it would have to write it back; extract it by hand", path, line)
    new_names = {p.name for p in rewrites.params} | set(rewrites.results)
    clash = plain_names(func.body) & new_names
    if clash:
        hint = "" if not recipe.infer else "; --rename ATTRIBUTE=NEW names a parameter otherwise"
        raise Refusal(f"{recipe.qualified} already uses the name(s) {', '.join(sorted(clash))}{hint}", path, line)
    if recipe.pass_self is None and clash_with_own(own, new_names):
        raise Refusal(f"{recipe.qualified} has a parameter named like an inferred one "
                      f"({', '.join(sorted(clash_with_own(own, new_names)))})", path, line)

    if annotate is not None:
        annotate(rewrites.params)
    body = func.body.visit(_ApplyRewrites(rewrites)) if not recipe.pass_self else func.body.visit(
        _PassSelf(recipe.pass_self))
    stmts = list(body.body)
    at = 1 if stmts and is_docstring(stmts[0]) else 0
    if recipe.record:
        rec = recipe.record
        stmts.insert(at, stmt(f"{rec.local}: {rec.annotation} = None\n"))
    if rewrites.results and rewrites.final is not None:
        names = ", ".join(rewrites.results)
        stmts.append(stmt(f"return {names}\n").with_changes(leading_lines=[cst.EmptyLine()]))
    kwonly = [cst.Param(cst.Name(p.name), annotation=cst.Annotation(cst.parse_expression(p.annotation))
                        if p.annotation else None) for p in rewrites.params]
    kwonly += [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in own]
    returns = _returns(func, recipe, rewrites) if flag is None else cst.Annotation(cst.Name("bool"))
    new_func = func.with_changes(
        decorators=[cst.Decorator(cst.Name("staticmethod"))],
        params=cst.Parameters(star_arg=cst.ParamStar(), kwonly_params=kwonly) if kwonly else cst.Parameters(),
        returns=returns,
        body=body.with_changes(body=stmts),
    )
    new_func = format_statement(new_func, 1, style)
    members_body = list(cls.body.body)
    members_body[index] = new_func
    cls = cls.with_changes(body=cls.body.with_changes(body=members_body))
    static = Static(rewrites.params, [p.name.value for p in own], rewrites.results, rewrites.attributes,
                    rewrites.record_style, rewrites.returns_value, original, flag=flag)
    cls = _rewrite_call_sites(cls, text, path, recipe, static, style)
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:])), static


def _returns(func: cst.FunctionDef, recipe: Recipe, rewrites: Rewrites) -> Optional[cst.Annotation]:
    """The function's return annotation: the recipe's; none when it returns results (the method's
    own would not describe them); the method's own; else `-> None` when it provably returns None
    (no `return <value>`, no `yield`)."""
    if recipe.return_annotation:
        return cst.Annotation(cst.parse_expression(recipe.return_annotation))
    if rewrites.results:
        return None
    if func.returns is not None or not recipe.infer or rewrites.returns_value or own_code(func).yields:
        return func.returns
    return cst.Annotation(cst.Name("None"))


def clash_with_own(own: list[cst.Param], names: set[str]) -> set[str]:
    return {p.name.value for p in own} & names


def _pass_self(func: cst.FunctionDef, recipe: Recipe, path: Path, line_of) -> Rewrites:
    """`--pass-self NAME`: no inferred parameter, `self` -> NAME everywhere; no results."""
    for node in m.findall(func.body, m.Name("super")):
        raise Refusal("super() needs the class: the function would have none", path, line_of(node))
    out = Rewrites(params=[Param(recipe.pass_self, "self")])
    out.returns_value = returns_a_value(func)
    return out


_MANGLED = re.compile(r"(?<![\w.])__\w*[^\W_]\w*?(?<!__)\b|\.__\w*[^\W_]\w*?(?<!__)\b")


def _refuse_mangled(func: cst.FunctionDef, path: Path, line_of) -> None:
    """`self.__x` / `__x` are renamed by the class (`_Class__x`): outside it they would mean another name."""
    for node in m.findall(func.body, m.Name() | m.Attribute()):
        name = node.value if isinstance(node, cst.Name) else node.attr.value
        if name.startswith("__") and not name.endswith("__"):
            raise Refusal(f"{dotted(node) or name} is a private name the class mangles: outside the class it would "
                          f"mean another name", path, line_of(node))


def result_targets(recipe: Recipe, static: Static) -> str:
    """The assignment targets a call site writes the results to: `self.y`, `resolved, self.y`."""
    targets = [static.attributes.get(r, r) for r in static.results]
    if recipe.record:
        targets[0] = recipe.record.local if static.record_style else "_"
    return ", ".join(targets)


def call_site_block(recipe: Recipe, static: Static, call: str) -> str:
    """The statements applying `call`'s results as the old body did (and recording, for a recipe's record;
    writing what `--write-back` returned)."""
    if static.flag is not None:
        attribute, value, local = static.flag
        if local:
            return f"{local} = {call}\nif {local}:\n    self.{attribute} = {value}\n"
        return f"if {call}:\n    self.{attribute} = {value}\n"
    if not static.results:
        return f"{call}\n"
    code = f"{result_targets(recipe, static)} = {call}\n"
    rec = recipe.record
    if static.record_style == "method":
        code += f"if {rec.local} is not None:\n    {rec.method}({rec.local})\n"
    elif static.record_style == "attribute":
        code += f"if {rec.local} is not None:\n    {rec.attribute} = {rec.local}\n"
    return code


def inferred_args(params: list[Param], own: list[str]) -> list[cst.Arg]:
    return [kwarg(p.name, cst.parse_expression(p.argument)) for p in params if p.name not in own]


def _rewrite_call_sites(cls, text, path, recipe: Recipe, static: Static, style: Style) -> cst.ClassDef:
    callee = f"self.{recipe.method_name}"
    static.members = holders(text, recipe.class_name, recipe.method_name)
    sites = find_sites(cls, recipe.method_name, text, static.members, path)
    if recipe.is_property:
        return _rewrite_reads(cls, sites, path, recipe, static, style)
    require_sites(sites, recipe, path, callee)
    require_calls(sites, "self", path, recipe.qualified)
    originals = static.original.params

    def replace(site: Site):
        args = call_arguments(site.call, originals, path, site.line) + inferred_args(static.params, static.own)
        call = new_call(site.call, callee, args)
        if not static.results and not recipe.record and static.flag is None:
            static.sites.append(site.statement if site.in_simple_statement else Header(header_of(site)))
            return call
        line = site.statement
        if (not site.in_simple_statement or len(line.body) != 1 or not isinstance(line.body[0], cst.Expr)
                or line.body[0].value is not site.call or (site.call.args and recipe.record)):
            raise Refusal(f"the call {callee}() is not a bare statement of its own", path, site.line)
        if recipe.record and site.holder is not None and recipe.record.local in plain_names(site.holder):
            raise Refusal(f"{site.holder.name.value} already uses the name {recipe.record.local}", path, site.line)
        if static.flag and static.flag[2] and site.holder is not None and static.flag[2] in plain_names(site.holder):
            raise Refusal(f"{site.holder.name.value} already uses the name {static.flag[2]} (--write-back "
                          f"{static.flag[0]}={static.flag[2]}: name the flag otherwise)", path, site.line)
        static.sites.append(line)
        code = call_site_block(recipe, static, cst.Module([]).code_for_node(call))
        new = list(cst.parse_module(code).body)
        if isinstance(new[0], cst.If):  # --write-back without FLAG: the line's comment goes to the `if`
            new[0] = new[0].with_changes(leading_lines=line.leading_lines, body=new[0].body.with_changes(
                header=line.trailing_whitespace))
        else:
            new[0] = new[0].with_changes(leading_lines=line.leading_lines,
                                         trailing_whitespace=line.trailing_whitespace)
            new[0] = carry_lost_comments(line, new[0])  # from inside `self.method(  # ...\n)`
        return [format_statement(s, site.depth, style) for s in new]

    return rewrite_sites(cls, sites, replace, style)


class MakeStatic(Step[MethodRun, Handed]):
    """Step 1: the method becomes a keyword-only static method in place."""

    number = 1

    def done(self, r: Reading) -> bool:
        """The class has no instance method of the name: it is static in place, moved (or never
        there, the target defining the function), or a wrapper of the function."""
        if r.several:
            return False  # step 1 refuses it, naming the second definition
        return not r.has_method or r.shape == "static" or (
            r.shape == "wrapper" and r.ours and (r.alias_ours or r.defines))

    def run(self, run: MethodRun, tree: Tree, carry: Handed) -> Outcome[Handed]:
        recipe, ctx = run.recipe, run.ctx
        target_text = run.original_target
        annotator = Annotator(ctx.checkout, recipe, tree.module, tree.text, ctx.root, parse(run.target, target_text)
                              if target_text is not None else None) if recipe.infer else None
        module, static = make_static(tree.module, tree.text, run.source, recipe, ctx.style, ctx.root,
                                     annotator.annotate if annotator else None)
        note = annotator.left_out_note() if annotator else None
        return Outcome(recipe.subject(1), module, noted=[f"step 1: {note}"] if note else [],
                       carry=replace(carry, static=static))


def _rewrite_reads(cls, sites: list[Site], path, recipe: Recipe, static: Static, style: Style) -> cst.ClassDef:
    """A property's reads `self.prop` (also `self.prop(...)`, a call of what it returns) become
    calls of the static method: `self.prop(model_config=self.model_config)`."""
    sites = [replace(s, call=None) for s in sites]
    for site in sites:
        if dotted(site.node.value) != "self":
            raise Refusal(f"{dotted(site.node) or recipe.qualified} is not self.{recipe.method_name}: the rewrite "
                          f"follows reads on self only", path, site.line)
        parent = site.path[-1] if site.path else None
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or isinstance(parent, (cst.AugAssign, cst.AnnAssign)) \
                and parent.target is site.node:
            raise Refusal(f"self.{recipe.method_name} is written here: a property without a setter cannot be, "
                          f"and a function can be no target", path, site.line)

    def call(site: Site) -> cst.Call:
        static.sites.append(site.statement if site.in_simple_statement else Header(header_of(site)))
        node = site.node
        return cst.Call(node.with_changes(lpar=(), rpar=()), inferred_args(static.params, static.own),
                        lpar=node.lpar, rpar=node.rpar)

    return rewrite_sites(cls, sites, call, style)
