"""A constructor that raises leaves no instance: where a pull-up moves a store past one whose value
may raise (`self.started = time.time()` now in the base's `__init__`, before the subclass's
`self.done = None`), the two orders differ only in writes nobody can see, unless the instance was
handed to something first. Both the runs (`abandoned-instance-writes`) and the static check (two
stores of distinct attributes commute) say so; outside a constructor, or with the instance handed
on, the difference stays."""

from __future__ import annotations

import json

from equivalence.cli import main
from tests.hand_moves import write_tree

BEFORE = """
    import time


    class Base:
        def __init__(self, mgr):
            self.mgr = mgr


    class Sender(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.done = None
            self.started = time.time()
    """
AFTER = """
    import time


    class Base:
        def __init__(self, mgr):
            self.mgr = mgr
            self.started = time.time()


    class Sender(Base):
        def __init__(self, mgr):
            super().__init__(mgr)
            self.done = None
    """


def _check(tmp_path, before: str, after: str, method: str = "Sender.__init__") -> dict:
    trees = [str(write_tree(tmp_path / side, {"sglang/srt/sender.py": text}))
             for side, text in (("b", before), ("a", after))]
    out = tmp_path / "r.json"
    main(["--method", method, *trees, "--json", str(out)])
    return json.loads(out.read_text())


def test_a_store_moved_past_another_in_a_constructor_is_the_same_construction(tmp_path):
    report = _check(tmp_path, BEFORE, AFTER)
    (pair,) = report["pairs"]
    assert report["verdict"] == "equivalent", pair["divergences"]
    assert pair["static"]["residuals"] == []
    assert "abandoned-instance-writes" in {c["kind"] for c in pair["classified"]}, pair["classified"]


def test_the_instance_handed_on_before_keeps_the_difference(tmp_path):
    handed = "            self.done = None\n            self.mgr.register(self)\n"
    before = BEFORE.replace("            self.done = None\n", handed)
    after = AFTER.replace("            self.done = None\n", handed).replace(
        "            self.started = time.time()\n", "")
    after = after.replace("            self.mgr.register(self)\n", "            self.mgr.register(self)\n            self.started = time.time()\n")
    moved = after.replace("            self.done = None\n            self.mgr.register(self)\n            self.started = time.time()\n",
                          "            self.started = time.time()\n            self.done = None\n            self.mgr.register(self)\n")
    assert _check(tmp_path / "same", before, after)["verdict"] == "equivalent"
    assert _check(tmp_path / "moved", before, moved)["verdict"] == "divergent"


def test_outside_a_constructor_the_order_is_a_difference(tmp_path):
    method = """
    import time


    class Sender:
        def reset(self):
            self.done = None
            self.started = time.time()
    """
    swapped = method.replace("            self.done = None\n            self.started = time.time()\n",
                             "            self.started = time.time()\n            self.done = None\n")
    report = _check(tmp_path, method, swapped, "Sender.reset")
    assert report["verdict"] == "divergent"
    assert [r["kind"] for r in report["pairs"][0]["static"]["residuals"]] != []
