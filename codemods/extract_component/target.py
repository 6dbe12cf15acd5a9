"""The component's module: the class written into a new module or merged into an existing one,
with exactly what its code needs (the owner module's imports and module globals the class reads,
`travelling_code`; the names only annotations use under `if TYPE_CHECKING:` in a lazy module),
and the import cycles that would close (refused)."""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from codemods.checkout.import_graph import ImportGraph, module_imports
from codemods.core.errors import Refusal
from codemods.core.formatting import format_module, format_statement
from codemods.extract_component.design import Design
from codemods.extract_component.models import ComponentRun
from codemods.syntax.annotations import is_lazy
from codemods.syntax.import_placement import from_import
from codemods.syntax.nodes import binding_line, parse, use_line_in
from codemods.syntax.target_module import merge_into
from codemods.syntax.travelling_code import Annotations, free_names, travelling_code
from codemods.syntax.type_checking import add_type_checking_imports
from pysource import parsing

FUTURE = "from __future__ import annotations\n"
PROVIDED = {"dataclass", "field", "Any", "Callable", "Optional", "TYPE_CHECKING"}


class _NoAnnotations(cst.CSTTransformer):
    """The code without its annotations (parameters, returns, `x: T` in class bodies)."""

    def leave_Param(self, original, updated):
        return updated.with_changes(annotation=None)

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(returns=None)

    def leave_AnnAssign(self, original, updated):
        value = updated.value if updated.value is not None else cst.Name("None")
        return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=value)


def annotation_names(stmts: list[cst.BaseStatement]) -> frozenset[str]:
    """The free names of `stmts` only their annotations use."""
    bare = [s.visit(_NoAnnotations()) for s in stmts]
    return frozenset(free_names(stmts) - free_names(bare))


def stdlib_imports(design: Design, cls: cst.ClassDef) -> list[cst.SimpleStatementLine]:
    """`from dataclasses import dataclass[, field]` and the `typing` names the class spells."""
    code = cst.Module(body=[cls]).code
    spelled = {n.id for n in ast.walk(parsing.parse(code)) if isinstance(n, ast.Name)}
    out = [from_import("dataclasses", [n for n in ("dataclass", "field") if n in spelled])]
    typing = [n for n in ("Any", "Callable", "Optional") if n in spelled]
    if typing:
        out.append(from_import("typing", typing))
    return out


def add_class(run: ComponentRun, text: str, old: Optional[str], class_code: str, design: Design,
              owner: Optional[cst.Module] = None) -> str:
    """The target module's new text: `class_code` (the component class) in place of any class of
    its name the module holds, with the imports and globals the class needs, as the owner's module
    (its text as the steps so far left it: `text`) binds them. `owner`: that module's tree when the
    caller holds it (its code is `text`), else it is parsed."""
    style = run.ctx.style
    cls = cst.parse_statement(class_code)
    cls = format_statement(cls.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]), 0, style)
    package = run.source_module.rpartition(".")[0]
    owner = owner if owner is not None else parse(run.source, text)
    target_module = parse(run.target, old) if old is not None else None
    if target_module is not None:
        target_module = target_module.with_changes(body=[s for s in target_module.body if not (
            isinstance(s, cst.ClassDef) and s.name.value == design.component)])
    lazy = is_lazy(target_module) if target_module is not None else True
    names = annotation_names([cls])
    annotations = Annotations(names, lazy, run.source_module, run.source_module.split(".")[0])

    def use_line(name: str) -> int:
        return use_line_in(text, name, design.owner, design.methods)

    imports, globals_, type_imports = travelling_code(owner, text, [cls], package, run.source,
                                                      set(PROVIDED) | set(design.methods), use_line, annotations)
    imports = stdlib_imports(design, cls) + list(imports)
    if target_module is None:
        head = cst.Module(body=[cst.parse_statement(FUTURE), *imports])
        head = add_type_checking_imports(head, type_imports, style, design.target_module.rpartition(".")[0])
        body = list(head.body)
        body += [g.with_changes(leading_lines=[cst.EmptyLine()]) for g in globals_]
        body.append(cls)
        return format_module(cst.Module(body=body).code, style)
    return merge_into(target_module.code, run.target, design.target_module, design.target_module.rpartition(".")[0],
                      imports, type_imports, globals_, [], cls, style,
                      lambda name: f"{run.source}:{binding_line(text, name) or 1}")


def check_cycles(run: ComponentRun, old_target: Optional[str], new_target: str,
                 owner_imports_target: bool = True) -> None:
    """Refuse when the imports a step adds close an import cycle: the owner's module importing the
    target, or the target importing what the moved code needs."""
    design = run.design
    package = design.target_module.rpartition(".")[0]
    added = sorted(module_imports(new_target, design.target_module, package, run.ctx.checkout)
                   - module_imports(old_target, design.target_module, package, run.ctx.checkout))
    edges = ([(run.source_module, design.target_module)] if owner_imports_target else []) + added
    cycle = ImportGraph(run.ctx.checkout).cycle_closed_by(edges)
    if cycle is None:
        return
    if cycle[0] == run.source_module:
        why = f"{run.source_module} would import {design.target_module} at module level"
    else:
        why = f"{design.target_module} would import {cycle[1]} at module level (the moved code needs it)"
    raise Refusal(f"{why}, which closes the import cycle {' -> '.join(cycle)}: choose another target module, "
                  f"or import lazily there first", run.source, run.owner.node.lineno)
