"""What PR #31147's preset tells the generic world (engine/world.py): the values its inputs take.

Everything the kv-dtype decision reads is a key of the world, as for any method; these hints
give the inputs the preset knows by name the values that matter for the review's findings,
and make the configurations their full product (finite part exhaustively, open-ended text from
hypothesis, deterministic unless a seed is given), so that a finding's configurations are an
exact set a fix's delta can be compared with. Keys they do not name (a renamed attribute, a
new global) are varied by the world like any method's.

| key | options |
|---|---|
| `self.server_args.kv_cache_dtype` | every string the decision tests (literals.py), `""`, `FP8_E4M3`, `Auto`, text |
| `self.model` / `.quant_config` / `.kv_cache_quant_algo` | absent, None, a model; its quant config absent, None, present; the algo absent, None, FP8, fp8, Fp8, int8, "", 8, text |
| `self.dtype` | bf16, fp16, fp32, fp8 e4m3fn, fp8 e5m2, absent |
| `_is_hip` (`is_hip()` of sglang.srt.utils) | False, True |
| `fp8_dtype` (sglang's fp8_kernel) | float8_e4m3fn, float8_e4m3fnuz, float8_e5m2fnuz (the last not in the table) |
| `torch` | real torch, torch without `float4_e2m1fn_x2` |
| DFLASH: `self.is_draft_worker`, `self.spec_algorithm(.is_dflash())`, `...speculative_draft_attention_backend` | True / False / absent; fa4, fa3, None, text |
"""

from __future__ import annotations

from contextlib import contextmanager

import functools
import itertools
import re
import types

import torch

from equivalence.engine.world.world import ABSENT, NONE, OPAQUE, Hints, describe, value

KV = "self.server_args.kv_cache_dtype"
MODEL = "self.model"
QUANT = "self.model.quant_config"
ALGO = "self.model.quant_config.kv_cache_quant_algo"
DTYPE = "self.dtype"
HIP = "sglang.srt.utils.is_hip()"
FP8 = "sglang.srt.layers.quantization.fp8_kernel.fp8_dtype"
TORCH = "torch"
DRAFT = "self.is_draft_worker"
SPEC = "self.spec_algorithm"
DFLASH = "self.spec_algorithm.is_dflash()"
BACKEND = "self.server_args.speculative_draft_attention_backend"
DFLASH_KEYS = (DRAFT, SPEC, BACKEND)

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

MODEL_DTYPES = [torch.bfloat16, torch.float16, torch.float32, torch.float8_e4m3fn, torch.float8_e5m2]
FP8_DTYPES = [torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]  # the last is not in the map
QUANT_ALGOS = [None, "FP8", "fp8", "Fp8", "int8", "", 8]
EXTRA_KV = ["", "FP8_E4M3", "Auto"]
BACKENDS = ["fa4", "fa3", None]

# (model, quant_config, algo): the model's shapes, in the order reports rank them
MODELS = [(OPAQUE, ABSENT, None), (ABSENT, None, None), (NONE, None, None), (OPAQUE, NONE, None),
          (OPAQUE, OPAQUE, ABSENT)] + [(OPAQUE, OPAQUE, value(a)) for a in QUANT_ALGOS]
# With DFLASH inputs, their 27 combinations are crossed with every other input except that the
# model and fp8_dtype take these representatives (the DFLASH block reads neither); all values
# of those two are crossed with the DFLASH combination that fires the override.
DFLASH_MODELS = [MODELS[0], MODELS[1], (OPAQUE, OPAQUE, value("FP8"))]
DFLASH_FP8 = [torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]

ALIASES = [
    # `_is_hip = is_hip()` and `fp8_dtype` however imported (utils or utils.common, a re-export)
    (re.compile(r"^sglang\.srt\.utils(\.\w+)*\.is_hip\(\)$"), HIP),
    (re.compile(r"^sglang(\.\w+)*\.fp8_kernel\.fp8_dtype$"), FP8),
]
FIXED = {
    "self.server_args": [OPAQUE],
    "self.spec_algorithm.is_dflash": [OPAQUE],
    MODEL: [OPAQUE, ABSENT, NONE],
    QUANT: [ABSENT, NONE, OPAQUE],
    ALGO: [ABSENT, *map(value, QUANT_ALGOS)],
    DTYPE: [*map(value, MODEL_DTYPES), ABSENT],
    HIP: [value(False), value(True)],
    FP8: list(map(value, FP8_DTYPES)),
    TORCH: [value(torch), value(TORCH_WITHOUT_FLOAT4)],
    DRAFT: [value(True), value(False), ABSENT],
    SPEC: [OPAQUE, ABSENT],
    DFLASH: [value(True), value(False)],
    BACKEND: list(map(value, BACKENDS)),
}


def _model(model) -> dict:
    m, q, a = model
    out = {MODEL: m}
    if m == OPAQUE:
        out[QUANT] = q
        if q == OPAQUE:
            out[ALGO] = a
    return out


def _dflash(draft, spec, backend) -> dict:
    out = {}
    if draft is not None:
        out[DRAFT] = draft
    if spec is not None:
        out[SPEC] = OPAQUE if spec != ABSENT else ABSENT
        if spec != ABSENT:
            out[DFLASH] = spec
    if backend is not None:
        out[BACKEND] = backend
    return out


def _config(kv, model, dtype, hip, fp8, has_float4, draft=None, spec=None, backend=None) -> dict:
    return {KV: value(kv), **_model(model), DTYPE: dtype, HIP: value(hip), FP8: value(fp8),
            TORCH: FIXED[TORCH][0 if has_float4 else 1], **_dflash(draft, spec, backend)}


DTYPES = FIXED[DTYPE]


def enumerate_configs(literals: list[str], active: set[str], algos: tuple = ()) -> list[dict]:
    """The finite part: every combination (DFLASH crossed as the comment above says); `algos`:
    quant algos the versions' code needs beyond QUANT_ALGOS (check.algo_values)."""
    models = MODELS + [(OPAQUE, OPAQUE, value(a)) for a in algos]
    kvs = list(dict.fromkeys([*literals, *EXTRA_KV]))
    flags = [value(True), value(False), ABSENT]
    drafts = flags if DRAFT in active else [None]
    specs = flags if SPEC in active else [None]
    backends = FIXED[BACKEND] if BACKEND in active else [None]
    base = [_config(kv, model, dtype, hip, fp8, f4, drafts[0], specs[0], backends[0])
            for kv, model, dtype, hip, fp8, f4 in itertools.product(
                kvs, models, DTYPES, (False, True), FP8_DTYPES, (True, False))]
    if len(drafts) * len(specs) * len(backends) == 1:
        return base
    dflash = [_config(kv, model, dtype, hip, fp8, f4, draft, spec, backend)
              for kv, model, dtype, hip, fp8, f4, draft, spec, backend in itertools.product(
                  kvs, DFLASH_MODELS, DTYPES, (False, True), DFLASH_FP8, (True, False), drafts, specs, backends)]
    return _unique(base + dflash)


def hypothesis_configs(active: set[str], seed: int | None, examples: int) -> list[dict]:
    """Open-ended inputs: arbitrary text for the dtype string and the quant algo."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    drawn: list[dict] = []
    algo = st.one_of(st.text(max_size=12), st.integers(), st.none(), st.binary(max_size=4))
    flags = st.sampled_from([value(False), value(True), ABSENT])
    strategy = st.builds(
        _config,
        kv=st.text(max_size=16),
        model=st.one_of(st.sampled_from(MODELS), algo.map(lambda a: (OPAQUE, OPAQUE, value(a)))),
        dtype=st.sampled_from(DTYPES),
        hip=st.booleans(),
        fp8=st.sampled_from(FP8_DTYPES),
        has_float4=st.booleans(),
        draft=flags if DRAFT in active else st.none(),
        spec=flags if SPEC in active else st.none(),
        backend=st.one_of(st.sampled_from(FIXED[BACKEND]), st.text(max_size=6).map(value))
        if BACKEND in active else st.none(),
    )

    @settings(max_examples=examples, derandomize=seed is None, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(config):
        drawn.append(config)

    if seed is not None:
        draw = hseed(seed)(draw)
    with _without_local_constants():
        draw()
    return _unique(drawn)


@contextmanager
def _without_local_constants():
    """Hypothesis (6.131 and newer) also draws the literals of every local module it finds in
    sys.modules, which here are the harness's own: the configurations drawn would change with the
    harness's code, not with the code under review. Those are left out while drawing."""
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):  # an older hypothesis: nothing to leave out
        yield
        return
    real = providers._get_local_constants
    providers._get_local_constants = lambda *args, **kwargs: providers.Constants()
    try:
        yield
    finally:
        providers._get_local_constants = real


def _unique(configs: list[dict]) -> list[dict]:
    return list({frozenset(c.items()): c for c in configs}.values())


@functools.lru_cache(maxsize=8)
def _hints(literals: tuple[str, ...], active: frozenset[str], seed: int | None, examples: int,
           algos: tuple = ()) -> Hints:
    seeds = _unique(enumerate_configs(list(literals), set(active), algos)
                    + hypothesis_configs(set(active), seed, examples))
    kvs = list(dict.fromkeys(s[KV] for s in seeds))
    return Hints(domains={**FIXED, KV: kvs, ALGO: FIXED[ALGO] + [value(a) for a in algos]}, aliases=list(ALIASES),
                 real_inputs={"torch": TORCH}, seeds=seeds)


def hints(literals: list[str], active: set[str], seed: int | None, examples: int, algos: list | None = None) -> Hints:
    """The preset's hints for versions whose decision tests these strings and reads these
    DFLASH inputs (computed once per set: the robustness suite checks hundreds of variants);
    `algos`: the quant algos their code needs beyond QUANT_ALGOS."""
    return _hints(tuple(literals), frozenset(active), seed, examples, tuple(a for a in (algos or ()) if a not in QUANT_ALGOS))


# --- how reports show a configuration --------------------------------------------------------


def model_text(config: dict) -> str:
    m, q, a = config.get(MODEL, OPAQUE), config.get(QUANT, ABSENT), config.get(ALGO, ABSENT)
    if m == ABSENT:
        return "no model attribute"
    if m == NONE:
        return "None"
    if q == ABSENT:
        return "model without quant_config"
    if q == NONE:
        return "quant_config=None"
    if a == ABSENT:
        return "quant_config without kv_cache_quant_algo"
    return f"quant_config.kv_cache_quant_algo={a[1]!r}"


def to_json(config: dict) -> dict:
    """A configuration under the names the review uses (others by their key, when not a stand-in)."""
    out = {"server_args.kv_cache_dtype": describe(config[KV]) if KV in config else None,
           "model": model_text(config),
           "model_dtype": describe(config.get(DTYPE, DTYPES[0])),
           "_is_hip": describe(config.get(HIP, value(False))),
           "fp8_dtype": describe(config.get(FP8, FIXED[FP8][0])),
           "torch_has_float4_e2m1fn_x2": config.get(TORCH, FIXED[TORCH][0]) == FIXED[TORCH][0]}
    for key, name in ((DRAFT, "is_draft_worker"), (SPEC, "spec_algorithm.is_dflash()"), (BACKEND, BACKEND[5:])):
        if key in config:
            out[name] = describe(config.get(DFLASH, config[key])) if key == SPEC else describe(config[key])
    # inputs the preset does not name, where the configuration chose more than a stand-in
    named = {KV, MODEL, QUANT, ALGO, DTYPE, HIP, FP8, TORCH, DRAFT, SPEC, DFLASH, BACKEND}
    out.update({key: describe(option) for key, option in config.items() if key not in named and option != OPAQUE})
    return out


FLAGS = [ABSENT, value(False), value(True)]
BACKEND_RANKS = ["fa4", ABSENT, "fa3", None]


def size_key(config: dict, literals: list[str]) -> tuple:
    """Smaller = simpler: fewer inputs away from their first listed value, shorter text."""
    kv = config.get(KV, value(""))[1]
    spec = config.get(DFLASH, ABSENT) if config.get(SPEC, ABSENT) != ABSENT else ABSENT
    backend = config.get(BACKEND, ABSENT)
    models = [_model(m) for m in MODELS]
    model = {k: config[k] for k in (MODEL, QUANT, ALGO) if k in config}
    ranks = [
        literals.index(kv) if kv in literals else len(literals) + len(str(kv)),
        models.index(model) if model in models else len(models) + len(repr(model.get(ALGO))),
        DTYPES.index(config.get(DTYPE, DTYPES[0])),
        int(config.get(HIP) == value(True)),
        FIXED[FP8].index(config.get(FP8, FIXED[FP8][0])),
        int(config.get(TORCH, FIXED[TORCH][0]) != FIXED[TORCH][0]),
        FLAGS.index(config.get(DRAFT, ABSENT)) if config.get(DRAFT, ABSENT) in FLAGS else 3,
        FLAGS.index(spec) if spec in FLAGS else 3,
        BACKEND_RANKS.index(backend[1] if backend != ABSENT else ABSENT) if backend == ABSENT or
        backend[1] in BACKEND_RANKS else 4 + len(str(backend[1])),
    ]
    absent = sum(1 for k in (DTYPE, DRAFT, SPEC, MODEL) if config.get(k) == ABSENT)
    return (absent, sum(1 for r in ranks if r), sum(ranks), ranks)
