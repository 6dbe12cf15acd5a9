"""Which file of the PATH a user typed defines the class to check. Imports nothing heavy (no
torch): the command line checks its paths with it before importing torch."""

from __future__ import annotations

import re
from pathlib import Path

from equivalence.engine.load.errors import LoadError


def find_source(path: Path, class_name: str, module: str | None = None) -> tuple[Path, str]:
    """(the folder holding the package, the file defining `class_name` relative to it) for the
    PATH a user typed: a folder holding the package, a checkout (PATH/python/...), or the
    package folder itself. The file is `module`'s if given, else the only module of the
    packages there that defines the class at module level."""
    path = Path(path)
    if not path.is_dir():
        raise LoadError(f"{path}: {'not a directory' if path.exists() else 'no such file or directory'}")
    candidates = [path, path / "python"] + ([path.parent] if (path / "__init__.py").is_file() else [])
    found = []
    for root in candidates:
        packages = [p for p in sorted(root.iterdir()) if (p / "__init__.py").is_file()] if root.is_dir() else []
        if root == path.parent:
            packages = [path]
        for rel in _defining(root, packages, class_name, module):
            found.append((root.resolve(), rel))
        if found:
            break
    if not found:
        what = f"module {module}" if module else f"module defining class {class_name}"
        raise LoadError(f"{path}: no {what} here (looked in the packages of {path}, {path / 'python'}"
                        f"{', and ' + str(path.parent) if len(candidates) > 2 else ''})")
    if len(found) > 1:
        listed = ", ".join(rel for _, rel in found)
        raise LoadError(f"{path}: class {class_name} is defined in {len(found)} modules ({listed}); "
                        f"name one: --method MODULE.{class_name}.METHOD")
    return found[0]


def _defining(root: Path, packages: list[Path], class_name: str, module: str | None) -> list[str]:
    if module:
        base = module.replace(".", "/")
        return [rel for rel in (f"{base}.py", f"{base}/__init__.py") if (root / rel).is_file()]
    pattern = re.compile(rf"^class {re.escape(class_name)}\b", re.M)
    out = []
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            try:
                if pattern.search(path.read_text(errors="replace")):
                    out.append(path.relative_to(root).as_posix())
            except OSError:
                continue
    return out
