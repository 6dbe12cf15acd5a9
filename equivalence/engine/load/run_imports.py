"""The imports the code under test runs itself (function-level), answered as module-level ones are.

While a version runs, `import` statements executed by the code of its loaded modules that name
the package get what the same import at module level gives (inputs.py): a loaded module, or its
real attribute (as the run set it); a faithful helper (faithful.py); else the world's value for
the name's origin, re-exports followed (`from TARGET import f` is the key `TARGET.f`, a stand-in
by default). Without this, such an import would fail (the package is not importable once a
version is loaded), ending the run before the code after it. An import of the pure standard
library is real, `torch` and what is imported from `torch.distributed` as at module level
(standins.PartlyRealModule); any other installed module is the world's key of its name, `os` its
proxy, as at module level (`import socket` in a function: `socket.gethostname()` is an input);
a module that is not installed here (an optional dependency, `from msprobe.pytorch import
...` under `try`): the world's key of its name, present or absent, so both ways are run.
"""

from __future__ import annotations

import builtins
import importlib.util
import types
from typing import Callable, Iterable

from equivalence.engine.load.faithful import HELPERS
from equivalence.engine.load.inputs import REAL_MODULES, holds_world_submodule, world_submodule
from equivalence.engine.world.standins import OsProxy, PartlyRealModule, world
from equivalence.engine.world.world import ABSENT, OPAQUE, Absent

REAL_IMPORT = builtins.__import__


class FunctionImports:
    """`__import__` for the code of `modules` (the loaded modules of one version) while it runs."""

    def __init__(self, modules: Iterable[types.ModuleType], package: str, key: Callable[[str], str],
                 aliases: dict[str, Callable] | None = None):
        """`key`: the world key of a qualified name (its origin, re-exports followed, a preset's alias);
        `aliases`: world keys answered by a function of the harness instead (observe.as_self_call)."""
        modules = list(modules)
        self.loaded = {m.__name__: m for m in modules}
        self.namespaces = {id(m.__dict__) for m in modules}
        self.package = package
        self.key = key
        self.keys: dict[str, str] = {}
        self.aliases = aliases or {}

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        if globals is None or id(globals) not in self.namespaces:
            return REAL_IMPORT(name, globals, locals, fromlist, level)
        dotted = importlib.util.resolve_name("." * level + name, globals.get("__package__")) if level else name
        top = dotted.partition(".")[0]
        if top != self.package:
            try:
                real = REAL_IMPORT(name, globals, locals, fromlist, level)
            except ModuleNotFoundError as error:
                if not (error.name and (dotted == error.name or dotted.startswith(error.name + "."))):
                    raise  # an installed module's own import failed: as it would for real
                return not_installed(dotted, fromlist)
            if top not in REAL_MODULES:  # what reads the machine (socket, platform, time, sys, ...)
                return machine_module(dotted, fromlist)
            return partly_real(dotted, real, fromlist)
        return self.module(dotted if fromlist else top)

    def module(self, dotted: str) -> types.ModuleType:
        return self.loaded.get(dotted) or Imported(dotted, self)

    def attribute(self, dotted: str, attr: str):
        """`attr` of the package's module `dotted`, not loaded (raises AttributeError)."""
        qualname = f"{dotted}.{attr}"
        if qualname in self.loaded or any(name.startswith(qualname + ".") for name in self.loaded):
            return self.module(qualname)
        if (dotted, attr) in HELPERS:
            return HELPERS[(dotted, attr)]
        key = self.keys.get(qualname)
        if key is None:
            key = self.keys[qualname] = self.key(qualname)
        if key in self.aliases:
            return self.aliases[key]
        try:
            return world().value(key, [OPAQUE])
        except Absent:
            raise AttributeError(f"module {dotted!r} has no attribute {attr!r}", name=attr) from None


class Imported(types.ModuleType):
    """A module of the package that is not loaded, as a function-level import gets it."""

    def __init__(self, name: str, imports: FunctionImports):
        super().__init__(name)
        self.__imports = imports

    def __getattr__(self, attr: str):
        if attr[:2] == "__" == attr[-2:]:
            raise AttributeError(attr)
        return self.__imports.attribute(self.__name__, attr)


def not_installed(dotted: str, fromlist) -> types.ModuleType:
    """A module that is not installed here, as the package's code imports it in a function: the
    world's key of its name, either there (a stand-in: what is imported from it are its child keys,
    `msprobe.pytorch.seed_all`) or absent (the import raises ModuleNotFoundError, as without it)."""
    try:
        module = world().value(dotted, [OPAQUE, ABSENT])
    except Absent:
        raise ModuleNotFoundError(f"No module named {dotted!r}", name=dotted) from None
    return module if fromlist else world().value(dotted.partition(".")[0], [OPAQUE])


def machine_module(dotted: str, fromlist) -> types.ModuleType:
    """An installed module outside the pure standard library, as a function-level import gets
    it: as at module level (inputs.ModuleGlobals), `os` the proxy whose environment reads are
    `env:NAME`, any other the world's key of its name (`socket.gethostname()` an input)."""
    if dotted == "os" or dotted.startswith("os."):
        return OsProxy()
    return world().value(dotted if fromlist else dotted.partition(".")[0], [OPAQUE])


def partly_real(dotted: str, module: types.ModuleType, fromlist) -> types.ModuleType:
    """What a real import gives the code under test: `torch` as a PartlyRealModule, from
    `torch.distributed` the world's keys of their name (inputs.WORLD_SUBMODULES), as at module level."""
    if fromlist and world_submodule(dotted):
        return world().value(dotted, [OPAQUE])
    if holds_world_submodule(dotted if fromlist else dotted.partition(".")[0]):
        return PartlyRealModule(module)
    return module
