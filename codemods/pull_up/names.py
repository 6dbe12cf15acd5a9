"""What a module-level name means in a module, to tell whether code read in one module reads the
same in another, and the import that carries it there.

A name's meaning is the dotted name of what binds it: `time` for `import time`,
`sglang.srt.x.KVPoll` for `from sglang.srt.x import KVPoll` (re-exports followed through the
package), `MODULE.NAME` for a def, class or assignment of the module itself, `builtins.NAME` for a
builtin nothing binds. Two modules read a name alike when its meanings are equal. A name bound
under `if`/`try`, bound several ways, or read where a star import may bind it has no meaning
here (None, with why).
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from pysource.bindings import binding_index
from pysource.checkout import Checkout
from pysource.modules import bindings_of_import


@dataclass(frozen=True)
class Meaning:
    dotted: Optional[str]  # None: cannot be told (`why`)
    kind: str  # "import" | "own" | "builtin" | "unknown"
    line: int = 0  # the binding statement's line (0: none)
    statement: Optional[ast.stmt] = None  # the import statement, for an import
    why: str = ""


def meaning(checkout: Checkout, tree: ast.Module, module: str, package: Optional[str], name: str) -> Meaning:
    """What module-level `name` means in `tree` (module `module`, whose relative imports resolve
    against `package`)."""
    found = binding_index(tree).get(name, [])
    top = [s for s in found if s in tree.body]
    if not found:
        if any(isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names) for s in tree.body):
            return Meaning(None, "unknown", why="a star import may bind it")
        if hasattr(builtins, name):
            return Meaning(f"builtins.{name}", "builtin")
        return Meaning(None, "unknown", why="nothing at module level binds it")
    if len(top) != len(found):
        return Meaning(None, "unknown", found[0].lineno, why="it is bound inside an if/try block")
    if all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in found):
        targets = set()
        for s in found:
            for b in bindings_of_import(s, package):
                if b.name == name:
                    targets.add(b.qualname)
        if len(targets) != 1:
            return Meaning(None, "unknown", found[0].lineno, why="its imports bind it to different things")
        target = targets.pop()
        return Meaning(_canonical(checkout, target), "import", found[-1].lineno, found[-1])
    if len(found) == 1:
        return Meaning(f"{module}.{name}", "own", found[0].lineno)
    return Meaning(None, "unknown", found[0].lineno, why="it is bound several times")


def _canonical(checkout: Checkout, dotted: str) -> str:
    try:
        return checkout.canonical(dotted)
    except (OSError, SyntaxError, ValueError):
        return dotted


def import_line(statement: ast.stmt, name: str, package: Optional[str]) -> cst.SimpleStatementLine:
    """An absolute import binding `name` as `statement` does."""
    for alias in statement.names:
        bound = alias.asname or alias.name.split(".")[0]
        if bound != name:
            continue
        as_ = f" as {alias.asname}" if alias.asname else ""
        if isinstance(statement, ast.Import):
            return cst.parse_statement(f"import {alias.name}{as_}\n")
        module = next(b.from_module for b in bindings_of_import(statement, package) if b.name == name)
        return cst.parse_statement(f"from {module} import {alias.name}{as_}\n")
    raise ValueError(name)
