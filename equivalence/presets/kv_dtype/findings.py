"""Findings: behaviour that holds in every version but contradicts what the code says.

Findings are about runners as sglang builds them: configurations that leave a runner
attribute out (there to exercise eager reads) are not counted.

Each finding carries the exact set of configurations it covers (`configs`), so that a later
pair (a fix of the finding) can be checked to differ on exactly that set and nowhere else.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .compare import absent_attributes
from .configs import Config, size_key
from .observe import Observation, Session

_ACTIVE_ATTRIBUTE = {"is_draft_worker": "is_draft_worker", "spec_dflash": "spec_algorithm"}


def incomplete(config: Config, active: set[str]) -> bool:
    """The configuration leaves out a runner attribute that a real runner has."""
    relevant = {"model", "dtype"} | {attr for field_, attr in _ACTIVE_ATTRIBUTE.items() if field_ in active}
    return bool(absent_attributes(config) & relevant)

FP4 = "fp4-fallback-not-auto"
KEYERROR = "kv-str-keyerror"

# What sglang itself sets fp8_dtype to (sglang.srt.layers.quantization.fp8_kernel):
# float8_e4m3fnuz on HIP devices that need it, float8_e4m3fn elsewhere.
SGLANG_FP8_DTYPES = {"torch.float8_e4m3fn", "torch.float8_e4m3fnuz"}


@dataclass
class Finding:
    id: str
    summary: str
    configs: set = field(default_factory=set)  # the configurations it covers (first version)
    per_version: dict = field(default_factory=dict)  # label -> count
    example: Config | None = None
    observed: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    settings: list = field(default_factory=list)
    fixed_in: str | None = None  # the version from which on it no longer holds (a fix)
    now: dict = field(default_factory=dict)  # the example's effect in the last version, when fixed

    def covers(self, config: Config) -> bool:
        return config in self.configs


def _effect(obs: Observation) -> tuple:
    exc = None if obs.exception is None else obs.exception[0]
    return (obs.kv_cache_dtype, obs.recorded(), exc)


def _effect_json(obs: Observation) -> dict:
    return {
        "kv_cache_dtype": str(obs.kv_cache_dtype),
        "recorded": list(obs.recorded()),
        "exception": None if obs.exception is None else f"{obs.exception[0]}: {obs.exception[1]}",
        "logs": [f"{e[1]}: {e[2]}" for e in obs.events if e[0] == "log"],
    }


def fp4_fallback(session: Session, configs: list[Config], observations: dict, active: set[str]) -> tuple[set, dict]:
    """kv="fp4_e2m1" on a torch without float4 says it falls back to 'auto': does it do what
    'auto' does for the same configuration in the same version?"""
    hits, pairs = set(), {}
    for config in configs:
        if config.kv_cache_dtype != "fp4_e2m1" or config.has_float4 or incomplete(config, active):
            continue
        obs = observations.get(config) or session.run(config)
        if not any(e[0] == "log" and "'auto'" in str(e[2]) for e in obs.events):
            continue  # this version does not announce a fallback to auto here
        auto = dataclasses.replace(config, kv_cache_dtype="auto")
        auto_obs = observations.get(auto) or session.run(auto)
        if _effect(obs) != _effect(auto_obs):
            hits.add(config)
            pairs[config] = (obs, auto_obs)
    return hits, pairs


def kv_str_keyerror(session: Session, configs: list[Config], observations: dict, active: set[str]) -> tuple[set, dict]:
    """The TORCH_DTYPE_TO_KV_CACHE_STR[...] lookup raises KeyError (a configuration not observed
    yet is run, never counted as 'no KeyError')."""
    hits, pairs = set(), {}
    for config in configs:
        if incomplete(config, active):
            continue
        obs = observations.get(config) or session.run(config)
        if obs.exception is not None and obs.exception[0] == "KeyError":
            hits.add(config)
            pairs[config] = (obs, None)
    return hits, pairs


class FindingSets:
    """Each finding's configuration set per (version, configuration list), computed once and
    shared by `collect` and a fix's pair (intended.py)."""

    def __init__(self):
        self._cache: dict = {}

    def get(self, finding: str, session: Session, configs: list[Config], observations: dict,
            active: set[str]) -> tuple[set, dict]:
        key = (finding, id(session), id(configs), frozenset(active))
        if key not in self._cache:
            if finding == FP4:
                self._cache[key] = fp4_fallback(session, configs, observations, active)
            elif finding == KEYERROR:
                self._cache[key] = kv_str_keyerror(session, configs, observations, active)
            else:
                raise ValueError(f"unknown finding {finding!r}; known: {FP4}, {KEYERROR}")
        return self._cache[key]


def collect(versions: list, configs: list[Config], literals: list[str], active: set[str],
            sets: FindingSets | None = None) -> list[Finding]:
    """`versions`: [(label, session, observations)] — the finding holds if it does in every one."""
    sets = sets or FindingSets()
    findings = []
    fp4 = Finding(FP4, "--kv-cache-dtype fp4_e2m1 on a torch without float4_e2m1fn_x2 announces a "
                       "fallback to 'auto' but does not do what 'auto' does")
    key = Finding(KEYERROR, "TORCH_DTYPE_TO_KV_CACHE_STR[...] raises KeyError instead of a clear error")
    for i, (label, session, observations) in enumerate(versions):
        fp4_hits, fp4_pairs = sets.get(FP4, session, configs, observations, active)
        key_hits, key_pairs = sets.get(KEYERROR, session, configs, observations, active)
        fp4.per_version[label] = len(fp4_hits)
        key.per_version[label] = len(key_hits)
        if i == 0:
            fp4.configs, key.configs = fp4_hits, key_hits
            if fp4_hits:
                fp4.example = min(fp4_hits, key=lambda c: size_key(c, literals))
                obs, auto = fp4_pairs[fp4.example]
                fp4.observed, fp4.expected = _effect_json(obs), _effect_json(auto)
            if key_hits:
                key.example = min(key_hits, key=lambda c: size_key(c, literals))
                obs, _ = key_pairs[key.example]
                key.observed = _effect_json(obs)
                key.expected = {"exception": "a clear error naming the dtype and the accepted ones"}
                key.settings = keyerror_settings(key_hits)
    last_label, last_session, last_observations = versions[-1]
    for finding in (fp4, key):
        if finding.configs:
            if len(versions) > 1 and finding.per_version[last_label] == 0:
                labels = [label for label, _, _ in versions]
                still = [label for label in labels if finding.per_version[label]]
                finding.fixed_in = labels[labels.index(still[-1]) + 1]
                example = finding.example
                finding.now = _effect_json(last_observations.get(example) or last_session.run(example))
            findings.append(finding)
    return findings


def keyerror_settings(hits: set[Config]) -> list[dict]:
    seen = {}
    for c in hits:
        setting = {"_is_hip": c.is_hip, "fp8_dtype": str(c.fp8_dtype)}
        setting["set_by_sglang"] = c.is_hip and str(c.fp8_dtype) in SGLANG_FP8_DTYPES
        seen[tuple(setting.items())] = setting
    return [seen[k] for k in sorted(seen)]
