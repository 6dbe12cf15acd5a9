"""Run one version of a component on one configuration: build the owner, then a sequence of calls
of the moved methods through their public path, the owner rebinding between calls what it
rebinds elsewhere; record what it all did.

A configuration is world keys (`engine.world`), shared by both versions of a pair:
- `call[i]`: the method the i-th call calls (`call[0]` the first of them by default, the later
  ones none: the sequence ends), at most MAX_CALLS calls (each shape a seed: `check.shapes`);
- `rebind@i`: whether, before the i-th call, the owner rebinds every attribute chain it rebinds
  elsewhere (`shape.written_chains`, those the moved code reads): `self.model` becomes the world's
  `self.model@i`, `self.model_config.model_path` is set on the stand-in to `...model_path@i`; a
  component holding a value where it needed a getter then shows the old one;
- `arg:NAME` (a parameter without a default, shared by every method that has one of that name,
  so that a send finds the group an init made) and `arg:METHOD.NAME` (one with a default: not
  passed, or its other values, `engine.load.defaults`);
- everything the code reads besides, as for `--method`.
The owner is built as `engine.run` builds an instance (no `__init__`: a traced subclass answering
from the world), then the statements of `__init__` that build the component, or set up the state
it takes over, run (`version.prepare`). A call goes to the owner when it has the method (the
original, or a delegation), else to `owner.ATTR`.

Observed: every event (writes to the owner and to stand-ins, calls of stand-ins with their
arguments, log records), each call's outcome (exception or value returned), and at the end the
owner's attributes but those that moved (the moved state, the component itself), with the moved
state read where the version keeps it (`owner.X` before, `owner.ATTR.X` after).
"""

from __future__ import annotations

import builtins

from equivalence.component.version import Prepared
from equivalence.engine.run.awaited import settled
from equivalence.engine.load.declared import DeclaredKeys
from equivalence.engine.load.devices import component_torch_keys
from equivalence.engine.load.defaults import options as default_options
from equivalence.engine.load.run_imports import REAL_IMPORT, FunctionImports
from equivalence.engine.load.stubs import StubTouched
from equivalence.engine.run import why
from equivalence.engine.run.observe import Observation, _proxy, nested_code, own_classes
from equivalence.engine.world.standins import CURRENT, traced_class
from equivalence.engine.world.world import ABSENT, NONE, OPAQUE, Absent, Domains, World, canon, is_standin, value
from equivalence.engine.run.seeded import memo_clearers, start_afresh
from equivalence.engine.run.time_limit import CUT, RanTooLong, limited

MAX_CALLS = 2  # every method alone, and every ordered pair (check.shapes)
STOP = value(None)


class Signature:
    """How a sequence calls a method: its parameters (from the version that defines it first)."""

    def __init__(self, name: str, fn):
        a = fn.args
        self.name = name
        positional = [p.arg for p in [*a.posonlyargs, *a.args]][1:]
        self.posonly = [p.arg for p in a.posonlyargs][1:]
        defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        defaults.update((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
        self.params = positional + [p.arg for p in a.kwonlyargs]
        self.defaults = {p: default_options(d) for p, d in defaults.items()}

    def arguments(self, world: World) -> tuple[list, dict]:
        args, kwargs = [], {}
        for p in self.params:
            try:
                v = world.value(f"arg:{self.name}.{p}", self.defaults[p]) if p in self.defaults else \
                    world.value(f"arg:{p}")  # its declared type's values, else a stand-in or None
            except Absent:
                continue
            if p in self.posonly:
                args.append(v)
            else:
                kwargs[p] = v
        return args, kwargs


def _declared_keys(shape, signatures: dict[str, Signature], names: dict[str, str]) -> DeclaredKeys:
    """The owner's declarations (`self.X`), and each `arg:NAME` declared by the first moved method,
    as this version defines it (`names`: under its name here), that takes a parameter NAME without a default."""
    parameters = {}
    for name, signature in signatures.items():
        here = names.get(name, name)
        rel, fn = (shape.component_rel, shape.component_methods[name]) if name in shape.component_methods \
            else (shape.rel_of(here), shape.methods.get(here))
        for p in signature.params:
            if fn is not None and p not in signature.defaults:
                parameters.setdefault(f"arg:{p}", (rel, fn))
    out = DeclaredKeys(shape.tree, shape.owner_rel, shape.owner.name, parameters)
    # any of the owner's methods handing torch `self.X` as a device says what X is
    out.torch_keys = component_torch_keys(list(shape.methods.values()), list(shape.component_methods.values()),
                                          shape.passed)
    return out


def seed_domains(domains: Domains, methods: list[str], calls: int = MAX_CALLS) -> None:
    """The sequence's keys: which method each call calls, and whether the owner rebinds before it."""
    names = [value(m) for m in methods]
    for i in range(calls):
        key = f"call[{i}]"
        domains.options[key] = names if i == 0 else [STOP, *names]  # values: never a demand, so never grown
        domains.options[f"rebind@{i}"] = [value(False), value(True)]


NO_COMPONENT = "<the owner holds None for its component>"


class Session:
    def __init__(self, version: Prepared, domains: Domains, pools: tuple, signatures: dict[str, Signature],
                 rebound: list[tuple[str, ...]], moved_state: list[str], calls: int = MAX_CALLS):
        self.version, self.domains, self.pools = version, domains, pools
        self.signatures, self.rebound, self.moved_state, self.calls = signatures, rebound, moved_state, calls
        loaded = version.loaded
        self.attr = loaded.shape.attr
        # the moved state is the owner's own (set by `__init__` or the moved methods, nothing else):
        # one not set yet is missing there too, never an input the world makes up
        self.traced = traced_class(loaded.cls, version.real | set(moved_state))
        if loaded.component is not None:
            _trace_state_writes(loaded.component, set(moved_state))
        self.globals = []
        for g in version.inputs.globals:
            module = loaded.modules[g.rel].__dict__
            if g.proxy is None:
                self.globals.append((module, g.name, g.key, [OPAQUE] if g.imported else [OPAQUE, NONE]))
            else:
                module[g.name] = _proxy(g.proxy, module[g.name], g.platform, g.effects)
        self.files = {loaded.shape.tree.path(rel) for rel in loaded.modules}  # the version's own (where it raised)
        # what the world asks of the code under test, as in a method check (engine.run.observe):
        # its frames (a type it tests, an exception it catches), its text, its functions
        self.namespaces = frozenset(id(m.__dict__) for m in loaded.modules.values())
        self.classes = own_classes(loaded.modules.values())
        self.trees = {loaded.shape.tree.path(rel): loaded.shape.tree.parse(rel) for rel in loaded.modules}
        self.own_code = frozenset(nested_code(u.code for u in version.units))
        self.raised_at: str | None = None  # where the last run's first exception was raised (why_not_run)
        self.want_where = False
        self.declared = _declared_keys(loaded.shape, signatures, version.names)  # what the code declares its inputs to be
        self.caches = memo_clearers(loaded.modules.values())
        package = loaded.shape.owner_rel.split("/")[0]
        self.imports = FunctionImports(loaded.modules.values(), package,
                                       lambda qualname: loaded.shape.tree.canonical(qualname))

    def run(self, config: dict) -> tuple[Observation, World]:
        start_afresh(self.caches)
        world = World(self.domains, config, self.version.inputs.absent_names, self.pools)
        world.declared = self.declared.options
        world.namespaces, world.trees, world.own_code = self.namespaces, self.trees, self.own_code
        world.classes = self.classes
        CURRENT.append(world)
        instance = object.__new__(self.traced)
        builtins.__import__ = self.imports
        built = None
        outcomes = []
        not_modelled = ()
        try:
            for module, name, key, default in self.globals:
                try:
                    module[name] = world.value(key, default)
                except Absent:
                    module.pop(name, None)
            with limited():  # a run past the limit is not checked (engine.run.time_limit)
                globals_read = set(world.read)
                try:
                    if self.version.construct is not None:
                        self.version.construct(instance,
                                               *[world.value(f"local:{n}") for n in self.version.construct_args])
                except StubTouched:
                    raise
                except Exception as e:  # noqa: BLE001 - building is part of the behaviour under test
                    built = self._exception(e)
                built_from = [k for k in world.read if k not in globals_read]  # read to build: taken as read last
                moved = {f"self.{n}" for n in [*self.moved_state, self.attr]}
                world.events[:] = [e for e in world.events if not (e[0] == "set" and e[1] in moved)]  # what moved
                world.events.append(("built",))
                for i in range(self.calls if built is None else 0):  # an `__init__` that raised leaves no owner
                    method = world.value(f"call[{i}]")
                    if method is None:
                        break
                    method = str.__str__(method)  # a name, never a string the world explores
                    if world.value(f"rebind@{i}"):
                        self._rebind(instance, world, i)
                    world.events.append(("call-begin", i, method))
                    outcomes.append(self._call(instance, world, method))
        except StubTouched as e:
            not_modelled = (e.stub_name,)
        except RanTooLong:
            not_modelled = (CUT,)
        finally:
            CURRENT.pop()
            builtins.__import__ = REAL_IMPORT
        own = f"self.{self.attr}"  # the component itself is what moved, also where a call builds it
        world.events[:] = [e for e in world.events if not (e[0] == "set" and e[1] == own)]
        state = self._state(instance)
        if self.version.construct is not None and "built_from" in locals():
            # what building read, a lazy version reads in its calls: put last, the order the exploration
            # goes by (explore.py: the keys read last are varied first) is then alike in both kinds of version
            early = [k for k in built_from if not k.startswith(("call[", "rebind@"))]
            world.read = {**{k: v for k, v in world.read.items() if k not in early},
                          **{k: world.read[k] for k in early if k in world.read}}
        return Observation(tuple(world.events), built, tuple(outcomes), state, not_modelled), world

    def _call(self, instance, world: World, method: str) -> tuple:
        state = object.__getattribute__(instance, "__dict__")
        if method in self.version.on_owner:
            target = getattr(instance, self.version.names.get(method, method))
        elif self.attr in state and state[self.attr] is None:
            # the owner built no component in this configuration (its builder returned None): callers
            # that guard against it are not what the check runs, so the configuration is not modelled
            raise StubTouched(NO_COMPONENT, f"a call of {method}")
        elif self.attr in state:
            target = getattr(state[self.attr], method)
        else:  # as Python says it (a method moved into the component's builder not called yet: moved state unset)
            return ("AttributeError", f"{self.version.loaded.cls.__name__!r} object has no attribute {self.attr!r}"), \
                None
        args, kwargs = self.signatures[method].arguments(world)
        try:
            return None, canon(settled(target(*args, **kwargs)))
        except StubTouched:
            raise
        except Exception as e:  # noqa: BLE001
            return self._exception(e), None

    def _exception(self, e: BaseException) -> tuple:
        if self.want_where and self.raised_at is None:
            self.raised_at = why.raised_at(e, self.files)
        return why.exception_text(e)

    def why_not_run(self, config: dict, never: list[str], example: str) -> str:
        """Why `config`'s run (`example` says which it is) never called the functions `never` (a
        moved method, a delegation, ...): the exception building the owner raised, else the first
        call's (`why.never_called`)."""
        self.raised_at, self.want_where = None, True
        try:
            observation = self.run(config)[0]
        finally:
            self.want_where = False
        exception = observation.exception or next((e for e, _ in observation.returned if e is not None), None)
        if observation.not_modelled:
            exception = ("StubTouched", f"reached {observation.not_modelled[0]}, which no input stands for")
        return why.never_called(" and ".join(never), exception, self.raised_at, "the sequences' calls", example)

    def _rebind(self, instance, world: World, i: int) -> None:
        world.events.append(("rebind", i))
        for chain in self.rebound:
            new = world.value(f"self.{'.'.join(chain)}@{i}")
            if len(chain) == 1:
                object.__setattr__(instance, chain[0], new)
                continue
            try:
                holder = getattr(instance, chain[0])
                for name in chain[1:-1]:
                    holder = getattr(holder, name)
            except (AttributeError, Absent):
                continue
            if is_standin(holder):
                setattr(holder, chain[-1], new)

    def _state(self, instance) -> tuple:
        """The owner's attributes but what moved, then the moved state where this version keeps it."""
        state = object.__getattribute__(instance, "__dict__")
        moved = set(self.moved_state) | {self.attr}
        own = tuple(sorted((k, canon(v)) for k, v in state.items() if k not in moved))
        component = state.get(self.attr)
        kept = []
        for name in self.moved_state:
            if component is not None and self.attr in state:
                holder, has = component, hasattr(component, name)
            else:
                holder, has = None, name in state
            got = (getattr(holder, name) if holder is not None else state[name]) if has else ABSENT
            kept.append((name, canon(got) if got is not ABSENT else "<unset>"))
        return own + (("moved state", tuple(kept)),)


def _trace_state_writes(component: type, state: set[str]) -> None:
    """The component's writes of the moved state are events, named as the owner's were
    (`self.X`): a moved method assigning it does what it did on the owner. A frozen
    component (its `__setattr__` raising) assigns none; its `__init__` writes past it."""
    own = component.__dict__.get("__setattr__")
    if getattr(own, "_traced_state", None) == state or component.__dict__.get("__dataclass_params__") is not None \
            and component.__dataclass_params__.frozen:
        return
    original = getattr(own, "_original", None) or component.__setattr__

    def __setattr__(self, name, v):
        if name in state and CURRENT:
            CURRENT[-1].events.append(("set", f"self.{name}", canon(v)))
        original(self, name, v)

    __setattr__._traced_state, __setattr__._original = state, original
    component.__setattr__ = __setattr__
