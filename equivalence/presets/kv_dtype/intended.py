"""A fix's pair: its behavioural delta must be exactly the configurations of the findings it fixes.

Each finding's configuration set is computed on the pair's BEFORE version, over the preset's
configurations. Every configuration whose behaviour diverges (the delta; a difference the
extraction explains, deferred-writes or eager-read, stays classified, so that a PR that
extracts and fixes in one jump is checked too) is sorted:
- in a finding's set: "intended-difference" (classified, not a divergence);
- in none: "unintended-divergence" (the fix changed something it should not have);
- in a finding's set but unchanged: "fix-incomplete";
and if a finding still holds in the AFTER version: "finding-still-holds".
A delta on kv-str-keyerror's configurations must also be the fix the finding asks for: a
ValueError whose message names the dtype and the accepted ones (issue 5), else
"fix-not-as-specified" (e.g. `.get(...)` silently recording nothing). (For
fp4-fallback-not-auto the finding itself compares with 'auto', so "finding-still-holds" covers
it.) The last four are divergences (exit 1).
"""

from __future__ import annotations

from equivalence.engine.judge.compare import INTENDED, is_divergence
from equivalence.engine.run.pairs import Difference, PairResult
from equivalence.presets.kv_dtype.finding_ids import KEYERROR
from equivalence.presets.kv_dtype.findings import FindingSets, Observed

UNINTENDED = "unintended-divergence"
INCOMPLETE = "fix-incomplete"
STILL_HOLDS = "finding-still-holds"
NOT_AS_SPECIFIED = "fix-not-as-specified"
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


def apply_intended(result: PairResult, findings: list[str], before: Observed, after: Observed,
                   sets: FindingSets) -> None:
    """Reclassify `result`'s differences against `findings` and set `result.intended`."""
    expected = {f: sets.get(f, before)[0] for f in findings}
    remaining = {f: sets.get(f, after)[0] for f in findings}
    groups: dict[str, Difference] = {}

    def add(kind, config, identity, pair):
        diff = groups.setdefault(kind, Difference(kind))
        diff.configs.append(config)
        diff.identities.append(identity)
        diff.observations.append(pair)

    accepted = _accepted(result.after)
    changed: set = set()
    for kind, diff in result.differences.items():
        for config, identity, pair in zip(diff.configs, diff.identities, diff.observations):
            owners = [f for f in findings if identity in expected[f]]
            if not is_divergence(kind) and not owners:
                add(kind, config, identity, pair)  # the extraction's own classified differences stay
            elif not owners:
                add(UNINTENDED, config, identity, pair)
            elif not is_divergence(kind):
                continue  # unchanged but for the extraction: counted as fix-incomplete below
            elif KEYERROR in owners and not clear_error(*pair, accepted):
                changed.add(identity)
                add(NOT_AS_SPECIFIED, config, identity, pair)
            else:
                changed.add(identity)
                add(INTENDED, config, identity, pair)
    for finding in findings:
        for identity in sorted(expected[finding] - changed, key=sorted_key):
            add(INCOMPLETE, dict(identity), identity, (before(identity), after(identity)))
        for identity in sorted(remaining[finding], key=sorted_key):
            add(STILL_HOLDS, dict(identity), identity, (before(identity), after(identity)))
    result.differences = groups
    outside = len(groups.get(UNINTENDED, Difference(UNINTENDED)).configs)
    not_as_specified = set(groups.get(NOT_AS_SPECIFIED, Difference(NOT_AS_SPECIFIED)).identities)
    result.intended = [{
        "finding": finding,
        "finding_configs": len(expected[finding]),
        "delta_configs": len(changed & expected[finding]) + outside,
        "equal": changed & expected[finding] == expected[finding] and not outside,
        "not_as_specified": len(not_as_specified & expected[finding]),
        "outside_finding": outside,
        "finding_unchanged": len(expected[finding] - changed),
        "finding_configs_after": len(remaining[finding]),
    } for finding in findings]


def sorted_key(identity: frozenset) -> str:
    return repr(sorted(identity, key=repr))
