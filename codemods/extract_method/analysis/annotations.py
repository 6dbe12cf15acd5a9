"""The annotations of the extracted function's inferred parameters, when the class says them.

A parameter inferred from `self.X` is annotated `T` only when the class (with its bases found in
the tree) says it unambiguously: `self.X: T = ...` or a class-level `X: T` (every such
declaration agreeing), or else every assignment `self.X = p` assigns a parameter `p` annotated
`T` of its method and never rebound there (`__init__(self, tp_size: int)`), all agreeing.
`--pass-self NAME` is annotated with the class itself. Anything else stays unannotated.

The names an annotation spells must resolve where step 1 writes it (the class's module) and
where step 2 moves it (the target), without a new import cycle: in a module with
`from __future__ import annotations` (`is_lazy`: a new target module gets it) a name of the
package, or one the class's module imports only under `if TYPE_CHECKING:` or defines itself, is
imported under `if TYPE_CHECKING:` (never run, so no cycle); elsewhere it needs a plain import
of the same thing, refused if it would close a cycle. An annotation that cannot resolve is left
out rather than refused.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path
from typing import Optional

import libcst as cst

from pysource.checkout import Checkout
from codemods.syntax.annotations import attribute_types, is_lazy
from codemods.checkout.import_graph import ImportGraph
from codemods.syntax.import_statements import imported_module, index_bindings, module_name
from codemods.extract_method.recipe import Recipe
from codemods.extract_method.analysis.rewrites import Param
from codemods.syntax.target_module import same_import
from codemods.syntax.type_checking import type_checking_imports
from pysource import parsing


class Annotator:
    """The annotations the inferred parameters get (`annotate`), decided before step 1 from the
    class's module `source` and the target module as it is (None: a new one)."""

    def __init__(self, checkout: Checkout, recipe: Recipe, source: cst.Module, text: str, root: Path,
                 target: Optional[cst.Module]):
        self.checkout, self.recipe, self.source, self.target = checkout, recipe, source, target
        self.text, self.root = text, root
        self.source_lazy = is_lazy(source)
        self.target_lazy = is_lazy(target) if target is not None else recipe.future_annotations
        self.bindings = index_bindings(source)
        self.target_bindings = index_bindings(target) if target is not None else {}
        self.package = recipe.source_module.rpartition(".")[0]
        self._graph: Optional[ImportGraph] = None
        self.left_out: list[str] = []  # "PARAM: T", annotations the class gives but the target cannot spell

    def annotate(self, params: list[Param]) -> None:
        """Set the annotation of each of `params` that has none and can have one."""
        attributes = {p.argument[5:]: p for p in params if p.annotation is None and re.fullmatch(
            r"self\.\w+", p.argument)}
        types = attribute_types(self.text, self.recipe.class_name, self.root, self.recipe.source_module,
                                set(attributes))
        for p in params:
            found = self.recipe.class_name if p.argument == "self" else types.get(p.argument[5:]) if (
                p.argument[5:] in attributes) else None
            if p.annotation is None and found is not None:
                why = self.why_not(found)
                if why is None:
                    p.annotation = found
                else:
                    self.left_out.append(f"{p.name}: {found} ({why})")

    def left_out_note(self) -> Optional[str]:
        """What `annotate` left unannotated although the class says its type, and why."""
        if not self.left_out:
            return None
        it = "it" if len(self.left_out) == 1 else "them"
        return (f"left unannotated: {'; '.join(self.left_out)}: the class says so, but "
                f"{self.recipe.target_module} cannot spell {it}")

    def why_not(self, annotation: str) -> Optional[str]:
        """None when every name `annotation` spells resolves in the class's module where step 1
        writes it and can be imported into the target without a new import cycle; else why not."""
        try:
            tree = parsing.expression(annotation)
        except SyntaxError:
            return "not an expression"
        if any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(tree)):
            return "it holds a string, whose names this does not follow"
        for n in ast.walk(tree):
            why = self._why_name_not(n.id) if isinstance(n, ast.Name) else None
            if why is not None:
                return why
        return None

    def _why_name_not(self, name: str) -> Optional[str]:
        found = self.bindings.get(name, [])
        source = Path(self.recipe.source_file).name
        if not found:
            if not hasattr(builtins, name):
                return f"{source} does not bind {name}"
            return None if name not in self.target_bindings else f"the target binds {name} otherwise"
        if len(found) != 1:
            return f"{source} binds {name} more than once"
        kind = found[0].kind
        if kind == "conditional":  # imported under TYPE_CHECKING only: never bound at run time
            if name not in type_checking_imports(self.source):
                return f"{source} binds {name} only conditionally"
            return self._lazy_needed(name)
        if kind in ("definition", "assign"):  # the class's own module: only a TYPE_CHECKING import reaches it
            return self._lazy_needed(name)
        stmt = self.source.body[found[0].index]
        small = next(s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom)))
        if not self._free_in_target(name, stmt):
            return f"the target binds {name} otherwise"
        if self.target_lazy or imported_module(small, found[0].alias, self.package).split(".")[0] != \
                self.checkout.package:
            return None
        if self._no_cycle(small, found[0].alias):
            return None
        return (f"importing {name} into the target at run time closes an import cycle; `from __future__ import "
                f"annotations` in the target would let it be imported under TYPE_CHECKING")

    def _lazy_needed(self, name: str) -> Optional[str]:
        """Why `name`, which only a TYPE_CHECKING import can bring to the target, cannot be spelled
        (None: it can)."""
        missing = [m for m, lazy in ((Path(self.recipe.source_file).name, self.source_lazy),
                                     (self.recipe.target_module, self.target_lazy)) if not lazy]
        if missing:
            return (f"{name} reaches the target only through an `if TYPE_CHECKING:` import, and "
                    f"{' and '.join(missing)} lack(s) `from __future__ import annotations`")
        return None if self._free_in_target(name, None) else f"the target binds {name} otherwise"

    def _free_in_target(self, name: str, stmt: Optional[cst.SimpleStatementLine]) -> bool:
        """Whether the target leaves `name` free, or binds it by the same import as `stmt`."""
        found = self.target_bindings.get(name)
        if not found:
            return True
        if stmt is None or len(found) != 1 or found[0].kind != "import":
            return False
        small = next(s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom)))
        alias = next(a for a in small.names if a is self.bindings[name][0].alias)
        return same_import(self.target, found, small, alias, self.recipe.target_package)

    def _no_cycle(self, small: cst.CSTNode, alias: cst.ImportAlias) -> bool:
        """Whether importing `alias` of `small` at the target's top level closes no import cycle."""
        imported = imported_module(small, alias, self.package)
        target = self.recipe.target_module
        edges = [(self.recipe.source_module, target), (target, imported)]
        if isinstance(small, cst.ImportFrom) and f"{imported}.{module_name(alias.name)}" in self.checkout.modules():
            edges.append((target, f"{imported}.{module_name(alias.name)}"))
        self._graph = self._graph or ImportGraph(self.checkout)
        return self._graph.cycle_closed_by(edges) is None
