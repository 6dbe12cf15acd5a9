"""A test against a string the code names that no run passed (`self.device == "cuda:first"`),
although the world offered an input that very string: the reason says what those configurations
raised before it, run again (here torch rejects a device string it cannot read, two lines before;
a device type it does not know is another matter: tests/test_engine_out_of_tree_device.py)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

BEFORE = """
    import torch


    class Mover:
        def move(self):
            return self.place()

        def place(self):
            device = torch.device(self.device)
            if self.device == "cuda:first":
                return "cuda:first", device
            return "other", device
    """
AFTER = """
    import torch


    def place(device_name):
        device = torch.device(device_name)
        if device_name == "cuda:first":
            return "cuda:first", device
        return "other", device


    class Mover:
        def move(self):
            return place(self.device)
    """


def test_a_string_offered_yet_never_passing_its_test_is_explained_by_what_its_runs_raised(tmp_path):
    pair = first_pair(moves_report(tmp_path, {"sglang/srt/mover.py": BEFORE}, {"sglang/srt/mover.py": AFTER}))
    assert pair["verdict"] == "inconclusive", pair["verdict"]
    for side in ("before", "after"):
        (missed,) = pair["coverage"][side]["why_missed"]
        assert "giving self.device 'cuda:first'" in missed["why"] and "RuntimeError" in missed["why"], missed
