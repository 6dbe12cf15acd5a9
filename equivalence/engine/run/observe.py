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
from dataclasses import dataclass, field

from equivalence.engine.load.declared import DeclaredKeys
from equivalence.engine.load.defaults import passed
from equivalence.engine.load.faithful import HELPERS, RANK0
from equivalence.engine.load.inputs import GlobalInput
from equivalence.engine.load.version import FELL_THROUGH_MARK, Version
from equivalence.engine.load.run_imports import REAL_IMPORT, FunctionImports
from equivalence.engine.world.standins import CURRENT, Environ, OsProxy, PartlyRealModule, recorded, traced_class, world
from equivalence.engine.load.stubs import StubTouched
from equivalence.engine.run import why
from equivalence.engine.world.values import same
from equivalence.engine.world.world import OPAQUE, NONE, Absent, Domains, Hints, World, canon, value
from equivalence.engine.run.seeded import memo_clearers, start_afresh
from equivalence.engine.run.time_limit import CUT, RanTooLong, limited


@dataclass(frozen=True)
class Observation:
    events: tuple
    exception: tuple | None  # (type name, message, attribute name of an AttributeError)
    returned: object
    state: tuple  # (attribute, value) of the instance when the run ended, sorted
    not_modelled: tuple = ()
    handed_on: tuple = ()  # (local, value): what the call site's statements leave for the rest of the method
    # the exception was raised while the caller evaluated the arguments of the extracted call
    # (before the function ran): the line and the argument, for eager-read (not compared)
    in_arguments: str = field(default="", compare=False)

    def __eq__(self, other):
        """Value by value (`values.same`: a tensor by its dtype, device, shape and elements)."""
        if not isinstance(other, Observation):
            return NotImplemented
        return same(self.compared(), other.compared())

    def compared(self) -> tuple:
        return self.events, self.exception, self.returned, self.state, self.not_modelled, self.handed_on

    def __hash__(self):
        return hash((len(self.events), self.exception, len(self.state)))

    def summary(self) -> dict:
        from equivalence.engine.world.world import json_value

        return {
            "exception": None if self.exception is None else f"{self.exception[0]}: {self.exception[1]}",
            "returned": json_value(self.returned),
            "events": [[json_value(x) for x in e] for e in self.events],
            **({"not_modelled": list(self.not_modelled)} if self.not_modelled else {}),
            **({"handed_on": {k: json_value(v) for k, v in self.handed_on}} if self.handed_on else {}),
        }


DIRECT = "called directly, not from its call site"  # the route of a run, when both versions have two
DIRECT_OPTIONS = [value(False), value(True)]


def _renamed(renamed: dict[str, str], key: str) -> str:
    return renamed.get(key, key)


def nested_code(codes) -> set:
    """The code objects defined inside these (lambdas, local defs, to any depth), not they themselves."""
    out, todo = set(), [c for code in codes if code is not None for c in code.co_consts if hasattr(c, "co_code")]
    while todo:
        code = todo.pop()
        if code not in out:
            out.add(code)
            todo += [c for c in code.co_consts if hasattr(c, "co_code")]
    return out


def own_classes(modules) -> dict[str, type]:
    """qualname -> class, for the classes these modules define (a name two of them define left out)."""
    found: dict[str, list[type]] = {}
    for module in modules:
        for v in vars(module).values():
            if isinstance(v, type) and v.__module__ == module.__name__:
                found.setdefault(v.__qualname__, []).append(v)
    return {name: classes[0] for name, classes in found.items() if len(set(classes)) == 1}


def as_self_call(method: str, traced: type):
    """A function that moved out of the class in the same change as the code under test, called
    as the method it was: `config_of(args, x)` is `self.get_config(x)`, the instance left out of
    its arguments, the same world's answer as the before version's call (its own check is its
    move's)."""

    def call(*args, **kwargs):
        method_now = world().value(f"self.{method}", [OPAQUE])
        return method_now(*(a for a in args if not isinstance(a, traced)),
                          **{k: v for k, v in kwargs.items() if not isinstance(v, traced)})

    call.__name__ = call.__qualname__ = method
    return call


class Session:
    """A loaded version ready to run configurations in a loop."""

    def __init__(self, version: Version, domains: Domains, pools: tuple = ((), (), ()), hints: Hints | None = None,
                 shared: list[GlobalInput] = (), direct: bool = False, renamed: dict[str, str] | None = None):
        """`shared`: globals the pair makes inputs beyond the version's own (inputs.target_defs),
        their real values put back after each run (the version may run in another pair).
        `direct`: a run may call the method directly instead of through its call site (the key
        DIRECT; the pair says so when both versions can). `renamed`: input keys read under the
        other version's key (a function moved to another module, load/moved_functions.py)."""
        self.version = version
        self.direct = direct
        self.domains = domains
        self.pools = pools  # (strings, ints) the code compares with, its tables' keys
        hints = hints or Hints()
        renamed = renamed or {}
        real = {version.ext.method_name} | {method for method, _ in version.together}
        moved_along = {function for _, function in version.together}
        self.traced = traced_class(version.cls, real)
        self.globals = []
        co_moved = {version.ext.files.canonical(function): as_self_call(method, self.traced)
                    for method, function in version.co_moved}
        self.aliases = []  # (namespace, name, a function co_moved): bound to the method it was, every run
        for g in version.inputs.globals:
            if g.name in moved_along and g.rel == version.ext.target_rel:
                continue  # moved with the method: runs for real, as its method does before
            module = version.modules[g.rel].__dict__
            if g.proxy is None and g.key in co_moved:
                self.aliases.append((module, g.name, co_moved[g.key]))
            elif g.proxy is None:
                self.globals.append((module, g.name, hints.key(_renamed(renamed, g.key)),
                                     [OPAQUE] if g.imported else [OPAQUE, NONE]))
            else:
                module[g.name] = _proxy(g.proxy, module[g.name], g.platform, g.effects)
        shared = [g for g in shared if not (g.name in moved_along and g.rel == version.ext.target_rel)]
        self.real = [(version.modules[g.rel].__dict__, g.name, version.modules[g.rel].__dict__[g.name]) for g in shared]
        self.globals += [(module, name, g.key, [OPAQUE]) for (module, name, _), g in zip(self.real, shared)]
        self.raised_at: str | None = None  # where the last run's exception was raised (why_not_run)
        self.want_where = False
        self.files = {version.ext.files.path(rel) for rel in version.modules}
        caller = version.caller
        self.caller_positions = list(caller.code.co_positions()) if caller.code is not None else []
        self.namespaces = frozenset(id(m.__dict__) for m in version.modules.values())
        self.classes = own_classes(version.modules.values())
        self.own_code = frozenset(nested_code(u.code for u in version.units))
        self.trees = {version.ext.files.path(rel): version.ext.files.parse(rel) for rel in version.modules}
        self.declared = DeclaredKeys.of_extraction(version.ext)  # what the code declares its inputs to be
        self.caches = memo_clearers(version.modules.values())
        self.imports = FunctionImports(version.modules.values(), version.ext.source_rel.split("/")[0],
                                       lambda qualname: hints.key(_renamed(renamed, version.ext.files.canonical(qualname))),
                                       {hints.key(_renamed(renamed, f)): call for f, call in co_moved.items()})

    def run(self, config: dict) -> tuple[Observation, World]:
        start_afresh(self.caches)
        world = World(self.domains, config, self.version.inputs.absent_names, self.pools)
        world.namespaces, world.trees, world.declared = self.namespaces, self.trees, self.declared.options
        world.own_code, world.classes = self.own_code, self.classes
        CURRENT.append(world)
        exception = returned = None
        not_modelled = handed_on = ()
        in_arguments = ""
        instance = object.__new__(self.traced)
        builtins.__import__ = self.imports
        try:
            for module, name, key, default in self.globals:
                try:
                    module[name] = world.value(key, default)
                except Absent:
                    module.pop(name, None)
            for module, name, call in self.aliases:
                module[name] = call
            with limited():
                if self.direct and world.value(DIRECT, DIRECT_OPTIONS):
                    returned = self.version.direct(instance, passed(world, self.version.direct_params))
                else:
                    args = [world.value(f"local:{n}") for n in self.version.entry_args]
                    if self.version.entry_defaults:
                        args.append(passed(world, self.version.entry_defaults))
                    returned = self.version.entry(instance, *args)
            if type(returned) is tuple and len(returned) == 2 and returned[0] is FELL_THROUGH_MARK:
                live = returned[1]
                returned = None
                handed_on = tuple((name, canon(live[name]) if name in live else "<unbound>")
                                  for name in self.version.entry.live_out)
            returned = canon(returned)
        except StubTouched as e:
            not_modelled = (e.stub_name,)
            exception = ("StubTouched", str(e), None)
        except RanTooLong as e:  # not a behaviour of the code: this run is not checked
            not_modelled = (CUT,)
            exception = ("RanTooLong", str(e), None)
        except Absent as e:  # a local of the call site the world made absent
            exception = ("NameError", f"name {str(e).removeprefix('local:')!r} is not defined", None)
        except Exception as e:  # the behaviour under test includes its exceptions
            name = getattr(e, "name", None) if isinstance(e, AttributeError) else None
            exception = (*why.exception_text(e), name)
            if self.want_where:
                self.raised_at = why.raised_at(e, self.files)
            if self.version.caller.arguments:
                in_arguments = self._in_arguments(e)
        finally:
            CURRENT.pop()
            builtins.__import__ = REAL_IMPORT
            for module, name, real in self.real:
                module[name] = real
        state = tuple(sorted((k, canon(v)) for k, v in instance.__dict__.items()))
        return Observation(tuple(world.events), exception, returned, state, not_modelled, handed_on,
                           in_arguments), world

    def observe(self, config: dict) -> Observation:
        return self.run(config)[0]

    def _in_arguments(self, error: BaseException) -> str:
        """`file:line: argument` when the exception left the caller of the extracted function
        (the wrapper, else the call site) while it evaluated that call's arguments, else "". The
        file as the package names it (the same in every copy of a version: reports compare)."""
        caller = self.version.caller
        if not caller.arguments:
            return ""
        tb = error.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is caller.code:
                line, end_line, col, end_col = self.caller_positions[tb.tb_lasti // 2]
                for name, (l1, c1, l2, c2) in caller.arguments:
                    if line is not None and col is not None and (l1, c1) <= (line, col) and (end_line, end_col) <= (l2, c2):
                        return f"{self.version.ext.source_rel}:{line}: {name}"
                return ""
            tb = tb.tb_next
        return ""

    def why_not_run(self, config: dict, never: list[str]) -> str:
        """Why `config`'s run never called the units `never` (the method, the function, ...)."""
        self.raised_at, self.want_where = None, True
        try:
            observation = self.observe(config)
        finally:
            self.want_where = False
        return why.never_called(" and ".join(never), observation.exception, self.raised_at)


def _proxy(kind: str, current, platform: tuple = (), effects: tuple = ()):
    if kind == "os":
        return OsProxy()
    if kind == "partly real":
        return PartlyRealModule(getattr(current, "_PartlyRealModule__real", current), platform, effects)
    if kind == "effect":  # a torch function called for its effect (inputs._effect_calls)
        return recorded(effects[0], getattr(current, "__wrapped_real__", current))
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
        event = ("log", record.levelname, why.scrub(record.getMessage()))
        if getattr(record, RANK0, False):
            event += (RANK0,)  # through log_info_on_rank0, not the logger directly
        CURRENT[-1].events.append(event)


_RECORD_FIELDS = ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing")


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
    # an event is a record's level and message: the caller's frame, thread and process that
    # every record looks up are not needed (the Logging HOWTO's "Optimization"; a tenth of a
    # kv proof's time went into finding callers)
    record_fields = {name: getattr(logging, name) for name in _RECORD_FIELDS}
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    for lg in loggers:
        lg.handlers = [handler]
        lg.setLevel(logging.DEBUG)
        lg.propagate = False
        lg.disabled = False

    def restore():
        for name, value in record_fields.items():
            setattr(logging, name, value)
        for lg, level, propagate, disabled, handlers in saved:
            lg.handlers = handlers
            lg.setLevel(level)
            lg.propagate = propagate
            lg.disabled = disabled

    return restore
