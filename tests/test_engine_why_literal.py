"""A test against a string the code names that no run passed (`self.device == "cuda:first"`),
although the world offered an input that very string: the reason says what those configurations
raised before it, run again (here torch rejects a device string it cannot read, two lines before;
a device type it does not know is another matter: tests/test_engine_out_of_tree_device.py)."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

MOVER = """
    import torch


    class Mover:
        def move(self):
            return self.place()

        def place(self):
            device = torch.device(self.device)
            if self.device == "NAME":
                return "NAME", device.type
            return "other", device.type
    """
PLACE = """
    import torch


    def place(device_name):
        device = torch.device(device_name)
        if device_name == "NAME":
            return "NAME", device.type
        return "other", device.type


    class Mover:
        def move(self):
            return place(self.device)
    """


def placing(name: str) -> tuple[dict, dict]:
    """The before and after trees of `Mover.place` moved into a function, testing for the device `name`."""
    return ({"sglang/srt/mover.py": MOVER.replace("NAME", name)}, {"sglang/srt/mover.py": PLACE.replace("NAME", name)})


def test_a_string_offered_yet_never_passing_its_test_is_explained_by_what_its_runs_raised(tmp_path):
    pair = first_pair(moves_report(tmp_path, *placing("cuda:first")))
    assert pair["verdict"] == "inconclusive", pair["verdict"]
    for side in ("before", "after"):
        (missed,) = pair["coverage"][side]["why_missed"]
        assert "giving self.device 'cuda:first'" in missed["why"] and "RuntimeError" in missed["why"], missed
