"""A value looked for in a container of the world's (`if name not in self.groups`, then
`self.groups[name]`) is offered a name, and the container a mapping holding that name: without
them no run got past the lookup (WeightUpdater's `update_weights_from_distributed`: `group_name in
self._model_update_group`, the group then looked up by that name)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    class Registry:
        def lookup(self, name):
            return self.find(name)

        def find(self, name):
            if name not in self.groups:
                return None
            return "active" if self.groups[name].active else "idle"
    """
AFTER = """
    def find(groups, name):
        if name not in groups:
            return None
        return "active" if groups[name].active else "idle"


    class Registry:
        def lookup(self, name):
            return find(self.groups, name)
    """


def test_a_name_looked_for_in_a_container_reaches_what_is_filed_under_it(tmp_path):
    pair = first_pair(moves_report(tmp_path, {"sglang/srt/registry.py": BEFORE}, {"sglang/srt/registry.py": AFTER}))
    assert pair["verdict"] == "equivalent", pair["coverage"]
    for side in ("before", "after"):
        assert pair["coverage"][side]["hit"] == pair["coverage"][side]["branches"] == 4, pair["coverage"][side]
    assert "<dict of 'x'>" in pair["inputs"]["self.groups"], pair["inputs"]["self.groups"]
