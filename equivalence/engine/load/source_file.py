"""Which file of the PATH a user typed defines the class to check (`pysource.classes`' one rule).
Imports nothing heavy (no torch): the command line checks its paths with it before importing torch."""

from __future__ import annotations

from pathlib import Path

from equivalence.engine.load.errors import LoadError
from pysource import layout
from pysource.classes import find_class_file


def find_source(path: Path, class_name: str, module: str | None = None,
                option: tuple[str, str] = ("--method", "METHOD")) -> tuple[Path, str]:
    """(the folder holding the package, the file defining `class_name` relative to it) for the
    PATH a user typed: a folder holding the package, a checkout (PATH/python/...), or the
    package folder itself. The file is `module`'s if given, else the only module of the
    packages there that defines the class at module level. `option`: the option the user named the
    class with, and what follows the class in it, for the message naming one of several modules."""
    path = Path(path)
    wrong = layout.not_a_folder(path)
    if wrong:
        raise LoadError(f"{path}: {wrong}")
    root, found = find_class_file(path, class_name, module)
    if not found:
        what = f"module {module}" if module else f"module defining class {class_name}"
        package_folder = (path / "__init__.py").is_file()
        raise LoadError(f"{path}: no {what} here (looked in the packages of {path}, {path / 'python'}"
                        f"{', and ' + str(path.parent) if package_folder else ''})")
    if len(found) > 1:
        flag, member = option
        raise LoadError(f"{path}: class {class_name} is defined in {len(found)} modules ({', '.join(found)}); "
                        f"name one: {flag} MODULE.{class_name}.{member}")
    return root, found[0]
