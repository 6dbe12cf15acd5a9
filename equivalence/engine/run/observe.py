"""Run one version on one configuration and record what it did (an Observation).

The instance is `object.__new__` of the traced subclass of the real class (standins.py): no
`__init__` runs. Per run, every input global of the loaded modules is set to the world's value
for its key, the call site runs with its free locals taken from the world (`local:NAME`), and
the run records, in order: writes to the instance and to stand-ins, calls of stand-ins (the
class's other methods, sglang's functions, ...) with their arguments, log records of every
logger (`log_info_on_rank0` marked as such); then the exception, the value returned and the
instance's attributes at the end. A stub the code reaches without the analysis having seen it
(armed, stubs.py) ends the run as "not modelled", never as a result.
"""

from __future__ import annotations

import builtins
import logging
import re
from dataclasses import dataclass

from equivalence.engine.load.defaults import passed
from equivalence.engine.load.faithful import HELPERS, RANK0
from equivalence.engine.load.inputs import GlobalInput
from equivalence.engine.load.version import Version
from equivalence.engine.load.run_imports import REAL_IMPORT, FunctionImports
from equivalence.engine.world.standins import CURRENT, Environ, OsProxy, PartlyRealModule, traced_class
from equivalence.engine.load.stubs import StubTouched
from equivalence.engine.world.world import OPAQUE, NONE, Absent, Domains, Hints, World, canon

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class Observation:
    events: tuple
    exception: tuple | None  # (type name, message, attribute name of an AttributeError)
    returned: object
    state: tuple  # (attribute, value) of the instance when the run ended, sorted
    not_modelled: tuple = ()

    def summary(self) -> dict:
        from equivalence.engine.world.world import json_value

        return {
            "exception": None if self.exception is None else f"{self.exception[0]}: {self.exception[1]}",
            "returned": json_value(self.returned),
            "events": [[json_value(x) for x in e] for e in self.events],
            **({"not_modelled": list(self.not_modelled)} if self.not_modelled else {}),
        }


class Session:
    """A loaded version ready to run configurations in a loop."""

    def __init__(self, version: Version, domains: Domains, pools: tuple = ((), (), ()), hints: Hints | None = None,
                 shared: list[GlobalInput] = ()):
        """`shared`: globals the pair makes inputs beyond the version's own (inputs.target_defs),
        their real values put back after each run (the version may run in another pair)."""
        self.version = version
        self.domains = domains
        self.pools = pools  # (strings, ints) the code compares with, its tables' keys
        hints = hints or Hints()
        real = {version.ext.method_name}
        self.traced = traced_class(version.cls, real)
        self.globals = []
        for g in version.inputs.globals:
            module = version.modules[g.rel].__dict__
            if g.proxy is None:
                self.globals.append((module, g.name, hints.key(g.key), [OPAQUE] if g.imported else [OPAQUE, NONE]))
            else:
                module[g.name] = _proxy(g.proxy, module[g.name])
        self.real = [(version.modules[g.rel].__dict__, g.name, version.modules[g.rel].__dict__[g.name]) for g in shared]
        self.globals += [(module, name, g.key, [OPAQUE]) for (module, name, _), g in zip(self.real, shared)]
        self.imports = FunctionImports(version.modules.values(), version.ext.source_rel.split("/")[0],
                                       lambda qualname: hints.key(version.ext.tree.canonical(qualname)))

    def run(self, config: dict) -> tuple[Observation, World]:
        world = World(self.domains, config, self.version.inputs.absent_names, self.pools)
        CURRENT.append(world)
        exception = returned = None
        not_modelled = ()
        instance = object.__new__(self.traced)
        builtins.__import__ = self.imports
        try:
            for module, name, key, default in self.globals:
                try:
                    module[name] = world.value(key, default)
                except Absent:
                    module.pop(name, None)
            args = [world.value(f"local:{n}") for n in self.version.entry_args]
            if self.version.entry_defaults:
                args.append(passed(world, self.version.entry_defaults))
            returned = canon(self.version.entry(instance, *args))
        except StubTouched as e:
            not_modelled = (e.stub_name,)
            exception = ("StubTouched", str(e), None)
        except Absent as e:  # a local of the call site the world made absent
            exception = ("NameError", f"name {str(e).removeprefix('local:')!r} is not defined", None)
        except Exception as e:  # the behaviour under test includes its exceptions
            name = getattr(e, "name", None) if isinstance(e, AttributeError) else None
            exception = (type(e).__name__, _ADDRESS.sub(" at 0x…", str(e)), name)
        finally:
            CURRENT.pop()
            builtins.__import__ = REAL_IMPORT
            for module, name, real in self.real:
                module[name] = real
        state = tuple(sorted((k, canon(v)) for k, v in instance.__dict__.items()))
        return Observation(tuple(world.events), exception, returned, state, not_modelled), world

    def observe(self, config: dict) -> Observation:
        return self.run(config)[0]


def _proxy(kind: str, current):
    if kind == "os":
        return OsProxy()
    if kind == "partly real":
        return PartlyRealModule(current)
    environ = Environ()
    if kind == "environ":
        return environ
    if kind == "getenv":
        return lambda name, default=None: environ.get(name, default)
    source, _, name = kind.partition(":")
    return HELPERS[(source, name)]


class CaptureHandler(logging.Handler):
    def emit(self, record):
        if not CURRENT:
            return
        event = ("log", record.levelname, _ADDRESS.sub(" at 0x…", record.getMessage()))
        if getattr(record, RANK0, False):
            event += (RANK0,)  # through log_info_on_rank0, not the logger directly
        CURRENT[-1].events.append(event)


def capture_logs(versions: list[Version]):
    """Route every logger's records into the run's events (and nowhere else) while checking;
    returns the function that restores the loggers."""
    handler = CaptureHandler(logging.DEBUG)
    loggers = [logging.getLogger()]
    for version in versions:
        for module in version.modules.values():
            for value in vars(module).values():
                if isinstance(value, logging.Logger) and value not in loggers:
                    loggers.append(value)
    saved = [(lg, lg.level, lg.propagate, lg.disabled, list(lg.handlers)) for lg in loggers]
    for lg in loggers:
        lg.handlers = [handler]
        lg.setLevel(logging.DEBUG)
        lg.propagate = False
        lg.disabled = False

    def restore():
        for lg, level, propagate, disabled, handlers in saved:
            lg.handlers = handlers
            lg.setLevel(level)
            lg.propagate = propagate
            lg.disabled = disabled

    return restore
