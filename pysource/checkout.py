"""A source tree and its Python files, read lazily: the one view of a tree both packages use.

For a refactoring it is the checkout: the git work tree holding the package (a sglang checkout:
`python/sglang`, `test/`, `benchmark/`, `scripts/`, ...) or, outside git, the folder the user
typed (an unpacked wheel) (`Checkout.find`). For the harness it is one version: the folder holding
the package, some of its files possibly replaced by other texts (`Checkout.at`, a mutant's).
Files are listed once; their bytes are read on first use and kept, so that several analyses
share one read, and parsed once per run (`pysource.parsing`). `select` tests bytes before anything
is parsed: a file is parsed only when it mentions what is looked for.

A file is named by its absolute path, or by its path relative to the folder holding the package
(`sglang/srt/x.py`, as the harness names them); `module_file`, `bound_names` and `canonical` answer
for the modules of the package.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional

from pysource import parsing
from pysource.bindings import binding_index
from pysource.modules import file_absolute_module, imports_in, module_files, module_level_statements


SKIPPED_FOLDERS = {"__pycache__", "site-packages", "node_modules"}
CLASS_WITH_BASES = re.compile(rb"class\s+\w+\s*\(([^)]*)")  # a statement when it starts a line
WORD = re.compile(rb"\w+")
BUILD_FOLDERS = {"build", "dist"}  # skipped unless they are packages (hold __init__.py)


@dataclass
class Checkout:
    root: Path  # the checkout: the git work tree, or the folder the user typed
    package_root: Path  # the folder holding the package (ROOT/python in a sglang checkout)
    package: str = "sglang"
    _paths: Optional[list[str]] = field(default=None, repr=False)
    _data: dict[str, bytes] = field(default_factory=dict, repr=False)
    _modules: Optional[dict[str, str]] = field(default=None, repr=False)
    _found: dict[bytes, list[str]] = field(default_factory=dict, repr=False)  # needle -> files holding it
    _bases: Optional[dict[bytes, list[str]]] = field(default=None, repr=False)  # word -> files whose bases spell it
    _tops: Optional[set[str]] = field(default=None, repr=False)  # see `from_outside`
    overrides: dict[str, str] = field(default_factory=dict)  # file (relative) -> the text to use instead
    strict: bool = False  # a file that cannot be read raises (a version's), else reads as empty (a scan's)

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

    @classmethod
    def at(cls, package_root: Path, overrides: Optional[dict[str, str]] = None) -> Checkout:
        """The tree of the folder holding a package (a version the harness loads); `overrides` maps
        a file, relative to the folder, to the text to use instead of the file's."""
        package_root = Path(package_root)
        return cls(package_root, package_root, None, overrides=dict(overrides or {}), strict=True)

    def with_texts(self, overrides: dict[str, str]) -> Checkout:
        """This checkout with some files' texts replaced (relative path -> text): the files, the
        bytes read, the searches done and the class-statement index are shared (they are read off
        the files on disk, which `overrides` does not change)."""
        other = Checkout(self.root, self.package_root, self.package, overrides=dict(overrides), strict=self.strict)
        other._paths, other._data, other._found = self._paths, self._data, self._found
        other._modules, other._bases, other._tops = self._modules, self._bases, self._tops
        return other

    def from_outside(self, dotted: str) -> bool:
        """Whether a dotted name comes from outside the checkout (`torch.nn.Module`): its first part
        is no name an absolute import reaches a file of the checkout by. Those are the package (or,
        without one, each module and package the folder holds) and each module and package beside
        a file outside it, which a script may import; a module inside the package is none
        (`sglang/srt/models/transformers.py` does not make `transformers` the checkout's)."""
        if self._tops is None:
            self._tops = tops = set()
            under = str(self.package_root) + os.sep
            for p in self._walked():
                rel = p[len(under):] if p.startswith(under) else None
                first = rel.split(os.sep, 1)[0] if rel is not None else None
                if first is not None and (self.package is None or first == self.package):
                    tops.add(first[:-3] if first.endswith(".py") else first)
                    continue
                folder, name = os.path.split(p)
                tops.add(name[:-3])
                if name == "__init__.py":
                    tops.add(os.path.basename(folder))
        return not dotted.startswith("<") and dotted.split(".")[0] not in self._tops

    def files(self) -> list[Path]:
        """Every Python file of the checkout (not in hidden folders, caches, virtualenvs, builds)."""
        return [Path(p) for p in self._walked()]

    def path(self, file) -> str:
        """A file's absolute path, given it or its path relative to the folder holding the package."""
        return str(file) if os.path.isabs(file) else str(self.package_root / file)

    def data(self, file) -> bytes:
        return self._read(self.path(file))

    def text(self, file) -> str:
        rel = self._relative(file)
        if rel in self.overrides:
            return self.overrides[rel]
        return self.data(file).decode("utf-8", errors="replace")

    def parse(self, file) -> ast.Module:
        """The file's `ast`, parsed once per run (`SyntaxError`, `ValueError` as `ast.parse` raises them)."""
        return parsing.parse(self.text(file), self.path(file))

    def parse_or_raise(self, file, error: type[Exception]) -> ast.Module:
        """`parse`, a syntax error or an unreadable file raised as `error` naming the file (and line)."""
        try:
            return self.parse(file)
        except SyntaxError as e:
            raise error(f"{self.path(file)}:{e.lineno}: syntax error: {e.msg}") from None
        except OSError as e:
            raise error(f"{self.path(file)}: cannot read the file ({e.strerror})") from None

    def exists(self, file) -> bool:
        return self._relative(file) in self.overrides or Path(self.path(file)).is_file()

    def _relative(self, file) -> str:
        if not Path(file).is_absolute():
            return Path(file).as_posix()
        try:
            return Path(file).relative_to(self.package_root).as_posix()
        except ValueError:
            return str(file)

    def select(self, test: Callable[[bytes], bool], mentioning: Optional[bytes] = None) -> Iterator[Path]:
        """The files whose bytes pass `test` (each file is read once per checkout); `mentioning`:
        only among those holding these bytes, which `test` requires (one search per run)."""
        for p in self._walked() if mentioning is None else self._mentioning(mentioning):
            if test(self._read(p)):
                yield Path(p)

    def _mentioning(self, needle: bytes) -> list[str]:
        if needle not in self._found:
            self.prefetch(needle)
        return self._found[needle]

    def prefetch(self, *needles: bytes) -> None:
        """Search the files for several needles at once (cheaper than one pass each: a file is
        searched while its bytes are at hand); `select(mentioning=...)` then answers from it."""
        wanted = [n for n in dict.fromkeys(needles) if n not in self._found]
        found: dict[bytes, list[str]] = {n: [] for n in wanted}
        for p in self._walked() if wanted else ():
            data = self._read(p)
            for n in wanted:
                if n in data:
                    found[n].append(p)
        self._found.update(found)

    def naming_a_base(self, name: bytes) -> list[str]:
        """The files with a class statement whose bases (its text up to the first `)`) spell
        `name` as a word. Every file is searched once, at the first question, for every class
        statement: a subclass search then costs no pass over the files per class it finds."""
        if self._bases is None:
            self._bases = {}
            for p in self._walked():
                data, words, at = self._read(p), set(), 0
                while (m := CLASS_WITH_BASES.search(data, at)) is not None:
                    start = m.start()
                    if data[data.rfind(b"\n", 0, start) + 1:start].strip(b" \t"):
                        at = start + 1  # `subclass of (`, `myclass X(` in a line: not a statement
                        continue
                    words.update(WORD.findall(m.group(1)))
                    at = m.end()
                for w in words:
                    self._bases.setdefault(w, []).append(p)
        return self._bases.get(name, [])

    def module_of(self, path: Path) -> Optional[str]:
        """`sglang.srt.x` for ROOT/python/sglang/srt/x.py (`sglang.srt` for its `__init__.py`);
        None for a file outside the package (a test, a script)."""
        try:
            rel = Path(path).relative_to(self.package_root).with_suffix("")
        except ValueError:
            return None
        if self.package is not None and rel.parts[0] != self.package:
            return None
        return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)

    def package_of(self, path: Path) -> Optional[str]:
        """The package relative imports in `path` are resolved against (None outside the package)."""
        module = self.module_of(path)
        if module is None or Path(path).name == "__init__.py":
            return module
        return module.rpartition(".")[0]

    def modules(self) -> dict[str, str]:
        """{module name: its file's absolute path} for every module of the package."""
        if self._modules is None:
            start = len(str(self.package_root)) + 1
            inside = str(self.package_root / self.package) + os.sep
            self._modules = {}
            for p in self._walked():
                if p.startswith(inside):
                    name = p[start:-3].replace(os.sep, ".")
                    self._modules[name[:-9] if name.endswith(".__init__") else name] = p
        return self._modules

    def relative(self, path: Path, to: Optional[Path] = None) -> str:
        """`path` as the user reads it: relative to the checkout (or to `to`) when inside it."""
        try:
            return Path(path).relative_to(to or self.root).as_posix()
        except ValueError:
            return str(path)

    def module_file(self, dotted: str) -> str | None:
        """The file holding module `dotted` in this tree, or None."""
        return next((rel for rel in module_files(dotted) if self.exists(rel)), None)

    def bound_names(self, rel: str) -> set[str]:
        """The names file `rel` binds at module level (`pysource.bindings.binding_index`)."""
        return set(binding_index(self.parse(rel)))

    def canonical(self, qualname: str, depth: int = 4) -> str:
        """The dotted name of the object `qualname` names, following imports (star imports too)
        through the modules of this tree: `sglang.srt.utils.is_hip` ->
        `sglang.srt.utils.common.is_hip` when `sglang.srt.utils` does `from .common import *`."""
        dotted, _, name = qualname.rpartition(".")
        rel = self.module_file(dotted) if dotted else None
        if rel is None or depth == 0 or self.module_file(qualname):
            return qualname
        statements = list(module_level_statements(self.parse(rel).body))
        binding = imports_in(statements, rel).get(name)
        if binding is not None:
            return self.canonical(binding.qualname, depth - 1) if binding.from_module else binding.qualname
        if name in self.bound_names(rel):
            return qualname
        for stmt in statements:
            if isinstance(stmt, ast.ImportFrom) and [a.name for a in stmt.names] == ["*"]:
                star = file_absolute_module(stmt, rel)
                star_rel = self.module_file(star)
                if star_rel is not None and name in self.bound_names(star_rel):
                    return self.canonical(f"{star}.{name}", depth - 1)
        return qualname

    def _walked(self) -> list[str]:
        if self._paths is None:
            self._paths = sorted(_walk(str(self.root), top=True))
        return self._paths

    def _read(self, p: str) -> bytes:
        data = self._data.get(p)
        if data is None:
            try:
                fd = os.open(p, os.O_RDONLY)
                try:
                    data = _read_all(fd)
                finally:
                    os.close(fd)
            except OSError:
                if self.strict:
                    raise
                data = b""
            self._data[p] = data
        return data


_FIRST_READ = 1 << 18  # bytes: all of nearly every source file, in one system call and no `fstat`


def _read_all(fd: int) -> bytes:
    """A file's bytes (without the buffered file object `open` makes: thousands of files are read)."""
    data = os.read(fd, _FIRST_READ)
    if len(data) < _FIRST_READ:
        return data
    chunks = [data]
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


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
