"""Patches of names the moved code reads through the old module, which would stop reaching it.

Once a function moves from OLD to NEW, it reads its free names (`get_cpu_ids_by_node`,
`_use_aiter`, ...) from NEW's globals. A test that patches `OLD.NAME` (`mock.patch("OLD.NAME")`,
`patch.object(old_module, "NAME")`, `monkeypatch.setattr(...)`, `old_module.NAME = x`) would
still run but silently stop affecting the function: each such place is listed, with what to
patch instead. Patching inside the object (`"OLD.NAME.attr"`, `patch.dict("OLD.NAME")`) still
reaches it when NAME is imported (one shared object), not when NEW holds its own copy.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterable

from pysource.checkout import Checkout
from codemods.core.errors import Location
from pysource.imports import PATCHERS, FileNames, callee_name, nodes
from pysource.text_search import search_near

PATCH_CALLS = (b"object(", b"setattr(", b"delattr(")


def patches_missing_moved_code(checkout: Checkout, old: str, new: str, function: str, reads: Iterable[str],
                               copies: Iterable[str] = (), skip: Iterable[Path] = ()) -> list[Location]:
    """Every place that patches or sets `old.NAME` for a NAME in `reads` (the free names of
    `function`, which moves from module `old` to `new`); `copies`: those of `reads` that NEW
    binds to a value of its own (a copied module global such as `_is_hip = is_hip()`)."""
    reads, copies = set(reads), set(copies)
    if not reads:
        return []
    skip = {Path(p).resolve() for p in skip}
    tail = old.rpartition(".")[2].encode()
    old_dot, read_names = f"{old}.".encode(), tuple(n.encode() for n in sorted(reads))
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(reads))
    by_name = re.compile(rb"(?:object|setattr|delattr)\(\s*[\w.]+\s*,\s*['\"](?:" + alternatives + rb")['\"]")
    store = re.compile(rb"\.(?:" + alternatives + rb")(?!\w)[ \t]*[-+*/%&|^@]?=(?!=)")  # module.NAME = value

    def worth_parsing(data: bytes) -> bool:
        if tail not in data:
            return False
        if _spells_dotted(data, old_dot, read_names) or b".multiple(" in data:
            return True
        if any(search_near(by_name, data, p) for p in PATCH_CALLS):  # each match starts with one of them
            return True
        return store.search(data) is not None

    found: list[Location] = []
    for path in checkout.select(worth_parsing, mentioning=tail):
        if path in skip:
            continue
        try:
            tree = checkout.parse(path)
        except (SyntaxError, ValueError):
            continue  # references.plan_references lists unparseable files that mention moved names
        names = FileNames(tree, checkout.package_of(path), checkout.module_of(path) or f"<{path}>",
                          text=checkout.text(path))
        for node, name, how in _patches(tree, names, old, reads, copies):
            found.append(Location(path, node.lineno, f"{how} {old}.{name}, but {function} will read {name} from "
                                                     f"{new}: patch \"{new}.{name}\" instead (or as well)"))
    return found


def _spells_dotted(data: bytes, prefix: bytes, names: tuple[bytes, ...]) -> bool:
    """Whether `data` holds `prefix` + NAME for one of `names` ("OLD.NAME", a patch target), looked
    for after each `prefix` (one search, rather than one per name)."""
    at = data.find(prefix)
    while at != -1:
        if data.startswith(names, at + len(prefix)):
            return True
        at = data.find(prefix, at + 1)
    return False


def _patches(tree: ast.Module, names: FileNames, old: str, reads: set[str], copies: set[str]):
    """(node, NAME, how) for each patch of `old.NAME` that would miss the moved function."""
    inside: set[int] = set()  # patch.dict("OLD.NAME", ...) changes the object itself
    for node in nodes(tree):  # a call comes before its arguments
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(old + "."):
            name, dot, _ = node.value[len(old) + 1:].partition(".")
            if name in copies or name in reads and not dot and id(node) not in inside:
                yield node, name, "patches"
        elif isinstance(node, ast.Attribute) and node.attr in reads and not isinstance(node.ctx, ast.Load):
            if names.qualify(node.value) == old:
                yield node, node.attr, "sets"
        elif isinstance(node, ast.Call) and node.args:
            callee, first = callee_name(node), node.args[0]
            if callee == "dict":
                inside.add(id(first))
            if names.qualify(first) != old and not (isinstance(first, ast.Constant) and first.value == old):
                continue
            second = node.args[1] if len(node.args) > 1 else None
            if isinstance(second, ast.Constant) and second.value in reads and callee in PATCHERS:
                yield node, second.value, "patches"
            for kw in node.keywords if callee == "multiple" else ():
                if kw.arg in reads:
                    yield node, kw.arg, "patches"
