"""Run the kv-dtype statement(s) of one version on one configuration and record what happens.

The runner instance is built without `__init__`: `object.__new__` of a subclass of the real
`ModelRunner` that traces attribute writes and, when the real class has
`_record_kv_cache_dtype`, observes that call instead of running it.  Inputs are probes that
record any attribute the code asks for that the configuration does not model.
"""

from __future__ import annotations

import logging
import types
from dataclasses import dataclass, field

import torch

from .configs import ABSENT, Config, ModelSpec, json_value
from ...engine.faithful import RANK0
from .loader import Version, module_loggers
from ...engine.stubs import StubTouched

HIDDEN_FLOAT4 = "float4_e2m1fn_x2"


class TorchWithoutFloat4(types.ModuleType):
    """Real torch (same dtype objects) except that `float4_e2m1fn_x2` does not exist."""

    def __init__(self):
        super().__init__("torch")

    def __getattr__(self, name):
        if name == HIDDEN_FLOAT4:
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
        return getattr(torch, name)


TORCH_WITHOUT_FLOAT4 = TorchWithoutFloat4()


@dataclass
class Run:
    """The shared mutable record of one run (events in order, unmodelled reads)."""

    events: list = field(default_factory=list)
    misses: list = field(default_factory=list)


CURRENT = Run()


class Probe:
    """An input object: unknown attribute reads are recorded, then fail as missing attributes."""

    _modelled: frozenset = frozenset()
    _label = "probe"

    def __getattr__(self, name):
        CURRENT.misses.append((self._label, name))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class FakeModel(Probe):
    _label = "model"

    def __repr__(self):  # the same in every run and version (no address)
        return "<model>"


class FakeQuantConfig(Probe):
    _label = "model.quant_config"


class FakeSpecAlgorithm(Probe):
    _label = "spec_algorithm"

    def __init__(self, dflash: bool):
        self._dflash = dflash

    def is_dflash(self):
        return self._dflash


class FakeServerArgs(Probe):
    _label = "server_args"

    def __setattr__(self, name, value):
        if not name.startswith("_"):
            CURRENT.events.append(("server_args", name, value))
        object.__setattr__(self, name, value)


def build_model(spec: ModelSpec):
    if spec.kind == "none":
        return None
    model = FakeModel()
    if spec.kind == "plain":
        return model
    if spec.kind == "quant_config_none":
        model.quant_config = None
        return model
    model.quant_config = FakeQuantConfig()
    if spec.kind == "algo":
        model.quant_config.kv_cache_quant_algo = spec.algo
    return model


class CaptureHandler(logging.Handler):
    def emit(self, record):
        event = ("log", record.levelname, record.getMessage())
        if getattr(record, RANK0, False):
            event += (RANK0,)  # through log_info_on_rank0, not the logger directly
        CURRENT.events.append(event)
        LOGGER_NAMES.add(record.name)


LOGGER_NAMES: set[str] = set()


@dataclass(frozen=True)
class Observation:
    events: tuple  # ("set", attr, value) | ("server_args", attr, value) | ("record", value) |
    # ("log", level, msg) | ("log", level, msg, "rank0") (through log_info_on_rank0)
    kv_cache_dtype: object  # final self.kv_cache_dtype (ABSENT if never set)
    resolved: object  # the --kv-cache-dtype string after the run: last recorded, else server_args'
    # value (which is the input itself when nothing was recorded)
    exception: tuple | None  # (type name, message, attribute name for AttributeError)
    state: tuple  # instance + server_args attributes when the run ended (sorted items)
    not_modelled: tuple  # stub or probe names the code touched

    def recorded(self) -> tuple:
        """The resolved strings the run recorded (record calls or server_args writes), in order."""
        return tuple(e[-1] for e in self.events
                     if e[0] == "record" or (e[0] == "server_args" and e[1] == "kv_cache_dtype"))

    def summary(self) -> dict:
        return {
            "kv_cache_dtype": json_value(self.kv_cache_dtype),
            "recorded": [json_value(r) for r in self.recorded()],
            "exception": None if self.exception is None else f"{self.exception[0]}: {self.exception[1]}",
            "events": [[json_value(x) for x in e] for e in self.events],
            **({"not_modelled": list(self.not_modelled)} if self.not_modelled else {}),
        }


class Session:
    """A loaded version ready to run configurations in a tight loop."""

    MODELLED_MISSES = {("model", "quant_config"), ("model.quant_config", "kv_cache_quant_algo")}

    def __init__(self, version: Version):
        self.version = version
        self.traced = _traced_class(version)
        self.platform = _platform_modules(version)
        self.inputs_absent_ok = {"model", "dtype", "is_draft_worker", "spec_algorithm", "kv_cache_dtype"}

    def run(self, config: Config) -> Observation:
        for module, names in self.platform:
            d = module.__dict__
            if "_is_hip" in names:
                d["_is_hip"] = config.is_hip
            if "fp8_dtype" in names:
                d["fp8_dtype"] = config.fp8_dtype
            if "torch" in names:
                d["torch"] = torch if config.has_float4 else TORCH_WITHOUT_FLOAT4
        runner = object.__new__(self.traced)
        state = runner.__dict__
        server_args = FakeServerArgs()
        object.__setattr__(server_args, "kv_cache_dtype", config.kv_cache_dtype)
        if config.draft_backend is not ABSENT:
            object.__setattr__(server_args, "speculative_draft_attention_backend", config.draft_backend)
        state["server_args"] = server_args
        if config.model.kind != "absent":
            state["model"] = build_model(config.model)
        if config.dtype is not ABSENT:
            state["dtype"] = config.dtype
        if config.is_draft_worker is not ABSENT:
            state["is_draft_worker"] = config.is_draft_worker
        if config.spec_dflash is not ABSENT:
            state["spec_algorithm"] = FakeSpecAlgorithm(config.spec_dflash)
        run = CURRENT
        run.events.clear()
        run.misses.clear()
        stub_scope = self.version.stub_scope
        stub_scope.base_misses.clear()
        exception = None
        try:
            self.version.entry(runner)
        except StubTouched as e:
            run.misses.append(("stub", e.stub_name))
            exception = ("StubTouched", str(e), None)
        except Exception as e:  # the behaviour under test includes its exceptions
            exception = (type(e).__name__, str(e), getattr(e, "name", None) if isinstance(e, AttributeError) else None)
        not_modelled = tuple(
            f"{owner}.{name}" for owner, name in run.misses if (owner, name) not in self.MODELLED_MISSES
        ) + tuple(f"self.{n}" for n in stub_scope.base_misses if n not in self.inputs_absent_ok)
        resolved = server_args.__dict__.get("kv_cache_dtype")
        for event in run.events:
            if event[0] == "record":
                resolved = event[1]
        final_state = tuple(sorted((k, _state_value(v)) for k, v in state.items() if k != "server_args"))
        final_state += tuple(sorted(("server_args." + k, v) for k, v in server_args.__dict__.items()))
        return Observation(
            tuple(run.events),
            state.get("kv_cache_dtype", ABSENT),
            resolved,
            exception,
            final_state,
            not_modelled,
        )


def _state_value(value):
    # input objects are rebuilt for each run: compare them by kind, not identity
    return value if isinstance(value, (torch.dtype, str, bool, int, type(None))) else f"<{type(value).__name__}>"


def _traced_class(version: Version) -> type:
    def __setattr__(self, name, value):
        CURRENT.events.append(("set", name, value))
        object.__setattr__(self, name, value)

    namespace = {"__setattr__": __setattr__, "__module__": version.runner_cls.__module__}
    if hasattr(version.runner_cls, "_record_kv_cache_dtype"):

        def _record_kv_cache_dtype(self, resolved):
            CURRENT.events.append(("record", resolved))

        namespace["_record_kv_cache_dtype"] = _record_kv_cache_dtype
    # Same name as the real class, so that exception messages naming it compare equal.
    return type(version.runner_cls.__name__, (version.runner_cls,), namespace)


def _platform_modules(version: Version) -> list[tuple]:
    """The loaded modules whose code under test reads a platform global, with those names."""
    out = []
    for role, names in version.shape.globals_read.items():
        wanted = names & {"_is_hip", "fp8_dtype", "torch"}
        if wanted:
            out.append((version.modules[role], frozenset(wanted)))
    return out


def install_log_capture(versions: list[Version]):
    """Route the loggers of the loaded modules to the trace (and nowhere else) during runs."""
    handler = CaptureHandler(logging.DEBUG)
    saved = []
    for version in versions:
        for logger in module_loggers(version):
            if any(logger is s[0] for s in saved):
                continue
            saved.append((logger, logger.level, logger.propagate, logger.disabled))
            logger.addHandler(handler)
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.disabled = False

    def restore():
        for logger, level, propagate, disabled in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate
            logger.disabled = disabled

    return restore
