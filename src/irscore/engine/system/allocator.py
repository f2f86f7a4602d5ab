"""glibc's malloc asked to keep freed memory while irscore works, so arrays reuse it,
or to give it back where a reader has just freed a column's worth.

The engine makes many short-lived arrays of a few MiB. By default glibc hands
such blocks back to the kernel when they are freed (mmap'd blocks, or a
trimmed heap top), so the next array faults in fresh zeroed pages, which costs
about as much as the numpy work itself on a 1M-line run. Raising the mmap and
trim thresholds for the duration of a call keeps the pages in the heap; at the
end the thresholds are set to the values glibc's own adaptive mode settles at
(32 MiB and 64 MiB), so the next free returns what lies beyond them. Without
glibc (macOS, musl) this does nothing. Arrow's own allocations go to its jemalloc
pool where it is built in (`arrow_gives_back_freed_memory`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # ctypes loads when memory is first given back or kept, not at start-up
    import ctypes

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8  # mallopt parameters (malloc.h)
_KEPT = (1 << 28, 1 << 29)  # blocks under 256 MiB from the heap; trim above 512 MiB free
_SETTLED = (1 << 25, 1 << 26)  # glibc's adaptive maxima: 32 MiB, then 2 x that
_kept = False  # freed blocks are kept now (`keep_freed_memory`)


@cache
def _libc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has mallopt and malloc_trim), else None."""
    import ctypes

    try:  # the process's own symbols: libc's, without ctypes.util's search (a subprocess)
        libc = ctypes.CDLL(None)
        libc.mallopt, libc.malloc_trim  # noqa: B018 (AttributeError without glibc)
    except (OSError, AttributeError):
        return None
    return libc


def one_arena() -> None:
    """From now on, threads that start allocating share glibc's main arena instead of
    one each. A thread's arena keeps what it freed for that thread alone, so memory
    freed by a reading thread (`irscore evaluate` reads its qrels and run on two) was
    not reused by the main thread or a forked child, and the process tree's peak held
    both. Peaks, medians of 3 to 5 interleaved calls: 100,000 one-document topics 129
    MiB -> 123, 100 TREC DL runs on two workers 131 -> 123, MS MARCO top 1,000 224 ->
    197 (v2 docnos 295 -> 261), 1M lines 151 -> 141; Robust04 116 -> 121; none slower.
    For the command line only: the API leaves a user's process as it is. Without glibc
    this does nothing."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(_M_ARENA_MAX, 1)


def keep_freed_memory() -> bool:
    """From now on, keep freed blocks (under 256 MiB) in the heap for the next arrays;
    False without glibc."""
    libc = _libc()
    if libc is None:
        return False
    global _kept
    libc.mallopt(_M_MMAP_THRESHOLD, _KEPT[0])
    libc.mallopt(_M_TRIM_THRESHOLD, _KEPT[1])
    _kept = True
    return True


@contextmanager
def freed_memory_kept() -> Iterator[None]:
    """Keep freed blocks in the heap inside the block; afterwards settle the thresholds
    as glibc's adaptive mode would, unless they were kept already (an outer block, a
    worker's whole life): those keep them."""
    global _kept
    if _kept or not keep_freed_memory():
        yield
        return
    libc = _libc()
    try:
        yield
    finally:
        libc.mallopt(_M_MMAP_THRESHOLD, _SETTLED[0])
        libc.mallopt(_M_TRIM_THRESHOLD, _SETTLED[1])
        _kept = False


@contextmanager
def reused_between_blocks() -> Iterator[None]:
    """Freed memory kept for the next block inside the block, Arrow's too (its system
    pool, glibc's heap with `freed_memory_kept`, in place of a jemalloc that returns
    freed pages at once). A reader that parses, joins and scores block after block of
    about the same size otherwise faults every block's pages in afresh: 3M lines took
    285,000 page faults and 1.2 s of system time, 60,000 and 0.4 s kept (+20 MiB)."""
    import pyarrow as pa

    before = pa.default_memory_pool()
    with freed_memory_kept():
        if _libc() is None:  # freed memory is not kept: Arrow keeps its own pool
            yield
            return
        pa.set_memory_pool(pa.system_memory_pool())
        try:
            yield
        finally:
            pa.set_memory_pool(before)


def give_back_freed_memory() -> None:
    """Return the heap's free pages to the kernel (glibc's `malloc_trim`). A reader that
    copies a column out of its blocks and frees them would otherwise keep both in its
    resident memory: glibc keeps freed heap blocks for reuse, and the next column's
    arrays come from elsewhere. Without glibc this does nothing."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def arrow_gives_back_freed_memory() -> None:
    """Arrow's jemalloc pool, which returns freed pages at once (its decay is set to 0
    where `irscore.cli` starts), for `irscore evaluate`'s reading: one pass over big
    inputs keeps its peak resident memory close to what is live (mimalloc, the default,
    keeps freed blocks); the default stays where jemalloc is not built in."""
    from contextlib import suppress

    import pyarrow as pa

    with suppress(NotImplementedError):
        pa.set_memory_pool(pa.jemalloc_memory_pool())
