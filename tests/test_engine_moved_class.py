"""A class of the module under test that moved with the extraction (`LocalSerializedTensor`, moved
into the component's module by hand in 0.5.16): the world's instance of it is, in each version,
an instance of the class that version defines; and its methods, run for real, read their
module's imports as inputs, as the code under test does (a stub touched there was "not modelled")."""

from __future__ import annotations

from tests.hand_moves import first_pair, moves_report

PAYLOAD = """
    class Payload:
        def __init__(self, values):
            self.values = values

        def get(self, rank):
            return Serializer.load(self.values[rank])
    """
BEFORE = """
    from sglang.srt.utils import Serializer
    """ + PAYLOAD + """

    class Mover:
        def move(self, tensor):
            return self.unwrap(tensor)

        def unwrap(self, tensor):
            if isinstance(tensor, Payload):
                tensor = tensor.get(self.rank)
            return tensor.to(self.device)
    """
MODULE = """
    from sglang.srt.utils import Serializer
    """ + PAYLOAD + """

    def unwrap(tensor, rank, device):
        if isinstance(tensor, Payload):
            tensor = tensor.get(rank)
        return tensor.to(device)
    """
AFTER = """
    from sglang.srt.payload import unwrap


    class Mover:
        def move(self, tensor):
            return unwrap(tensor, self.rank, self.device)
    """


def test_an_instance_of_a_moved_class_is_each_versions_own_and_its_methods_read_inputs(tmp_path):
    report = moves_report(tmp_path, {"sglang/srt/mover.py": BEFORE},
                          {"sglang/srt/mover.py": AFTER, "sglang/srt/payload.py": MODULE})
    pair = first_pair(report)
    assert pair["verdict"] == "equivalent", (pair["verdict"], pair.get("divergences", [])[:1], pair.get("not_modelled"))
    for side in ("before", "after"):
        assert pair["coverage"][side]["hit"] == pair["coverage"][side]["branches"], pair["coverage"][side]
    instances = [o for options in pair["inputs"].values() for o in options if o == "<Payload instance>"]
    assert len(instances) == 1, pair["inputs"]  # one option for the class, whichever version tested it first
