"""Generic mutants of a component version (`engine.selfcheck`'s kinds): of each component method
(the moved logic), of the owner's builder (the fields' sources: a getter's chain, a value passed
from another attribute, two fields passing each other's value) and of the delegations."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from equivalence.component.version import Prepared
from equivalence.engine.selfcheck.mutate import KINDS, Mutant, _alternate, _Unit


def _units(v: Prepared) -> list[_Unit]:
    shape = v.loaded.shape
    tree = shape.tree
    out = []
    if shape.component is not None:
        ext = SimpleNamespace(source_rel=shape.component_rel, class_node=shape.component, text=tree.text, files=tree)
        for node in shape.component_methods.values():
            out.append(_Unit(ext, shape.component_rel, node, list(node.body), "core"))
    owner = SimpleNamespace(source_rel=shape.owner_rel, class_node=shape.owner, text=tree.text, files=tree)
    for name in sorted(v.real):
        node = shape.methods[name]
        if shape.builder is not None and name == shape.builder.name:
            statement = next(s for s in ast.walk(node) if isinstance(s, ast.Assign) and s.value is shape.build_call)
            out.append(_Unit(owner, shape.owner_rel, node, list(node.body), "caller", [(shape.build_call, statement)]))
        else:
            out.append(_Unit(owner, shape.owner_rel, node, list(node.body), "core" if shape.component is None or
                             name not in shape.component_methods else "caller"))
    return out


def component_mutants(v: Prepared, limit: int = 30) -> list[Mutant]:
    units = _units(v)
    per_unit = [{kind: [] for kind in KINDS} for _ in units]
    for unit, kinds in zip(units, per_unit):
        for edit in unit.candidates():
            kinds[edit.kind].append((unit, edit))
    queues = {kind: _alternate([kinds[kind] for kinds in per_unit]) for kind in KINDS}
    out, seen = [], {}
    while len(out) < limit and any(queues.values()):
        for kind in KINDS:
            while queues[kind] and len(out) < limit:
                unit, edit = queues[kind].pop(0)
                text = unit.apply(edit)
                if text is None:
                    continue
                base = f"{kind}@{unit.rel.rpartition('/')[2]}:L{edit.line}"
                seen[base] = seen.get(base, 0) + 1
                ident = base if seen[base] == 1 else f"{base}#{seen[base]}"
                out.append(Mutant(ident, edit.description, kind, unit.rel, edit.line, {unit.rel: text}))
                break
    return out
