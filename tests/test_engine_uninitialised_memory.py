"""torch's factories of uninitialised memory, as the code under test sees them: whatever a block
held before (garbage from earlier runs, which two versions would see differently) reads zero.
A small block is written with zeros; a large one's whole pages are handed back to the kernel,
which reads them as zero without making them resident (zeroing a pool the world sized at
gigabytes cost a check of 0.5.15.post1's `prealloc_symmetric_memory_pool` 80 s and 3.5 GB)."""

from __future__ import annotations

import sys

import pytest
import torch

from equivalence.engine.world.standins import HANDED_BACK_PAST, PartlyRealModule, _zeroed

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and madvise")


def garbage(n: int) -> torch.Tensor:
    return torch.full((n,), 7, dtype=torch.uint8)


def test_a_small_block_reads_zero():
    seen = PartlyRealModule(torch)
    left = torch.full((1024,), 7.0)
    del left
    assert not seen.empty(1024).any()


@pytest.mark.parametrize("size", [HANDED_BACK_PAST, HANDED_BACK_PAST + 4097])
def test_a_block_holding_garbage_reads_zero_at_any_size(size):
    # as malloc hands out a large block from its heap's freed space: what the run before left
    assert not _zeroed(lambda: garbage(size))().any()


def test_only_the_block_is_zeroed_not_the_bytes_around_it():
    around = garbage(HANDED_BACK_PAST + 3 * 4096)
    inside = torch.frombuffer(memoryview(around.numpy()), dtype=torch.uint8, offset=101, count=HANDED_BACK_PAST + 5)
    _zeroed(lambda: inside)()
    assert around[:101].eq(7).all() and around[101 + HANDED_BACK_PAST + 5:].eq(7).all()
    assert not around[101:101 + HANDED_BACK_PAST + 5].any()


@linux_only
def test_the_heap_serving_a_large_block_from_freed_blocks_still_reads_zero():
    # blocks under malloc's least mmap threshold (128 KiB) come from its heap; freed side by side,
    # they coalesce into one free span, from which it serves the next large block as it stands
    freed = [garbage(100 << 10) for _ in range(400)]
    above = [torch.empty(100 << 10, dtype=torch.uint8) for _ in range(8)]  # the heap's top is not trimmed
    del freed
    assert not PartlyRealModule(torch).empty(HANDED_BACK_PAST // 4 + 1).any()
    del above


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@linux_only
def test_a_large_block_reads_zero_without_becoming_resident():
    before = resident_bytes()
    pool = PartlyRealModule(torch).empty(1 << 30, dtype=torch.uint8)
    assert resident_bytes() - before < 64 << 20
    del pool
