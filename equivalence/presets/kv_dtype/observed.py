"""What a run did to the kv-cache dtype, read from its generic observation (engine/observe.py):
the final `self.kv_cache_dtype`, the resolved strings it recorded (by `_record_kv_cache_dtype`
or by writing `self.server_args.kv_cache_dtype`), its logs and exception."""

from __future__ import annotations

from equivalence.engine.run.observe import Observation
from equivalence.engine.world.values import same
from equivalence.engine.world.world import json_value

RECORD = "self._record_kv_cache_dtype"
SERVER_ARGS_KV = "self.server_args.kv_cache_dtype"
ABSENT = "<absent>"


def final_dtype(obs: Observation):
    return dict(obs.state).get("kv_cache_dtype", ABSENT)


def recorded(obs: Observation) -> tuple:
    """The resolved strings the run recorded, in order."""
    return tuple(e[2][0] if e[0] == "call" else e[2] for e in obs.events
                 if (e[0] == "call" and e[1] == RECORD and e[2]) or (e[0] == "set" and e[1] == SERVER_ARGS_KV))


def kv_effect(obs: Observation) -> tuple:
    return (final_dtype(obs), recorded(obs), None if obs.exception is None else obs.exception[0])


def effect_json(obs: Observation) -> dict:
    return {
        "kv_cache_dtype": str(final_dtype(obs)),
        "recorded": [json_value(r) for r in recorded(obs)],
        "exception": None if obs.exception is None else f"{obs.exception[0]}: {obs.exception[1]}",
        "logs": [f"{e[1]}: {e[2]}" for e in obs.events if e[0] == "log"],
    }


def summary(obs: Observation) -> dict:
    """The generic summary with the kv fields first (reports)."""
    return {"kv_cache_dtype": json_value(final_dtype(obs)), "recorded": [json_value(r) for r in recorded(obs)],
            **obs.summary()}


def refine(kind: str, before: Observation, after: Observation) -> str:
    """A divergence named by what the review looks at: the dtype, then the recorded string."""
    if kind in ("different-outcome", "different-exception-message"):
        return kind
    if not same(final_dtype(before), final_dtype(after)):
        return "different-kv-cache-dtype"
    if not same(recorded(before), recorded(after)):
        return "different-resolved-string"
    return kind
