"""The kv preset's drawn configurations depend on nothing but the seed: not on the literals of
whatever local modules happen to be imported (hypothesis 6.131+ draws those by default)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
providers = pytest.importorskip("hypothesis.internal.conjecture.providers")
sortedcontainers = pytest.importorskip("sortedcontainers")

from equivalence.presets.kv_dtype.hints import hypothesis_configs  # noqa: E402


@pytest.mark.skipif(not hasattr(providers, "_get_local_constants"), reason="this hypothesis draws no local literals")
def test_the_literals_of_local_modules_are_not_drawn(monkeypatch):
    words = sortedcontainers.SortedSet(f"fp8-lit-{i}" for i in range(300))
    monkeypatch.setattr(providers, "_get_local_constants", lambda *a, **k: providers.Constants(strings=words))
    drawn = hypothesis_configs(set(), None, 150)
    assert not [c for c in drawn if any("fp8-lit-" in str(v) for v in c.values())]
