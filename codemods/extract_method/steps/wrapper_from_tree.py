"""Step 3 in a run that did not do step 1: what the wrapper needs, read off the tree.

The moved function's keyword-only parameters split into those the call sites fill from
`self` (every call site passes the same `self...` expression, or the recipe maps it; with no
call site in the class, every parameter without a default, read as `self.NAME`) and the
method's own (the rest: the wrapper takes them, positional-or-keyword where their order
allows). The call sites' assignment targets are the results; a recipe's record is applied
the way the `if resolved is not None:` after the call site applies it.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import libcst.matchers as m

from codemods.extract_method.call_sites import Site
from codemods.syntax.nodes import own_code, parse, returns_a_value
from codemods.core.errors import Refusal
from codemods.extract_method.models import Static
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.analysis.rewrites import Param

_code = cst.Module([]).code_for_node


def static_from_tree(sites: list[Site], recipe: Recipe, target_text: str, path: Path) -> Static:
    func = _function(target_text, recipe, path)
    mapped = {r.param for r in recipe.reads}
    inferred, own = [], []
    for p in func.params.kwonly_params:
        name = p.name.value
        passed = {_code(a.value) for s in sites for a in s.call.args if a.keyword and a.keyword.value == name}
        every = all(any(a.keyword and a.keyword.value == name for a in s.call.args) for s in sites)
        if not sites and p.default is None:  # no caller to read it off: the inference's own rule
            inferred.append(Param(name, f"self.{name}"))
        elif name in mapped or (every and len(passed) == 1 and p.default is None and _from_self(next(iter(passed)))):
            inferred.append(Param(name, next(iter(passed))))
        else:
            own.append(p)
    results, style = _results(sites, recipe, func), None
    if recipe.record and results and results[0] != "_":
        style = _record_style(sites[0], recipe)
    returns_value = not results and returns_a_value(func)
    wrapper = cst.FunctionDef(name=cst.Name(recipe.method_name), params=_wrapper_params(own),
                              body=func.body, returns=None if results else func.returns)
    return Static(inferred, [p.name.value for p in own], results, {}, style, returns_value, wrapper)


def _results(sites: list[Site], recipe: Recipe, func: cst.FunctionDef) -> list[str]:
    """The attributes every call site assigns the call to, when the function returns exactly
    their locals everywhere (`self.y = module.f(...)` with `return y`); else none."""
    targets = set()
    for site in sites:
        line = site.statement
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
                and isinstance(line.body[0], cst.Assign) and line.body[0].value is site.call
                and len(line.body[0].targets) == 1):
            return []
        target = line.body[0].targets[0].target
        elements = target.elements if isinstance(target, cst.Tuple) else [cst.Element(target)]
        targets.add(tuple(_code(e.value) for e in elements))
    if len(targets) != 1:
        return []
    (found,) = targets
    locals_ = [t if not t.startswith("self.") else recipe.name_for(t[len("self."):]) for t in found]
    if recipe.record:
        locals_[0] = recipe.record.local
    returns = own_code(func).returns
    want = locals_[0] if len(locals_) == 1 else ", ".join(locals_)
    if returns and all(r.value is not None and _code(r.value) == want for r in returns):
        return list(found)
    return []


def _function(text: str, recipe: Recipe, path: Path) -> cst.FunctionDef:
    module = parse(path, text)
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == recipe.function]
    if len(found) != 1:
        raise Refusal(f"{recipe.target_file} does not define {recipe.function} exactly once at module level", path)
    func = found[0]
    if func.params.params or func.params.posonly_params or isinstance(func.params.star_arg, cst.Param):
        raise Refusal(f"{recipe.function} takes other than keyword-only parameters: not what step 1 writes",
                      path)
    return func


def _from_self(code: str) -> bool:
    return code == "self" or code.startswith("self.")


def _wrapper_params(own: list[cst.Param]) -> cst.Parameters:
    """`self`, then the own parameters positional-or-keyword up to the first that cannot follow a default."""
    positional, kwonly, seen_default = [cst.Param(cst.Name("self"))], [], False
    for p in own:
        p = p.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if kwonly or (seen_default and p.default is None):
            kwonly.append(p)
            continue
        seen_default = seen_default or p.default is not None
        positional.append(p)
    return cst.Parameters(params=positional, star_arg=cst.ParamStar() if kwonly else cst.MaybeSentinel.DEFAULT,
                          kwonly_params=kwonly)


def _record_style(site: Site, recipe: Recipe):
    rec = recipe.record
    for s in m.findall(site.holder or site.statement, m.If()):
        if _code(s.test) == f"{rec.local} is not None" and s.orelse is None:
            body = _code(s.body)
            return "method" if f"{rec.method}(" in body else "attribute" if rec.attribute in body else None
    return None

