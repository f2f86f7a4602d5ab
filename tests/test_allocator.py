"""glibc keeps freed memory inside `freed_memory_kept` (arrays reuse it instead of
faulting in fresh pages) and behaves as usual again after it; `give_back_freed_memory`
returns the heap's free pages."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from irscore.engine import allocator

MIB = 1 << 20


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def _free_in_heap() -> int:
    """Bytes glibc holds free in its heap (mallinfo2's fordblks)."""
    libc = allocator._libc()
    libc.mallinfo2.restype = _MallInfo2
    return libc.mallinfo2().fordblks


def _freed_bytes_kept() -> int:
    """How much more glibc holds free in its heap once a 100 MiB array is dropped than
    while it lives. Measured across the drop alone: a heap that already held free blocks
    (earlier tests in this process) may have lent some of them to the array."""
    array = np.ones(100 * MIB, dtype=np.uint8)
    alive = _free_in_heap()
    del array
    return _free_in_heap() - alive


@pytest.mark.allowed_skip(reason="glibc 2.33+ only: elsewhere there is nothing to tune")
@pytest.mark.skipif(
    allocator._libc() is None or not hasattr(allocator._libc(), "mallinfo2"),
    reason="glibc 2.33+ only",
)
def test_freed_memory_is_kept_inside_and_handed_back_after():
    with allocator.freed_memory_kept():
        assert _freed_bytes_kept() > 90 * MIB  # stays in the heap for the next array
    # afterwards a block over 32 MiB is mapped on its own and unmapped when freed
    assert _freed_bytes_kept() < 32 * MIB


def _resident() -> int:
    """This process's resident memory in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.allowed_skip(reason="glibc 2.33+ only: elsewhere there is nothing to give back")
@pytest.mark.skipif(
    allocator._libc() is None or not hasattr(allocator._libc(), "mallinfo2"),
    reason="glibc 2.33+ only",
)
def test_freed_heap_pages_are_given_back():
    with allocator.freed_memory_kept():  # 100 MiB from the heap, touched, then freed
        array = np.ones(100 * MIB, dtype=np.uint8)
        del array
        kept = _resident()
        allocator.give_back_freed_memory()
        # the pages leave the process; the heap still counts them free for reuse
        assert kept - _resident() > 90 * MIB
        assert _freed_bytes_kept() > 90 * MIB


def test_without_glibc_nothing_is_done(monkeypatch):
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())  # no mallopt, no malloc_trim
    allocator._libc.cache_clear()
    try:
        assert allocator._libc() is None
        with allocator.freed_memory_kept():
            pass
        allocator.give_back_freed_memory()
    finally:
        allocator._libc.cache_clear()
