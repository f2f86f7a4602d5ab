"""glibc keeps freed memory inside `freed_memory_kept` (arrays reuse it instead of
faulting in fresh pages) and behaves as usual again after it; `give_back_freed_memory`
returns the heap's free pages."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from irscore.engine.system import allocator

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


_JEMALLOC_FREED = """
import sys
import irscore.cli  # sets Arrow's jemalloc to purge at once, before pyarrow loads
import numpy as np, pyarrow as pa

pa.set_memory_pool(pa.jemalloc_memory_pool())
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20
piece = pa.array(np.ones(1 << 17))  # 1 MiB
before = resident()
arrays = [pa.concat_arrays([piece]) for _ in range(100)]  # 100 MiB, in the main thread
held = resident()
del arrays
print(before, held, resident())
"""


def _jemalloc_built_in() -> bool:
    import pyarrow as pa

    try:
        pa.jemalloc_memory_pool()
    except NotImplementedError:
        return False
    return True


@pytest.mark.allowed_skip(reason="pyarrow without jemalloc: its default pool is used")
@pytest.mark.skipif(not _jemalloc_built_in(), reason="pyarrow without jemalloc")
def test_the_cli_has_arrows_main_arena_give_freed_pages_back_at_once():
    """100 MiB of Arrow arrays made in the main thread and freed leave the process at
    once. Without `irscore.cli`'s setting, jemalloc's main arena kept about half of
    them resident (measured: 103 -> 203 -> 155 MiB), as a 7M-line run's blocks were."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "JE_ARROW_MALLOC_CONF"}
    out = subprocess.run(
        [sys.executable, "-c", _JEMALLOC_FREED], env=env, capture_output=True, text=True, check=True
    ).stdout
    before, held, after = map(int, out.split())
    assert held - before > 90  # the arrays were resident
    assert after - before < 10  # and are gone


def test_a_users_own_jemalloc_setting_is_kept():
    import os
    import subprocess
    import sys

    env = os.environ | {"JE_ARROW_MALLOC_CONF": "dirty_decay_ms:5000"}
    code = "import os, irscore.cli; print(os.environ['JE_ARROW_MALLOC_CONF'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "dirty_decay_ms:5000"
