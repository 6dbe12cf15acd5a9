"""A fix's pair: its behavioural delta must be exactly the configurations of its finding.

The finding's configuration set is computed on the pair's BEFORE version, over the pair's own
configurations. Then every configuration whose behaviour differs (the delta) is sorted:
- in the finding: "intended-difference" (classified, not a divergence);
- outside it: "unintended-divergence" (the fix changed something it should not have);
- in the finding but unchanged: "fix-incomplete";
and if the finding still holds in the AFTER version: "finding-still-holds".
A delta on the finding's configurations must also be the fix the finding asks for: for
kv-str-keyerror, a ValueError whose message names the dtype and the accepted ones (issue 5),
else "fix-not-as-specified" (e.g. `.get(...)` silently recording nothing).  (For
fp4-fallback-not-auto the finding itself compares with 'auto', so "finding-still-holds"
covers it.)  The last four are divergences (exit 1).
"""

from __future__ import annotations

from .compare import INTENDED
from .findings import FP4, KEYERROR, FindingSets
from .pairs import Difference, PairResult

UNINTENDED = "unintended-divergence"
INCOMPLETE = "fix-incomplete"
STILL_HOLDS = "finding-still-holds"
NOT_AS_SPECIFIED = "fix-not-as-specified"
FINDINGS = (FP4, KEYERROR)
TABLE = "TORCH_DTYPE_TO_KV_CACHE_STR"


def _accepted(version) -> list[list[str]]:
    """Ways to name the accepted ones: every dtype of the table, or every string of it."""
    for module in version.modules.values():
        table = module.__dict__.get(TABLE)
        if isinstance(table, dict):
            return [[str(k) for k in table], [str(v) for v in dict.fromkeys(table.values())]]
    return [[]]


def clear_error(before, after, accepted: list[list[str]]) -> bool:
    """`after` raises a ValueError naming the dtype `before`'s KeyError named and the accepted ones."""
    if after.exception is None or after.exception[0] != "ValueError" or before.exception is None:
        return False
    message, dtype = after.exception[1], before.exception[1].strip("'")
    return dtype in message and any(names and all(n in message for n in names) for names in accepted)


def apply_intended(result: PairResult, finding: str, sessions: dict, sets: FindingSets) -> None:
    """Reclassify `result`'s differences against `finding` and set `result.intended`."""
    def finding_set(side: str, version) -> set:
        return sets.get(finding, sessions[id(version)], result.configs, result.observations[side], result.active)[0]

    expected = finding_set("before", result.before)
    remaining = finding_set("after", result.after)
    delta = {c: (kind, diff.observations[c]) for kind, diff in result.differences.items() for c in diff.configs}
    groups: dict[str, Difference] = {}

    def add(kind, config, pair):
        diff = groups.setdefault(kind, Difference(kind))
        diff.configs.append(config)
        diff.observations[config] = pair

    accepted = _accepted(result.after) if finding == KEYERROR else None
    for config, (kind, pair) in delta.items():
        if config not in expected:
            add(UNINTENDED, config, pair)
        elif accepted is not None and not clear_error(*pair, accepted):
            add(NOT_AS_SPECIFIED, config, pair)
        else:
            add(INTENDED, config, pair)
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
        "not_as_specified": len(groups.get(NOT_AS_SPECIFIED, Difference(NOT_AS_SPECIFIED)).configs),
        "outside_finding": outside,
        "finding_unchanged": len(expected - delta.keys()),
        "finding_configs_after": len(remaining),
    }
