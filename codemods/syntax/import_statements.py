"""Direct surgery on a module's top-level statements: who binds a name, add/remove imports.

Stock `AddImportsVisitor`/`RemoveImportsVisitor` run scope analysis over the whole file
(seconds on a 3400-line runner); these helpers only look at top-level statements.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import libcst as cst
import libcst.matchers as m

from pysource.modules import resolve_relative



@dataclass
class Binding:
    name: str
    index: int  # position of the top-level statement in module.body
    kind: str  # "import" | "assign" | "definition" | "conditional" | "star"
    alias: Optional[cst.ImportAlias] = None


def module_name(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, (cst.Name, cst.Attribute)):
        return f"{module_name(node.value)}.{node.attr.value}"
    return cst.Module([]).code_for_node(node) if node is not None else ""


def absolute_module(node: cst.ImportFrom, package: str) -> str:
    """The absolute module of `from <module> import ...`, resolving relative dots against `package`
    (`pysource.modules.resolve_relative`; "" when it cannot be resolved)."""
    return resolve_relative(module_name(node.module) or None, len(node.relative), package) or ""


def imported_module(small: cst.Import | cst.ImportFrom, alias: cst.ImportAlias, package: str) -> str:
    """The module an import statement reads `alias` from: `x.y` for `from x.y import z` (relative
    dots resolved against `package`) and for `import x.y`."""
    return absolute_module(small, package) if isinstance(small, cst.ImportFrom) else module_name(alias.name)


def bound_name(alias: cst.ImportAlias, is_from: bool) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    full = module_name(alias.name)
    return full if is_from else full.split(".")[0]


@lru_cache(maxsize=16)  # nodes hash by identity; several steps ask about the same module
def index_bindings(module: cst.Module) -> dict[str, list[Binding]]:
    """{name: its top-level bindings} (read-only: shared between callers). The edit-side view of
    what `pysource.bindings.binding_index` says of a parsed text: positions in `module.body` and
    the LibCST aliases an edit rewrites, for a module a step is changing (which has no text yet)."""
    out: dict[str, list[Binding]] = {}

    def add(b: Binding) -> None:
        out.setdefault(b.name, []).append(b)

    for i, s in enumerate(module.body):
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Import):
                    for a in small.names:
                        add(Binding(bound_name(a, False), i, "import", a))
                elif isinstance(small, cst.ImportFrom):
                    if isinstance(small.names, cst.ImportStar):
                        add(Binding("*", i, "star"))
                    else:
                        for a in small.names:
                            add(Binding(bound_name(a, True), i, "import", a))
                elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    for t in targets:
                        for n in _target_names(t):
                            add(Binding(n, i, "assign"))
        elif isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            add(Binding(s.name.value, i, "definition"))
        else:
            for n in _names_bound_inside(s):
                add(Binding(n, i, "conditional"))
    return out


def _target_names(t: cst.CSTNode) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    return []


def _names_bound_inside(s: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    for a in m.findall(s, m.ImportAlias()):
        names.add(bound_name(a, True) if a.asname else module_name(a.name).split(".")[0])
        names.add(module_name(a.name))
    for t in m.findall(s, m.AssignTarget()):
        names.update(_target_names(t.target))
    for d in m.findall(s, m.FunctionDef() | m.ClassDef()):
        names.add(d.name.value)
    return names


def restricted_import(stmt: cst.SimpleStatementLine, names: set[str], package: str) -> cst.SimpleStatementLine:
    """`stmt` (an import) keeping only aliases binding `names`, relative made absolute, no comments."""
    (small,) = stmt.body
    if isinstance(small, cst.Import):
        keep = [a for a in small.names if bound_name(a, False) in names]
        new = cst.Import(names=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in keep])
    else:
        keep = [a for a in small.names if bound_name(a, True) in names]
        mod = absolute_module(small, package)
        new = cst.ImportFrom(module=cst.parse_expression(mod), names=[
            a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in keep])
    return cst.SimpleStatementLine(body=[new])


def is_import_line(s: cst.CSTNode) -> bool:
    return isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)


def drop_aliases(stmt: cst.SimpleStatementLine, drop: set[str]) -> Optional[cst.SimpleStatementLine]:
    """`stmt` without aliases binding `drop`; None when nothing is left."""
    (small,) = stmt.body
    is_from = isinstance(small, cst.ImportFrom)
    keep = [a for a in small.names if bound_name(a, is_from) not in drop]
    if not keep:
        return None
    last = keep[-1]
    if not (is_from and small.lpar):
        keep[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    elif isinstance(last.comma, cst.MaybeSentinel):
        keep[-1] = last.with_changes(comma=cst.Comma())
    return stmt.with_changes(body=[small.with_changes(names=keep)])
