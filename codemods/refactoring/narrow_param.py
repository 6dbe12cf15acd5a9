"""Step 4: replace a parameter read only as `param.attribute` by a parameter of its own.

In the moved function `param: X` becomes `new_param: annotation` and every
`param.attribute` becomes `new_param`; its one caller passes `arg.attribute` for
`param=arg`. Then imports are tidied: the source module loses imports that only the
moved code used (names the target module now imports and nothing else here spells).
"""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.refactoring.cstutil import LineMap, class_members, def_line, dotted, plain_names, top_class
from codemods.refactoring.errors import Refusal
from codemods.refactoring.formatting import Style, format_import, format_module, format_statement
from codemods.refactoring.imports import bound_name, drop_aliases, index_bindings, is_import_line
from codemods.refactoring.recipe import Recipe


class _NarrowReads(cst.CSTTransformer):
    """`param.attribute` -> `new`; every other node is traversed normally, so a read nested in a
    longer chain (`param.attribute.startswith(...)`, `f(param.attribute).x`) is replaced too."""

    def __init__(self, param: str, attribute: str, new: str):
        self.param, self.attribute, self.new = param, attribute, new

    def leave_Attribute(self, original, updated):
        if m.matches(updated, m.Attribute(value=m.Name(self.param), attr=m.Name(self.attribute))):
            return cst.Name(self.new, lpar=updated.lpar, rpar=updated.rpar)
        return updated


class _Uses(cst.CSTVisitor):
    """Where `param` still stands as a name (not an attribute's or a keyword's name), and where
    `param.attribute` is written: each one a use the narrowing cannot carry."""

    def __init__(self, param: str, attribute: str, line):
        self.param, self.attribute, self.line = param, attribute, line
        self.found: list[tuple[int, str]] = []
        self._skip: set[int] = set()

    def _add(self, node: cst.CSTNode, what: str) -> None:
        self.found.append((self.line(node), what))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))
        if m.matches(node, m.Attribute(value=m.Name(self.param), attr=m.Name(self.attribute))):
            self._skip.add(id(node.value))  # the read the narrowing replaces

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.param and id(node) not in self._skip:
            self._add(node, f"{self.param} used other than by reading {self.param}.{self.attribute}")

    def _targets(self, node: cst.CSTNode, targets) -> None:
        for t in targets:
            for a in m.findall(t, m.Attribute(value=m.Name(self.param), attr=m.Name(self.attribute))):
                self._add(a, f"write to {self.param}.{self.attribute}")

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets(node, [t.target for t in node.targets])

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node, [node.target])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node, [node.target])

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node, [node.target])


def narrow_function(code: str, path: Path, recipe: Recipe, style: Style) -> tuple[str, frozenset[str]]:
    """(the target module's new text, the names its imports bind: for `tidy_source_imports`)."""
    n = recipe.narrow
    module = cst.parse_module(code)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def line(node: cst.CSTNode) -> int:
        return positions[node].start.line

    defs = [(i, s) for i, s in enumerate(module.body) if isinstance(s, cst.FunctionDef) and s.name.value == recipe.method_name]
    if len(defs) != 1:
        at = line(defs[1][1].name) if defs else _text_line(code, f"def {recipe.method_name}(")
        raise Refusal(f"{recipe.method_name} is not defined exactly once at module level", path, at)
    index, func = defs[0]
    params = list(func.params.kwonly_params)
    pos = [i for i, p in enumerate(params) if p.name.value == n.param]
    if len(pos) != 1:
        raise Refusal(f"{recipe.method_name} has no keyword-only parameter {n.param}", path, line(func.name))
    uses = _Uses(n.param, n.attribute, line)
    func.body.visit(uses)
    if uses.found:
        at, why = min(uses.found)
        raise Refusal(f"{recipe.method_name}: {why}", path, at)
    clash = [x for x in m.findall(func, m.Name(n.new_param))]
    if clash:
        raise Refusal(f"{recipe.method_name} already uses the name {n.new_param}", path, line(clash[0]))
    body = func.body.visit(_NarrowReads(n.param, n.attribute, n.new_param))
    if n.param in plain_names(body):  # never leave a read of the parameter that no longer exists
        raise Refusal(f"{recipe.method_name} uses {n.param} other than by reading {n.param}.{n.attribute}",
                      path, line(func.name))
    params[pos[0]] = params[pos[0]].with_changes(
        name=cst.Name(n.new_param), annotation=cst.Annotation(cst.parse_expression(n.annotation)))
    func = func.with_changes(params=func.params.with_changes(kwonly_params=params), body=body)
    module = module.with_changes(body=(*module.body[:index], func, *module.body[index + 1:]))
    module = _drop_unused_imports(module)
    imported = frozenset(b for b, found in index_bindings(module).items() if any(x.kind == "import" for x in found))
    return format_module(module.code, style), imported


def _text_line(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _drop_unused_imports(module: cst.Module) -> cst.Module:
    code = module.code
    body = []
    for s in module.body:
        if is_import_line(s) and len(s.body) == 1:
            own = cst.Module(body=[s]).code
            small = s.body[0]
            if not (isinstance(small, cst.ImportFrom) and small.module and dotted(small.module) == "__future__"):
                drop = {bound_name(a, isinstance(small, cst.ImportFrom)) for a in small.names
                        if isinstance(small.names, (list, tuple)) and _unused(bound_name(a, isinstance(small, cst.ImportFrom)), code, own)}
                if drop:
                    s = drop_aliases(s, drop)
                    if s is None:
                        continue
        body.append(s)
    return module.with_changes(body=body)


def _unused(name: str, code: str, own: str) -> bool:
    pat = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
    return len(pat.findall(code)) == len(pat.findall(own))


def narrow_caller(module: cst.Module, text: str, path: Path, recipe: Recipe, style: Style) -> cst.Module:
    n = recipe.narrow
    cls_index, cls = top_class(module, recipe.class_name, path)
    (index, wrapper), = class_members(cls, recipe.method_name)
    callee = f"{recipe.target_alias}.{recipe.method_name}"
    at = def_line(text, recipe.class_name, recipe.method_name)
    line_of = LineMap(wrapper, at)
    calls = [c for c in m.findall(wrapper, m.Call()) if dotted(c.func) == callee]
    if len(calls) != 1:
        raise Refusal(f"the wrapper {recipe.method_name} calls {callee} {len(calls)} times, not once", path,
                      line_of(calls[1]) if calls else at)
    call = calls[0]
    args = [a for a in call.args if a.keyword is not None and a.keyword.value == n.param]
    if len(args) != 1:
        raise Refusal(f"the wrapper does not pass {n.param}= to {callee} exactly once", path, line_of(call))
    arg = args[0]
    new_arg = arg.with_changes(keyword=cst.Name(n.new_param),
                               value=cst.Attribute(value=arg.value, attr=cst.Name(n.attribute)))
    new_call = call.with_changes(args=[new_arg if a is arg else a for a in call.args])

    class _Swap(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            return new_call if original is call else updated

    wrapper = format_statement(wrapper.visit(_Swap()), 1, style)
    members = list(cls.body.body)
    members[index] = wrapper
    cls = cls.with_changes(body=cls.body.with_changes(body=members))
    return module.with_changes(body=(*module.body[:cls_index], cls, *module.body[cls_index + 1:]))


def tidy_source_imports(module: cst.Module, target_imported: frozenset[str], style: Style) -> cst.Module:
    """Drop top-level imports of names the target module imports and the source no longer spells."""
    code = module.code
    body = []
    carry = None
    for s in module.body:
        if carry is not None:
            s = s.with_changes(leading_lines=max(carry, s.leading_lines, key=len))
            carry = None
        if is_import_line(s) and len(s.body) == 1 and not isinstance(s.body[0].names, cst.ImportStar):
            small = s.body[0]
            is_from = isinstance(small, cst.ImportFrom)
            own = cst.Module(body=[s]).code
            if "#" not in own and not (is_from and small.module and dotted(small.module) == "__future__"):
                drop = {bound_name(a, is_from) for a in small.names}
                drop = {d for d in drop if d in target_imported and _unused(d, code, own)}
                if drop:
                    lead = s.leading_lines
                    s = drop_aliases(s, drop)
                    if s is None:
                        carry = lead
                        continue
                    s = format_import(s, style)
        body.append(s)
    return module.with_changes(body=body)
