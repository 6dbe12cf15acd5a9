"""A fix's pair: its behavioural delta must be exactly the configurations of its finding.

The finding's configuration set is computed on the pair's BEFORE version, over the pair's own
configurations. Then every configuration whose behaviour differs (the delta) is sorted:
- in the finding: "intended-difference" (classified, not a divergence);
- outside it: "unintended-divergence" (the fix changed something it should not have);
- in the finding but unchanged: "fix-incomplete";
and if the finding still holds in the AFTER version: "finding-still-holds".
The last three are divergences (exit 1).
"""

from __future__ import annotations

from .compare import INTENDED
from .findings import FP4, KEYERROR, fp4_fallback, kv_str_keyerror
from .observe import Session
from .pairs import Difference, PairResult

UNINTENDED = "unintended-divergence"
INCOMPLETE = "fix-incomplete"
STILL_HOLDS = "finding-still-holds"
FINDINGS = (FP4, KEYERROR)


def finding_set(finding: str, result: PairResult, side: str, session: Session) -> set:
    configs, observations = result.configs, result.observations[side]
    if finding == FP4:
        return fp4_fallback(session, configs, observations, result.active)[0]
    if finding == KEYERROR:
        return kv_str_keyerror(configs, observations, result.active)[0]
    raise ValueError(f"unknown finding {finding!r}; known: {', '.join(FINDINGS)}")


def apply_intended(result: PairResult, finding: str, sessions: dict) -> None:
    """Reclassify `result`'s differences against `finding` and set `result.intended`."""
    expected = finding_set(finding, result, "before", sessions[id(result.before)])
    remaining = finding_set(finding, result, "after", sessions[id(result.after)])
    delta = {c: (kind, diff.observations[c]) for kind, diff in result.differences.items() for c in diff.configs}
    groups: dict[str, Difference] = {}

    def add(kind, config, pair):
        diff = groups.setdefault(kind, Difference(kind))
        diff.configs.append(config)
        diff.observations[config] = pair

    for config, (kind, pair) in delta.items():
        add(INTENDED if config in expected else UNINTENDED, config, pair)
    both = result.observations
    for config in expected - delta.keys():
        add(INCOMPLETE, config, (both["before"][config], both["after"][config]))
    for config in remaining:
        add(STILL_HOLDS, config, (both["before"][config], both["after"][config]))
    result.differences = groups
    outside = len(groups.get(UNINTENDED, Difference(UNINTENDED)).configs)
    result.intended = {
        "finding": finding,
        "finding_configs": len(expected),
        "delta_configs": len(delta),
        "equal": set(delta) == expected,
        "outside_finding": outside,
        "finding_unchanged": len(expected - delta.keys()),
        "finding_configs_after": len(remaining),
    }
