"""Compare two observations of the same configuration and classify the difference.

Expected differences are classified, never hidden:
- "deferred-writes": the refactor turns the instance writes of the results (`kv_cache_dtype`,
  the resolved string written to server_args or passed to `_record_kv_cache_dtype`) into
  returned values applied after the function returns.  The after-trace must equal the
  before-trace with those effects moved to the end, in the same relative order (repeated
  writes of one attribute collapse to one write of the last value, at the first write's
  place), and dropped when an exception is raised.
- "eager-read": the after version's call site reads an attribute the configuration left out
  of the runner and fails with AttributeError before anything else happens, where the before
  version read it lazily (only on some paths, or after other effects).
Everything else is a divergence.  A reordering among the deferred effects is a divergence.
"""

from __future__ import annotations

from .configs import ABSENT
from .observe import Observation

DEFERRED_SELF = {"kv_cache_dtype"}
DEFERRED_SERVER_ARGS = {"kv_cache_dtype"}

EQUAL = "equal"
DEFERRED = "deferred-writes"
EAGER = "eager-read"
NOT_MODELLED = "input-not-modelled"
INTENDED = "intended-difference"  # a fix's delta on its finding's configurations (intended.py)
CLASSIFIED = {DEFERRED, EAGER, INTENDED}


def _deferred(event) -> bool:
    kind = event[0]
    return (
        kind == "record"
        or (kind == "set" and event[1] in DEFERRED_SELF)
        or (kind == "server_args" and event[1] in DEFERRED_SERVER_ARGS)
    )


def _collapse(events: list) -> list:
    """One write per attribute, with its last value, where it was first written (a returned
    value is assigned once, in the order the old body first assigned it); records all stay."""
    last = {}
    for e in events:
        if e[0] != "record":
            last[(e[0], e[1])] = e
    out, seen = [], set()
    for e in events:
        if e[0] == "record":
            out.append(e)
        elif (e[0], e[1]) not in seen:
            seen.add((e[0], e[1]))
            out.append(last[(e[0], e[1])])
    return out


def deferred_trace(before: Observation) -> tuple:
    """What the before-trace becomes when the results are returned and applied by the caller."""
    kept = [e for e in before.events if not _deferred(e)]
    if before.exception is not None:
        return tuple(kept)
    return tuple(kept + _collapse([e for e in before.events if _deferred(e)]))


def _state_without_deferred(obs: Observation, initial_server_kv) -> tuple:
    out = []
    for key, value in obs.state:
        if key in DEFERRED_SELF:
            continue
        if key == "server_args.kv_cache_dtype":
            value = initial_server_kv
        out.append((key, value))
    return tuple(out)


def classify(before: Observation, after: Observation, initial_server_kv, absent: set[str], eager_reads: set[str]) -> str:
    if before.not_modelled or after.not_modelled:
        return NOT_MODELLED
    if before == after:
        return EQUAL
    if after.exception == before.exception and after.events == deferred_trace(before):
        if before.exception is None:
            return DEFERRED if after.state == before.state else "different-state"
        if _state_without_deferred(after, initial_server_kv) == _state_without_deferred(before, initial_server_kv):
            return DEFERRED
    if (
        after.exception is not None
        and after.exception[0] == "AttributeError"
        and after.exception[2] in absent
        and after.exception[2] in eager_reads
        and not after.events
    ):
        return EAGER
    return kind_of_difference(before, after)


def kind_of_difference(before: Observation, after: Observation) -> str:
    if before.exception != after.exception:
        if before.exception is None or after.exception is None or before.exception[0] != after.exception[0]:
            return "different-outcome"
        return "different-exception-message"
    if before.kv_cache_dtype != after.kv_cache_dtype:
        return "different-kv-cache-dtype"
    if before.resolved != after.resolved:
        return "different-resolved-string"
    logs = lambda o: [e for e in o.events if e[0] == "log"]  # noqa: E731
    if logs(before) != logs(after):
        return "different-logs"
    return "different-effect-order"


def absent_attributes(config) -> set[str]:
    out = set()
    if config.model.kind == "absent":
        out.add("model")
    if config.dtype is ABSENT:
        out.add("dtype")
    if config.is_draft_worker is ABSENT:
        out.add("is_draft_worker")
    if config.spec_dflash is ABSENT:
        out.add("spec_algorithm")
    return out
