"""Functions of the checkout that moved to another module between the versions, their code
unchanged (`overrides.resolved_view` in one version, `model_override_base.resolved_view` in the
next): a call of either is a call of the same function, so the after version's input takes the
before version's key. Both are inputs (another module's functions are not run), and without
this the same call would read two different answers and be reported as a different call."""

from __future__ import annotations

import ast
import copy
from typing import TYPE_CHECKING

from pysource.checkout import Checkout
from pysource.modules import import_bindings, module_level_statements
from pysource.names import global_reads

if TYPE_CHECKING:  # the version module imports torch; the command line must start without it
    from equivalence.engine.load.version import Version


def moved_functions(before: Version, after: Version) -> dict[str, str]:
    """The after version's input keys (`MODULE.f`) naming a module-level function that the before
    version's module did not define, while the before version reads an input of the same name
    defined, with the same code, in another module -> that input's key."""
    theirs: dict[str, list[str]] = {}
    for g in before.inputs.globals:
        if g.proxy is None and g.key:
            theirs.setdefault(g.key.rpartition(".")[2], []).append(g.key)
    out = {}
    for g in after.inputs.globals:
        if g.proxy is not None or not g.key or g.key in out:
            continue
        same = [k for k in theirs.get(g.key.rpartition(".")[2], ())
                if moved_unchanged(before.ext.files, k, after.ext.files, g.key)]
        if len(same) == 1:
            out[g.key] = same[0]
    return out


def moved_unchanged(before: Checkout, was: str, after: Checkout, now: str) -> bool:
    """Whether the module-level function `was` of the before checkout is `now` of the after one:
    another module, the same code, neither module defining it in the other version."""
    if was == now:
        return False
    code = def_code(after, now)
    return code is not None and code == def_code(before, was) and def_code(before, now) is None \
        and def_code(after, was) is None


def def_code(files: Checkout, key: str) -> str | None:
    """The code (dumped, without docstrings) of the module-level `def` that `key` names in
    `files`, with what each global it reads is bound to; None when its module does not define one."""
    module, _, name = key.rpartition(".")
    rel = files.module_file(module) if module else None
    if rel is None:
        return None
    module_body = files.parse(rel).body
    for node in module_body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return _with_reads(files, module, module_body, node, {name})
    return None


def _with_reads(files: Checkout, module: str, body: list[ast.stmt], node: ast.stmt, seen: set[str]) -> str:
    # the globals it reads, as what they are: an import by the object it names, a binding of its
    # module by its statement, followed into the module's own defs (the same code reading another
    # value is another function)
    reads = [f"{g}={_global(files, module, body, g, seen | {g})}" for g in sorted(global_reads(node)) if g not in seen]
    return _dump(node) + ";".join(reads)


def _dump(node: ast.AST) -> str:
    """`ast.dump` of `node` with every docstring left out: a docstring reworded on the way is the
    same code."""
    class Strip(ast.NodeTransformer):
        def generic_visit(self, n):
            n = super().generic_visit(n)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(n) is not None:
                n.body = n.body[1:] or [ast.Pass()]
            return n
    return ast.dump(Strip().visit(copy.deepcopy(node)))


def _global(files: Checkout, module: str, body: list[ast.stmt], name: str, seen: set[str]) -> str:
    found = files.canonical(f"{module}.{name}")
    if found != f"{module}.{name}":
        return found
    out = []
    for s in module_level_statements(body):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
            out.append(_with_reads(files, module, body, s, seen))
        elif name in {b.name for b in import_bindings(s, "")} or (isinstance(s, (ast.Assign, ast.AnnAssign))
                and name in {n.id for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                             for n in ast.walk(t) if isinstance(n, ast.Name)}) \
                or (isinstance(s, ast.ClassDef) and s.name == name):
            out.append(_dump(s))
    return "".join(out)
