"""Step 2: the methods move into the component; each owner method becomes a one-line delegation.

In a moved body, what the owner passes for each field is read through the field: `self.tp_rank`
stays `self.tp_rank` (a field of the same name; `--field` renames it), a getter's chain
`self.model_config.model_path` becomes `self.get_model_path()`, a callback `self.flush_cache(...)`
calls the field, the moved state reached through the component (`self.weight_exporter._x`, step
1) is the component's own `self._x`, and with `--pass-owner NAME` every other `self.X` is
`self.NAME.X`. A `self.X` the design does not cover is refused (file:line). The private helpers
that move along leave no delegation. The component's module gets the imports and module globals
the moved code needs (`travelling_code`); the owner's module drops the imports only the moved
code used (`tidy`), unless another file reads them through it.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from codemods.checkout.references import referenced_elsewhere
from codemods.core.errors import Conflicts, Location
from codemods.core.runner import Outcome, Tree
from codemods.core.steps import Step
from codemods.extract_component import build
from codemods.extract_component.design import Design
from codemods.extract_component.models import ComponentRun, Reading
from codemods.extract_component.target import add_class, check_cycles
from codemods.syntax.nodes import LineMap, def_line, dotted, parse, top_class
from codemods.syntax.annotations import is_lazy
from codemods.syntax.tidy import tidy_source


class Remap(cst.CSTTransformer):
    """A moved method's body in the component's terms (module docstring)."""

    def __init__(self, design: Design, me: str, members: set[str]):
        self.me = me
        self.members = members  # the component's own: methods, fields, state
        self.exact: dict[str, cst.BaseExpression] = {}
        owner = design.owner_field
        for f in design.fields:
            if f.kind == "getter":
                self.exact[f.source.replace("self.", f"{me}.", 1)] = cst.parse_expression(f"{me}.{f.name}()")
            elif f.kind in ("value", "callback") and f.source.startswith("self."):
                self.exact[f.source.replace("self.", f"{me}.", 1)] = cst.parse_expression(f"{me}.{f.name}")
            elif f.kind == "state":
                self.exact[f"{me}.{design.attr}.{f.name}"] = cst.parse_expression(f"{me}.{f.name}")
        self.owner = owner.name if owner is not None else None
        self.unmapped: list[cst.CSTNode] = []
        self.depth = 0

    def leave_Attribute(self, original, updated):
        chain = dotted(original)
        if chain is None or not chain.startswith(self.me + "."):
            return updated
        if chain in self.exact:
            return self.exact[chain]
        return updated



class _Check(cst.CSTVisitor):
    """`self.X` left in a remapped body that is not the component's own member."""

    def __init__(self, me: str, members: set[str], owner: Optional[str]):
        self.me, self.members, self.owner = me, members, owner
        self.left: list[cst.Attribute] = []
        self.bare: list[cst.Name] = []

    def visit_Attribute(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == self.me and node.attr.value not in self.members:
            self.left.append(node)


class _ThroughOwner(cst.CSTTransformer):
    """`--pass-owner NAME`: `self.X` (X not the component's own) -> `self.NAME.X`; a bare `self` -> `self.NAME`."""

    def __init__(self, me: str, members: set[str], owner: str):
        self.me, self.members, self.owner = me, members, owner
        self.skip: set[int] = set()

    def visit_Attribute(self, node):
        if isinstance(node.value, cst.Name) and node.value.value == self.me:
            self.skip.add(id(node.value))

    def leave_Attribute(self, original, updated):
        if isinstance(original.value, cst.Name) and original.value.value == self.me \
                and original.attr.value not in self.members:
            return updated.with_changes(value=cst.Attribute(cst.Name(self.me), cst.Name(self.owner)))
        return updated

    def leave_Name(self, original, updated):
        if original.value == self.me and id(original) not in self.skip:
            return cst.Attribute(cst.Name(self.me), cst.Name(self.owner))
        return updated

    def visit_Param(self, node):
        self.skip.add(id(node.name))


def delegation(fn: cst.FunctionDef, attr: str) -> cst.FunctionDef:
    """`fn` with a body that calls the component's method of its name with its own arguments."""
    params = fn.params
    me = params.params[0].name.value
    args = [p.name.value for p in params.posonly_params + params.params[1:]] if params.posonly_params else \
        [p.name.value for p in params.params[1:]]
    if params.posonly_params:
        args = [p.name.value for p in params.posonly_params[1:]] + [p.name.value for p in params.params]
    parts = list(args)
    if isinstance(params.star_arg, cst.Param):
        parts.append(f"*{params.star_arg.name.value}")
    parts += [f"{p.name.value}={p.name.value}" for p in params.kwonly_params]
    if params.star_kwarg is not None:
        parts.append(f"**{params.star_kwarg.name.value}")
    body = cst.parse_statement(f"return {me}.{attr}.{fn.name.value}({', '.join(parts)})\n")
    return fn.with_changes(body=cst.IndentedBlock(body=[body], indent=fn.body.indent if isinstance(
        fn.body, cst.IndentedBlock) else None))


class Move(Step[ComponentRun, None]):
    number = 2

    def done(self, reading: Reading) -> bool:
        """The component holds every method asked for (step 1 is done)."""
        moved = {s.name for s in reading.component.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return all(m in moved for m in reading.spec.methods)

    def run(self, run: ComponentRun, tree: Tree, carry: None) -> Outcome[None]:
        design, style = run.design, run.ctx.style
        _, cls = top_class(tree.module, design.owner, run.source)
        members = set(design.methods) | {f.name for f in design.fields}
        moved: list[cst.FunctionDef] = []
        problems: list[Location] = []
        body = []
        target_text = run.text_of(tree, run.target)  # a new module gets `from __future__ import annotations` in step 1
        postponed = target_text is None or is_lazy(parse(run.target, target_text))
        for s in cls.body.body:
            if not (isinstance(s, cst.FunctionDef) and s.name.value in design.methods):
                body.append(s)
                continue
            me = s.params.params[0].name.value
            remapped = s.visit(Remap(design, me, members))
            if design.owner_field is not None:
                remapped = remapped.visit(_ThroughOwner(me, members, design.owner_field.name))
            check = _Check(me, members, design.owner_field.name if design.owner_field else None)
            remapped.visit(check)
            if check.left:
                lines = LineMap(s, def_line(tree.text, design.owner, s.name.value))
                for node in check.left:
                    problems.append(Location(run.source, lines(node) or 0,
                                             f"{design.owner}.{s.name.value} reads {me}.{node.attr.value}, which "
                                             f"{design.component} neither holds nor is given: the design does not "
                                             f"cover it"))
                continue
            moved.append(_self_typed(remapped, design.component, postponed)
                         .with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
            if s.name.value not in design.helpers:
                body.append(delegation(s, design.attr))
        if problems:
            raise Conflicts(problems)
        new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
        module = tree.module.with_changes(body=[new_cls if s is cls else s for s in tree.module.body])
        component = cst.parse_statement(build.class_code(design))  # add_class lays the whole class out
        component = component.with_changes(body=component.body.with_changes(body=[*component.body.body, *moved]))
        old = target_text
        owner_text = run.render(module)  # the owner as the target's imports see it
        text = cst.Module(body=[component]).code
        new_target = add_class(run, owner_text, old, text, design, module)
        check_cycles(run, old, new_target, owner_imports_target=False)
        checkout = run.ctx.checkout
        target_module = parse(run.target, new_target)
        module, dropped = tidy_source(
            module, target_module, design.component, style,
            lambda names: referenced_elsewhere(checkout, run.source_module, design.target_module, names, style,
                                               {run.source, run.target}), True, run.render)
        notes = [f"  step 2 drops from {run.source.name} what only the moved code used: {', '.join(dropped)}"] \
            if dropped else []
        return Outcome(f"Move {design.owner}'s {_listed(design)} into {design.component}", module,
                       {run.target: new_target}, {run.target: run.originals.get(run.target, old)}, notes=notes)


def _self_typed(fn: cst.FunctionDef, component: str, postponed: bool) -> cst.FunctionDef:
    """`fn` with `self: OWNER` (the mixins' style) annotated as the component it now belongs to,
    quoted where the target module evaluates annotations (the class is not bound yet as its
    body runs); an unannotated `self` stays so."""
    params = fn.params.params
    if not params or params[0].annotation is None:
        return fn
    name = cst.Name(component) if postponed else cst.SimpleString(f'"{component}"')
    first = params[0].with_changes(annotation=params[0].annotation.with_changes(annotation=name))
    return fn.with_changes(params=fn.params.with_changes(params=[first, *params[1:]]))


def _listed(design: Design) -> str:
    names = [m for m in design.methods if m not in design.helpers]
    return names[0] if len(names) == 1 else f"{len(names)} methods"
