"""The layout holds: no import cycle among our modules (imports under TYPE_CHECKING and inside
functions count too), and each layer imports only the layers beneath it.

    pysource                         the shared, ast-level source layer: imports none of ours
    codemods.core / syntax / checkout  machinery, LibCST helpers, checkout-wide rewriting:
                                     no refactoring kind, no preset
    codemods.<kind>                  a refactoring kind: no preset of it, no other kind
    equivalence.engine               the generic engine: no preset, not the command line, nor
                                     where versions come from (versions/) or what is checked (subjects)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import KINDS

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("pysource", "codemods", "equivalence")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Our modules `name` imports, anywhere in the file (`from package import submodule` imports the
    submodule: the package's `__init__` runs first, but nothing of it is used)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = {f"{module}.{a.name}" for a in node.names} & set(MODULES)
            found |= submodules if len(submodules) == len(node.names) else {module, *submodules}
    out = set()
    for target in found:
        while target and target not in MODULES:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert _cycles() == []


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


KIND_PACKAGES = tuple(sorted(f"codemods.{name}" for name in KINDS))  # every registered kind

RULES = [
    # (importers, what they must not import, why); a module that is itself forbidden is exempt
    (("pysource",), ("codemods", "equivalence"), "the shared source layer is beneath both packages"),
    (("codemods.core", "codemods.syntax", "codemods.checkout"), KIND_PACKAGES,
     "machinery, syntax helpers and checkout-wide rewriting serve every refactoring kind"),
    (("codemods.extract_method",), ("codemods.extract_method.presets", "codemods.extract_kv_dtype"),
     "a refactoring kind does not know its presets"),
    (("equivalence.engine",), ("equivalence.presets", "equivalence.cli", "equivalence.subject", "equivalence.subjects",
                               "equivalence.versions", "codemods"),
     "the engine does not know its presets, the command line, its subjects, or how versions are made"),
    (("codemods",), ("equivalence",), "the codemods never import the harness"),
]


@pytest.mark.parametrize("importers, forbidden, why", RULES, ids=[r[0][0] for r in RULES])
def test_layers(importers, forbidden, why):
    broken = sorted((name, target) for name, targets in GRAPH.items()
                    if _within(name, *importers) and not _within(name, *forbidden)
                    for target in targets if _within(target, *forbidden))
    assert broken == [], why


@pytest.mark.parametrize("kind", KIND_PACKAGES)
def test_a_kind_imports_no_other_kind(kind):
    """What two kinds need lives in core, syntax or checkout; a preset's command (a kind of its
    own) may import its kind's `presets` package and nothing else of it. Read off the registry:
    a new kind is covered without touching this file."""
    others = [k for k in KIND_PACKAGES if k != kind]
    broken = sorted((name, target) for name, targets in GRAPH.items() if _within(name, kind)
                    for target in targets if _within(target, *others)
                    and not _within(target, *(f"{o}.presets" for o in others)))
    assert broken == []
