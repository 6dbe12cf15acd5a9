"""torch's factories of uninitialised memory, as the code under test sees them: a block malloc may
take from its heap (garbage from earlier runs) is zeroed; a larger one comes fresh from the kernel,
zero already, and is left untouched (zeroing a pool the world sized at gigabytes cost a check of
0.5.15.post1's `prealloc_symmetric_memory_pool` 80 s and 3.5 GB; 4 s and 0.4 GB untouched)."""

from __future__ import annotations

import torch

from equivalence.engine.world.standins import FRESH_FROM_THE_KERNEL, PartlyRealModule


class Counted:
    """A tensor of `nbytes` bytes (as torch.empty gives it) that counts its zero_() calls."""

    def __init__(self, nbytes: int):
        self.nbytes, self.zeroed = nbytes, 0

    def numel(self):
        return self.nbytes

    def element_size(self):
        return 1

    def zero_(self):
        self.zeroed += 1
        return self


def test_a_heap_block_is_zeroed_and_a_block_fresh_from_the_kernel_is_left_as_it_is(monkeypatch):
    made = []
    fake = type(torch)("torch")
    fake.empty = lambda n: made.append(Counted(n)) or made[-1]
    seen = PartlyRealModule(fake)
    seen.empty(FRESH_FROM_THE_KERNEL)
    seen.empty(FRESH_FROM_THE_KERNEL + 1)
    assert [t.zeroed for t in made] == [1, 0]


def test_real_blocks_read_zero_either_way():
    seen = PartlyRealModule(torch)
    garbage = torch.full((1024,), 7.0)
    del garbage
    assert not seen.empty(1024).any()
    big = seen.empty(FRESH_FROM_THE_KERNEL // 4 + 1)  # float32: just past the threshold
    assert not big.any()
