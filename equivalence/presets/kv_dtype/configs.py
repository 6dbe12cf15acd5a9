"""The configurations a pair is run on: every input the code reads, finite part exhaustively,
open-ended text from hypothesis (deterministic unless a seed is given)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields

import torch

ABSENT = "<absent>"  # the runner (or server_args) has no such attribute


@dataclass(frozen=True)
class ModelSpec:
    """What `self.model` is: attribute absent, None, or an object with that quant config."""

    kind: str  # "absent" | "none" | "plain" | "quant_config_none" | "no_algo" | "algo"
    algo: object = None

    def describe(self) -> str:
        if self.kind == "algo":
            return f"quant_config.kv_cache_quant_algo={self.algo!r}"
        return {
            "absent": "no model attribute",
            "none": "None",
            "plain": "model without quant_config",
            "quant_config_none": "quant_config=None",
            "no_algo": "quant_config without kv_cache_quant_algo",
        }[self.kind]


@dataclass(frozen=True)
class Config:
    kv_cache_dtype: object  # server_args.kv_cache_dtype
    model: ModelSpec
    dtype: object  # self.dtype (a torch.dtype or ABSENT)
    is_hip: bool
    fp8_dtype: torch.dtype
    has_float4: bool  # torch has float4_e2m1fn_x2
    is_draft_worker: object = ABSENT
    spec_dflash: object = ABSENT  # self.spec_algorithm: ABSENT, or its is_dflash() answer
    draft_backend: object = ABSENT  # server_args.speculative_draft_attention_backend

    def to_json(self, active: set[str] | None = None) -> dict:
        out = {}
        for f in fields(self):
            if active is not None and f.name in DFLASH_FIELDS and f.name not in active:
                continue
            value = getattr(self, f.name)
            out[JSON_NAMES[f.name]] = json_value(value)
        return out


JSON_NAMES = {
    "kv_cache_dtype": "server_args.kv_cache_dtype",
    "model": "model",
    "dtype": "model_dtype",
    "is_hip": "_is_hip",
    "fp8_dtype": "fp8_dtype",
    "has_float4": "torch_has_float4_e2m1fn_x2",
    "is_draft_worker": "is_draft_worker",
    "spec_dflash": "spec_algorithm.is_dflash()",
    "draft_backend": "server_args.speculative_draft_attention_backend",
}
DFLASH_FIELDS = ("is_draft_worker", "spec_dflash", "draft_backend")
# self./server_args. inputs the harness models, by the field that varies them
INSTANCE_INPUTS = {
    "server_args": None,
    "server_args.kv_cache_dtype": "kv_cache_dtype",
    "model": "model",
    "dtype": "dtype",
    "is_draft_worker": "is_draft_worker",
    "spec_algorithm": "spec_dflash",
    "server_args.speculative_draft_attention_backend": "draft_backend",
}
# written or called by the code, not inputs
INSTANCE_OUTPUTS = {"kv_cache_dtype", "_record_kv_cache_dtype", "configure_kv_cache_dtype"}
GLOBAL_INPUTS = {"_is_hip", "fp8_dtype", "torch"}
GLOBAL_CODE = {"TORCH_DTYPE_TO_KV_CACHE_STR", "logger", "log_info_on_rank0", "kv_cache_dtype", "nn", "Optional"}


def json_value(value):
    """A value as the reports show it: dtypes and model specs by name, plain values as they are."""
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, ModelSpec):
        return value.describe()
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    return repr(value)


MODEL_DTYPES = [torch.bfloat16, torch.float16, torch.float32, torch.float8_e4m3fn, torch.float8_e5m2, ABSENT]
FP8_DTYPES = [torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]  # the last is not in the map
QUANT_ALGOS = [None, "FP8", "fp8", "Fp8", "int8", "", 8]
MODELS = [ModelSpec(k) for k in ("plain", "absent", "none", "quant_config_none", "no_algo")] + [
    ModelSpec("algo", a) for a in QUANT_ALGOS
]
EXTRA_KV = ["", "FP8_E4M3", "Auto"]


def uncovered_inputs(self_reads: set[str], globals_read: dict[str, set[str]]) -> list[str]:
    """Inputs the code reads that no configuration varies: reported, never silently passed."""
    out = []
    for read in sorted(self_reads):
        top = read.split(".")[0]
        if read in INSTANCE_INPUTS or read in INSTANCE_OUTPUTS:
            continue
        if top in ("model", "spec_algorithm") and read != top:
            continue  # model internals and spec_algorithm methods are modelled by the probes
        out.append(f"self.{read}")
    for module, names in sorted(globals_read.items()):
        for name in sorted(names - GLOBAL_INPUTS - GLOBAL_CODE):
            out.append(f"{module}:{name}")
    return out


def active_fields(self_reads: set[str]) -> set[str]:
    return {INSTANCE_INPUTS[r] for r in self_reads if INSTANCE_INPUTS.get(r)}


# With DFLASH inputs, their 27 combinations are crossed with every other input except that
# the model and fp8_dtype take these representatives (the DFLASH block reads neither); all
# values of those two are crossed with the DFLASH combination that fires the override.
DFLASH_MODELS = [ModelSpec("plain"), ModelSpec("absent"), ModelSpec("algo", "FP8")]
DFLASH_FP8 = [torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]


def enumerate_configs(literals: list[str], active: set[str]) -> list[Config]:
    kvs = list(dict.fromkeys([*literals, *EXTRA_KV]))
    drafts = [True, False, ABSENT] if "is_draft_worker" in active else [ABSENT]
    specs = [True, False, ABSENT] if "spec_dflash" in active else [ABSENT]
    backends = ["fa4", "fa3", None] if "draft_backend" in active else [ABSENT]
    base = [
        Config(kv, model, dtype, hip, fp8, f4, drafts[0], specs[0], backends[0])
        for kv, model, dtype, hip, fp8, f4 in itertools.product(
            kvs, MODELS, MODEL_DTYPES, (False, True), FP8_DTYPES, (True, False)
        )
    ]
    if len(drafts) * len(specs) * len(backends) == 1:
        return base
    dflash = [
        Config(kv, model, dtype, hip, fp8, f4, draft, spec, backend)
        for kv, model, dtype, hip, fp8, f4, draft, spec, backend in itertools.product(
            kvs, DFLASH_MODELS, MODEL_DTYPES, (False, True), DFLASH_FP8, (True, False), drafts, specs, backends
        )
    ]
    return list(dict.fromkeys(base + dflash))


def hypothesis_configs(active: set[str], seed: int | None, examples: int) -> list[Config]:
    """Open-ended inputs: arbitrary text for the dtype string and the quant algo."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    drawn: list[Config] = []
    algo = st.one_of(st.text(max_size=12), st.integers(), st.none(), st.binary(max_size=4))
    strategy = st.builds(
        Config,
        kv_cache_dtype=st.text(max_size=16),
        model=st.one_of(st.sampled_from(MODELS), algo.map(lambda a: ModelSpec("algo", a))),
        dtype=st.sampled_from(MODEL_DTYPES),
        is_hip=st.booleans(),
        fp8_dtype=st.sampled_from(FP8_DTYPES),
        has_float4=st.booleans(),
        is_draft_worker=st.sampled_from([False, True, ABSENT] if "is_draft_worker" in active else [ABSENT]),
        spec_dflash=st.sampled_from([False, True, ABSENT] if "spec_dflash" in active else [ABSENT]),
        draft_backend=st.one_of(st.sampled_from(["fa4", None]), st.text(max_size=6))
        if "draft_backend" in active
        else st.just(ABSENT),
    )

    @settings(
        max_examples=examples,
        derandomize=seed is None,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(config):
        drawn.append(config)

    if seed is not None:
        draw = hseed(seed)(draw)
    draw()
    return list(dict.fromkeys(drawn))


def size_key(config: Config, literals: list[str]) -> tuple:
    """Smaller = simpler: fewer inputs away from their first listed value, shorter text."""
    ranks = [
        literals.index(config.kv_cache_dtype) if config.kv_cache_dtype in literals else len(literals) + len(str(config.kv_cache_dtype)),
        MODELS.index(config.model) if config.model in MODELS else len(MODELS) + len(repr(config.model.algo)),
        MODEL_DTYPES.index(config.dtype),
        int(config.is_hip),
        FP8_DTYPES.index(config.fp8_dtype),
        int(not config.has_float4),
        [ABSENT, False, True].index(config.is_draft_worker),
        [ABSENT, False, True].index(config.spec_dflash),
        ["fa4", ABSENT, "fa3", None].index(config.draft_backend) if config.draft_backend in ("fa4", ABSENT, "fa3", None) else 4 + len(str(config.draft_backend)),
    ]
    absent = sum(1 for v in (config.dtype, config.is_draft_worker, config.spec_dflash) if v is ABSENT)
    absent += config.model.kind == "absent"
    return (absent, sum(1 for r in ranks if r), sum(ranks), ranks)
