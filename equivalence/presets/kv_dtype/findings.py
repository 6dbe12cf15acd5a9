"""Findings: behaviour that holds in every version but contradicts what the code says.

Findings are about runners as sglang builds them: configurations that leave a runner attribute
out (there to exercise eager reads) are not counted. A configuration is a preset configuration
(hints.py), identified by its choices; each finding carries the exact set it covers, so that a
later pair (a fix of the finding) can be checked to differ on exactly that set and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from equivalence.engine.run.observe import Observation
from equivalence.engine.world.values import same
from equivalence.engine.world.world import ABSENT, describe, value
from equivalence.presets.kv_dtype.finding_ids import FP4, KEYERROR
from equivalence.presets.kv_dtype.hints import DRAFT, DTYPE, FIXED, FP8, HIP, KV, MODEL, SPEC, TORCH, size_key
from equivalence.presets.kv_dtype.observed import effect_json, kv_effect


# What sglang itself sets fp8_dtype to (sglang.srt.layers.quantization.fp8_kernel):
# float8_e4m3fnuz on HIP devices that need it, float8_e4m3fn elsewhere.
SGLANG_FP8_DTYPES = {"torch.float8_e4m3fn", "torch.float8_e4m3fnuz"}
WITHOUT_FLOAT4 = FIXED[TORCH][1]


def incomplete(config: frozenset) -> bool:
    """The configuration leaves out a runner attribute that a real runner has."""
    return any(key in (MODEL, DTYPE, DRAFT, SPEC) and option == ABSENT for key, option in config)


@dataclass
class Finding:
    id: str
    summary: str
    configs: set = field(default_factory=set)  # the configurations it covers (first version)
    per_version: dict = field(default_factory=dict)  # label -> count
    example: frozenset | None = None
    observed: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    settings: list = field(default_factory=list)
    fixed_in: str | None = None  # the version from which on it no longer holds (a fix)
    now: dict = field(default_factory=dict)  # the example's effect in the last version, when fixed


class Observed:
    """One version's observations by configuration, running the ones not observed yet."""

    def __init__(self, label: str, run, observations: dict):
        self.label, self._run, self.observations = label, run, observations

    def __call__(self, config: frozenset) -> Observation:
        if config not in self.observations:
            self.observations[config] = self._run(dict(config))
        return self.observations[config]


def fp4_fallback(observed: Observed, configs) -> tuple[set, dict]:
    """kv="fp4_e2m1" on a torch without float4 says it falls back to 'auto': does it do what
    'auto' does for the same configuration in the same version?"""
    hits, pairs = set(), {}
    for config in configs:
        choices = dict(config)
        if choices.get(KV) != value("fp4_e2m1") or choices.get(TORCH) != WITHOUT_FLOAT4 or incomplete(config):
            continue
        obs = observed(config)
        if not any(e[0] == "log" and "'auto'" in str(e[2]) for e in obs.events):
            continue  # this version does not announce a fallback to auto here
        auto = observed(frozenset({**choices, KV: value("auto")}.items()))
        if not same(kv_effect(obs), kv_effect(auto)):
            hits.add(config)
            pairs[config] = (obs, auto)
    return hits, pairs


def kv_str_keyerror(observed: Observed, configs) -> tuple[set, dict]:
    """The TORCH_DTYPE_TO_KV_CACHE_STR[...] lookup raises KeyError (a configuration not observed
    yet is run, never counted as 'no KeyError')."""
    hits, pairs = set(), {}
    for config in configs:
        if incomplete(config):
            continue
        obs = observed(config)
        if obs.exception is not None and obs.exception[0] == "KeyError":
            hits.add(config)
            pairs[config] = (obs, None)
    return hits, pairs


FINDERS = {FP4: fp4_fallback, KEYERROR: kv_str_keyerror}


class FindingSets:
    """Each finding's configuration set per version, computed once and shared by `collect` and
    a fix's pair (intended.py)."""

    def __init__(self, configs: list[frozenset]):
        self.configs = configs
        self._cache: dict = {}

    def get(self, finding: str, observed: Observed) -> tuple[set, dict]:
        key = (finding, observed.label)
        if key not in self._cache:
            if finding not in FINDERS:
                raise ValueError(f"unknown finding {finding!r}; known: {', '.join(FINDERS)}")
            self._cache[key] = FINDERS[finding](observed, self.configs)
        return self._cache[key]


def collect(versions: list[Observed], sets: FindingSets, literals: list[str]) -> list[Finding]:
    """A finding holds if it does in every version (in refactoring order)."""
    fp4 = Finding(FP4, "--kv-cache-dtype fp4_e2m1 on a torch without float4_e2m1fn_x2 announces a "
                       "fallback to 'auto' but does not do what 'auto' does")
    key = Finding(KEYERROR, "TORCH_DTYPE_TO_KV_CACHE_STR[...] raises KeyError instead of a clear error")
    for i, observed in enumerate(versions):
        for finding in (fp4, key):
            hits, pairs = sets.get(finding.id, observed)
            finding.per_version[observed.label] = len(hits)
            if i == 0 and hits:
                finding.configs = hits
                finding.example = min(hits, key=lambda c: size_key(dict(c), literals))
                obs, expected = pairs[finding.example]
                finding.observed = effect_json(obs)
                if finding is fp4:
                    finding.expected = effect_json(expected)
                else:
                    finding.expected = {"exception": "a clear error naming the dtype and the accepted ones"}
                    finding.settings = keyerror_settings(hits)
    last = versions[-1]
    out = []
    for finding in (fp4, key):
        if not finding.configs:
            continue
        if len(versions) > 1 and finding.per_version[last.label] == 0:
            labels = [v.label for v in versions]
            still = [label for label in labels if finding.per_version[label]]
            finding.fixed_in = labels[labels.index(still[-1]) + 1]
            finding.now = effect_json(last(finding.example))
        out.append(finding)
    return out


def keyerror_settings(hits: set) -> list[dict]:
    seen = {}
    for config in hits:
        choices = dict(config)
        hip, fp8 = describe(choices.get(HIP, value(False))), describe(choices.get(FP8, FIXED[FP8][0]))
        setting = {"_is_hip": hip, "fp8_dtype": fp8, "set_by_sglang": hip is True and fp8 in SGLANG_FP8_DTYPES}
        seen[tuple(setting.items())] = setting
    return [seen[k] for k in sorted(seen)]
