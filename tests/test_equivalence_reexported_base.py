"""A base class reached through a package that re-exports it (`from sglang.srt.pools import
BasePool`, defined in `pools/base.py`), its `__init__` called by name: the base's module is loaded
for the construction, so the name is the real class there, not an input of the world (0.5.20's
`UnifiedSWATokenToKVPoolAllocator.__init__` calls `BaseTokenToKVPoolAllocator.__init__(self, ...)`:
every run stopped there, and 23 of 30 mutants after it survived)."""

from __future__ import annotations

import json

from equivalence.cli import main
from tests.hand_moves import write_tree

PACKAGE = {
    "sglang/srt/pools/__init__.py": "from sglang.srt.pools.base import BasePool\n",
    "sglang/srt/pools/base.py": """
        class BasePool:
            def __init__(self, size, dtype):
                self.size = size
                self.dtype = dtype
                self.free = None
        """,
}
BEFORE = """
    from sglang.srt.pools import BasePool


    class JointPool(BasePool):
        def __init__(self, *, size, spec, lazy=False):
            self.spec = spec
            BasePool.__init__(self, size=size, dtype=spec.dtype)
            self.lazy = lazy
            self.pages = [0] * self.size if self.size > 0 else [None]
            self.free = len(self.pages)
    """
AFTER = """
    from sglang.srt.pools import BasePool


    class JointBase(BasePool):
        def __init__(self, *, size, spec, lazy=False):
            self.spec = spec
            BasePool.__init__(self, size=size, dtype=spec.dtype)
            self.lazy = lazy
            self.pages = [0] * self.size if self.size > 0 else [None]
            self.free = len(self.pages)


    class JointPool(JointBase):
        pass
    """


def _check(tmp_path, after: str, *extra: str) -> dict:
    trees = [str(write_tree(tmp_path / side, {**PACKAGE, "sglang/srt/pools/joint.py": text}))
             for side, text in (("b", BEFORE), ("a", after))]
    out = tmp_path / "r.json"
    main(["--method", "JointPool.__init__", *trees, "--json", str(out), *extra])
    return json.loads(out.read_text())


def test_the_runs_go_through_the_base_s_construction_and_the_mutants_after_it_die(tmp_path):
    report = _check(tmp_path, AFTER, "--mutants")
    assert report["verdict"] == "equivalent", report["pairs"][0]["divergences"]
    mutants = report["mutants"]
    assert mutants["total"] >= 5 and mutants["killed"] == mutants["total"], mutants


def test_a_store_after_the_base_s_construction_changed_is_divergent(tmp_path):
    report = _check(tmp_path, AFTER.replace("self.free = len(self.pages)", "self.free = len(self.pages) - 1"))
    assert report["verdict"] == "divergent"
