"""Modules of a source tree, by `ast` only: a file's dotted name, the file of a dotted name, and
what each name bound by an import statement refers to (relative imports resolved)."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@functools.lru_cache(maxsize=32)
def _lines(text: str) -> list[str]:
    """`text`'s lines as `ast.get_source_segment` splits them (at \\n, \\r, \\r\\n only), once per text."""
    return _LINE.findall(text)


def source_segment(text: str, node: ast.AST) -> str | None:
    """`ast.get_source_segment(text, node)`, without splitting the whole text again per call (a
    large module is read many times by the static check)."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None:
        return None
    lines = _lines(text)
    first, col = node.lineno - 1, node.col_offset
    if first == end_line - 1:
        return lines[first].encode()[col:end_col].decode()
    head = lines[first].encode()[col:].decode()
    tail = lines[end_line - 1].encode()[:end_col].decode()
    return "".join([head, *lines[first + 1:end_line - 1], tail])


def module_name(rel: str) -> str:
    """`sglang/srt/utils/__init__.py` -> `sglang.srt.utils`; `a/b.py` -> `a.b`."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package(rel: str) -> bool:
    return rel.endswith("/__init__.py")


def module_files(dotted: str) -> tuple[str, str]:
    """The two files that may hold module `dotted`: `a/b.py` and `a/b/__init__.py`."""
    base = dotted.replace(".", "/")
    return f"{base}.py", f"{base}/__init__.py"


def resolve_relative(module: str | None, level: int, package: str | None) -> str | None:
    """The absolute module `from <level dots><module> import ...` names in `package`; None for a
    relative import without a package, or one reaching above its top package."""
    if not level:
        return module
    if not package:
        return None
    base = package.split(".")
    if level - 1 >= len(base):
        return None
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def absolute_module(node: ast.ImportFrom, package: str | None) -> str | None:
    """The module an `ImportFrom` names, relative levels resolved against `package`."""
    return resolve_relative(node.module, node.level, package)


def file_package(rel: str) -> str:
    """The package relative imports in file `rel` are resolved against."""
    name = module_name(rel)
    return name if is_package(rel) else name.rpartition(".")[0]


def file_absolute_module(node: ast.ImportFrom, rel: str) -> str:
    """The module an `ImportFrom` in file `rel` names ("" when it cannot be resolved)."""
    return absolute_module(node, file_package(rel)) or ""


@dataclass(frozen=True)
class Binding:
    """What a name bound by an import statement refers to: `qualname` is the dotted name of the
    imported object (`sglang.srt.utils.numa_utils`, `sglang.srt.utils.is_hip`; `import a.b.c`
    binds `a`, whose qualname is `a`)."""

    name: str
    qualname: str
    from_module: str | None = None  # for `from M import X`: M (X may be a module or a symbol of M)


def import_bindings(stmt: ast.stmt, rel: str) -> list[Binding]:
    """The names an import statement in file `rel` binds."""
    return bindings_of_import(stmt, file_package(rel))


def bindings_of_import(stmt: ast.stmt, package: str | None) -> list[Binding]:
    """The names an import statement binds, relative imports resolved against `package`; a name
    whose module cannot be resolved (relative, without a package) has no `from_module`."""
    out = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.append(Binding(alias.asname, alias.name))
            else:
                root = alias.name.split(".")[0]
                out.append(Binding(root, root))
    elif isinstance(stmt, ast.ImportFrom):
        module = absolute_module(stmt, package)
        for alias in stmt.names:
            if alias.name != "*":
                name = alias.asname or alias.name
                out.append(Binding(name, f"{module}.{alias.name}", module) if module is not None
                           else Binding(name, alias.name))
    return out


def module_level_statements(body: list[ast.stmt]):
    """Statements run at import time: the module body, and the blocks of `if` / `try` / `with`
    at module level (not function or class bodies)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.TryStar)):
            for block in (getattr(stmt, f, []) for f in ("body", "orelse", "finalbody")):
                yield from module_level_statements(block)
            for handler in getattr(stmt, "handlers", []):
                yield from module_level_statements(handler.body)


def imports_in(statements, rel: str) -> dict[str, Binding]:
    """name -> binding for every import among `statements` (a later import of a name wins)."""
    out: dict[str, Binding] = {}
    for stmt in statements:
        for binding in import_bindings(stmt, rel):
            out[binding.name] = binding
    return out
