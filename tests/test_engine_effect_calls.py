"""A call of torch made for its effect, its result dropped (`torch.empty(size, device=d)` inside a
pool's `with`, `torch.manual_seed(s)`), is an event with its arguments: the process shows nothing
of it, so without the event a changed size is never seen (0.5.15.post1's
`prealloc_symmetric_memory_pool`: 3 mutants of the size survived)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    import torch


    class Pool:
        def setup(self):
            self.reserve()

        def reserve(self):
            if self.gb <= 0:
                return
            torch.empty((self.gb * 1024 * 1024,), dtype=torch.uint8, device=self.device)
    """
AFTER = """
    import torch


    def reserve(gb, device):
        if gb <= 0:
            return
        torch.empty((gb * 1024 * 1024,), dtype=torch.uint8, device=device)


    class Pool:
        def setup(self):
            self.reserve()

        def reserve(self):
            reserve(self.gb, self.device)
    """


def _pair(tmp_path, after: str) -> dict:
    return first_pair(moves_report(tmp_path, {"sglang/srt/pool.py": BEFORE}, {"sglang/srt/pool.py": after}))


def test_the_same_call_is_equivalent(tmp_path):
    pair = _pair(tmp_path, AFTER)
    assert pair["verdict"] == "equivalent" and pair["coverage"]["after"]["hit"] == 2, pair["coverage"]


def test_another_size_is_a_difference_the_runs_show(tmp_path):
    pair = _pair(tmp_path, AFTER.replace("(gb * 1024 * 1024,)", "(gb * 1024 * 1025,)"))
    assert pair["verdict"] == "divergent"
    (shown,) = pair["divergences"]
    assert shown["kind"] == "different-calls", shown
    calls = [(side, shown[side]["events"]) for side in ("before", "after")]
    device = shown["example"].get("self.device", "cpu")  # a device torch takes (devices.py), first
    assert calls == [("before", [["call", "torch.empty", [[1024 * 1024 * shown["example"]["self.gb"]]],
                                  [["dtype", "torch.uint8"], ["device", device]]]]),
                     ("after", [["call", "torch.empty", [[1024 * 1025 * shown["example"]["self.gb"]]],
                                 [["dtype", "torch.uint8"], ["device", device]]]])], calls
