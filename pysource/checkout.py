"""The checkout a refactoring runs on, and its Python files, read lazily.

The checkout is the git work tree holding the package (a sglang checkout: `python/sglang`,
`test/`, `benchmark/`, `scripts/`, ...) or, outside git, the folder the user typed (an unpacked
wheel). Its Python files are listed once; their bytes are read on first use and kept, so that
several analyses share one read. `select` tests bytes before anything is parsed: a file is
parsed only when it mentions what is looked for.
"""

from __future__ import annotations

import ast
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from pysource import parsing


SKIPPED_FOLDERS = {"__pycache__", "site-packages", "node_modules"}
BUILD_FOLDERS = {"build", "dist"}  # skipped unless they are packages (hold __init__.py)


@dataclass
class Checkout:
    root: Path  # the checkout: the git work tree, or the folder the user typed
    package_root: Path  # the folder holding the package (ROOT/python in a sglang checkout)
    package: str = "sglang"
    _paths: Optional[list[str]] = field(default=None, repr=False)
    _data: dict[str, bytes] = field(default_factory=dict, repr=False)
    _modules: Optional[dict[str, Path]] = field(default=None, repr=False)
    _found: dict[bytes, list[str]] = field(default_factory=dict, repr=False)  # needle -> files holding it

    @classmethod
    def find(cls, path: Path, package_root: Path, package: str = "sglang") -> Checkout:
        """The checkout `path` (as typed) belongs to; `package_root` holds `package`.

        The git work tree when it is the package's own (the package at TOP/python/sglang or
        TOP/sglang), whichever of its folders was typed; else `path` itself: an unpacked wheel, or
        a copy of the package inside some other repository (a vendored copy, a test fixture)."""
        path, package_root = Path(path).resolve(), Path(package_root).resolve()
        for top in (package_root, package_root.parent) if package_root.name == "python" else (package_root,):
            if (top / ".git").exists() and git_work_tree(top) == top:
                return cls(top, package_root, package)
        return cls(path, package_root, package)

    def files(self) -> list[Path]:
        """Every Python file of the checkout (not in hidden folders, caches, virtualenvs, builds)."""
        return [Path(p) for p in self._walked()]

    def data(self, path: Path) -> bytes:
        return self._read(str(path))

    def text(self, path: Path) -> str:
        return self.data(path).decode("utf-8", errors="replace")

    def tree(self, path: Path) -> ast.Module:
        """The file's `ast`, parsed once per run (`SyntaxError`, `ValueError` as `ast.parse` raises them)."""
        return parsing.parse(self.text(path), str(path))

    def select(self, test: Callable[[bytes], bool], mentioning: Optional[bytes] = None) -> Iterator[Path]:
        """The files whose bytes pass `test` (each file is read once per checkout); `mentioning`:
        only among those holding these bytes, which `test` requires (one search per run)."""
        for p in self._walked() if mentioning is None else self._mentioning(mentioning):
            if test(self._read(p)):
                yield Path(p)

    def _mentioning(self, needle: bytes) -> list[str]:
        found = self._found.get(needle)
        if found is None:
            found = self._found[needle] = [p for p in self._walked() if needle in self._read(p)]
        return found

    def module_of(self, path: Path) -> Optional[str]:
        """`sglang.srt.x` for ROOT/python/sglang/srt/x.py (`sglang.srt` for its `__init__.py`);
        None for a file outside the package (a test, a script)."""
        try:
            rel = Path(path).relative_to(self.package_root).with_suffix("")
        except ValueError:
            return None
        if rel.parts[0] != self.package:
            return None
        return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)

    def package_of(self, path: Path) -> Optional[str]:
        """The package relative imports in `path` are resolved against (None outside the package)."""
        module = self.module_of(path)
        if module is None or Path(path).name == "__init__.py":
            return module
        return module.rpartition(".")[0]

    def modules(self) -> dict[str, Path]:
        """{module name: file} for every module of the package."""
        if self._modules is None:
            start = len(str(self.package_root)) + 1
            inside = str(self.package_root / self.package) + os.sep
            self._modules = {}
            for p in self._walked():
                if p.startswith(inside):
                    name = p[start:-3].replace(os.sep, ".")
                    self._modules[name[:-9] if name.endswith(".__init__") else name] = Path(p)
        return self._modules

    def relative(self, path: Path) -> str:
        """`path` as the user reads it: relative to the checkout when inside it."""
        try:
            return str(Path(path).relative_to(self.root))
        except ValueError:
            return str(path)

    def _walked(self) -> list[str]:
        if self._paths is None:
            self._paths = sorted(_walk(str(self.root), top=True))
        return self._paths

    def _read(self, p: str) -> bytes:
        data = self._data.get(p)
        if data is None:
            try:
                with open(p, "rb") as f:
                    data = f.read()
            except OSError:
                data = b""
            self._data[p] = data
        return data


def _skipped(folder: Path, names: set[str]) -> bool:
    """Whether the walk leaves out `folder`, which holds `names`."""
    if folder.name.startswith(".") or folder.name in SKIPPED_FOLDERS or "pyvenv.cfg" in names:
        return True
    return folder.name in BUILD_FOLDERS and "__init__.py" not in names


def _walk(folder: str, top: bool = False) -> Iterator[str]:
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    if not top and _skipped(Path(folder), {e.name for e in entries}):
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if not entry.name.startswith(".") and entry.name not in SKIPPED_FOLDERS:
                yield from _walk(entry.path)
        elif entry.name.endswith(".py") and not entry.name.startswith(".") and entry.is_file(follow_symlinks=False):
            yield entry.path


def git_work_tree(path: Path) -> Optional[Path]:
    """The top of the git work tree holding `path` (symlinks resolved), or None outside git."""
    try:
        res = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, text=True)
    except OSError:  # no git on this machine
        return None
    top = res.stdout.strip()
    return Path(top).resolve() if res.returncode == 0 and top else None
