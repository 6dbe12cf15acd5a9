"""A device type this torch build does not know, which the code names (`self.device == "musa"`),
is taken as torch's out-of-tree device (PrivateUse1), as torch_musa or torch_npu register theirs:
the branch behind it runs. One a process, as on a machine; another still raises as torch does."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.hand_moves import first_pair, moves_report
from tests.test_engine_why_literal import placing


def test_a_device_type_the_code_names_is_taken_as_torchs_out_of_tree_device(tmp_path):
    pair = first_pair(moves_report(tmp_path, *placing("musa")))
    assert pair["verdict"] == "equivalent", pair["coverage"]
    for side in ("before", "after"):
        assert pair["coverage"][side]["hit"] == pair["coverage"][side]["branches"], pair["coverage"][side]


def test_only_a_name_the_code_names_and_only_one_a_process():
    """In a process of its own: the registration cannot be undone."""
    script = textwrap.dedent("""
        import torch
        from equivalence.engine.world import standins
        from equivalence.engine.world.standins import CURRENT, OutOfTreeDevice
        from equivalence.engine.world.world import Domains, World

        world = World(Domains(), {}, frozenset(), (("musa", "npu"), (), ()))
        CURRENT.append(world)
        device = OutOfTreeDevice(torch.device)
        for name in ("tpu", "musa", "npu"):
            try:
                made = device(name)
                print(name, made.type, isinstance(made, device), isinstance("cpu", device))
            except RuntimeError:
                print(name, "rejected")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.stdout.split("\n")[:3] == ["tpu rejected", "musa musa True False", "npu rejected"], run.stderr[-2000:]
