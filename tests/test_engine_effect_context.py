"""A torch function the code enters as a context and whose result it drops (`with
record_function("label"):`, imported from `torch.profiler`) is called for an effect the process
does not show, as a torch call made as a statement is: each call, with its arguments, is an event.
A mutant of the label is then seen (0.5.20's `UnifiedSWATokenToKVPoolAllocator.flush_opportunistic`:
9/10 mutants, the profiler label surviving; 10/10 since)."""

from __future__ import annotations

import json

from equivalence.cli import main
from tests.hand_moves import write_tree

BEFORE = """
    from torch.profiler import record_function


    class Pool:
        def flush(self, pages):
            with record_function("Pool.flush"):
                if pages > self.limit:
                    return self.limit
                return pages
    """
AFTER = """
    from torch.profiler import record_function


    def flush_pages(pages, limit):
        with record_function("Pool.flush"):
            if pages > limit:
                return limit
            return pages


    class Pool:
        def flush(self, pages):
            return flush_pages(pages, self.limit)
    """


def test_a_context_entered_for_its_effect_is_an_event_and_its_label_a_mutant_caught(tmp_path):
    before = write_tree(tmp_path / "b", {"sglang/srt/pool.py": BEFORE})
    after = write_tree(tmp_path / "a", {"sglang/srt/pool.py": AFTER})
    out = tmp_path / "r.json"
    main(["--method", "Pool.flush", str(before), str(after), "--name", "flush_pages", "--mutants", "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["verdict"] == "equivalent", report["verdict"]
    assert report["mutants"]["killed"] == report["mutants"]["total"] > 0, report["mutants"]
