"""Generic mutants of a component version (`engine.selfcheck`'s kinds): of each component method
(the moved logic), of the owner's builder (the fields' sources: a getter's chain, a value passed
from another attribute, two fields passing each other's value) and of the delegations; and the
controls, edits of the moved logic that change nothing, which must survive."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from equivalence.component.version import Prepared
from equivalence.engine.selfcheck.mutate import Mutant, Unit, controls_from, from_units


def _units(v: Prepared) -> list[Unit]:
    shape = v.loaded.shape
    tree = shape.tree
    out = []
    if shape.component is not None:
        ext = SimpleNamespace(source_rel=shape.component_rel, class_node=shape.component, text=tree.text, files=tree)
        for node in shape.component_methods.values():
            out.append(Unit(ext, shape.component_rel, node, list(node.body), "core"))
    owner = SimpleNamespace(source_rel=shape.owner_rel, class_node=shape.owner, text=tree.text, files=tree)
    for name in sorted(v.real):
        node = shape.methods[name]
        if shape.builder is not None and name == shape.builder.name:
            statement = next(s for s in ast.walk(node) if isinstance(s, ast.Assign) and s.value is shape.build_call)
            out.append(Unit(owner, shape.owner_rel, node, list(node.body), "caller", [(shape.build_call, statement)]))
        else:
            out.append(Unit(owner, shape.owner_rel, node, list(node.body), "core" if shape.component is None or
                             name not in shape.component_methods else "caller"))
    return out


def _where(unit: Unit, edit) -> str:
    return f"{unit.rel.rpartition('/')[2]}:L{edit.line}"


def component_mutants(v: Prepared, limit: int = 30) -> list[Mutant]:
    return from_units(_units(v), limit, _where)


def component_controls(v: Prepared) -> list[Mutant]:
    """Edits of the moved logic (the component's methods, else the owner's) that change nothing,
    which the self-check must let survive: one of each kind (`engine.selfcheck.mutate.controls_of`)."""
    return controls_from([u for u in _units(v) if u.role == "core"], _where)
