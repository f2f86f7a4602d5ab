"""Several runs scored on both cores: forked worker processes each read and score
whole runs, and the results come back in the runs' order.

A run's scoring is numpy's and Arrow's work in many short steps that hold
Python's lock, so threads would take turns; processes forked after the qrels
are read share them without copying. One run, or an input that is not a
regular file of moderate size (standard input, a pipe, a run of millions of
lines whose memory should not be doubled), is scored in this process.

The workers write their texts into one shared temporary file (`Spool`), each at
the place it reserves, and send back only where: this process would otherwise
receive, unpickle, store and read again every byte (15 MB for 100 TREC DL runs
under -q), on a third process beside the two busy cores.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from irscore.cli.common import UsageError, user_errors
from irscore.cli.endings import OUT_OF_MEMORY, default_termination
from irscore.engine.reading.streams import regular_file_size
from irscore.engine.system.forked import ENDING, HeldBack

WORKERS = 2
LARGEST = 256 << 20  # bytes of one run file scored beside another (about 5M lines)
READ_BACK = 1 << 20  # bytes of the spool read at a time
POLL = 0.5  # seconds between looks at whether a worker died, while waiting for one
# what a forked worker calls, and where it writes (set before the fork)
_score: Callable[[str, Spool | None], Any] | None = None
# several runs at once, given their sizes (`folded_runs`)
_batch: Callable[[list[str], list[int], Spool], list] | None = None
_spool: Spool | None = None
_started: Any = None  # how many workers have started (a shared counter)


class Spool:
    """An unlinked temporary file (nothing is left behind, whatever happens) that forked
    workers write texts into side by side: each reserves its place under a shared
    counter, then writes there on its own."""

    def __init__(self, context: Any):
        self.context = context  # multiprocessing's, for forking the workers
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `read_back` or `close`)
        self.end = context.Value("q", 0)  # the bytes reserved so far

    def close(self) -> None:
        """Close (and so remove) the file, when nothing will be read back."""
        self.file.close()

    def put(self, data: bytes) -> tuple[int, int]:
        """Write `data` at a place of its own (in a worker); (where, how many bytes)."""
        with self.end.get_lock():
            at = self.end.value
            self.end.value = at + len(data)
        view, written = memoryview(data), 0
        while written < len(data):
            written += os.pwrite(self.file.fileno(), view[written:], at + written)
        return at, len(data)

    def read_back(self, places: list[tuple[int, int] | bytes]) -> Iterator[bytes]:
        """The texts at `places`, in their order, in blocks (a place that is bytes is
        that text, written here: a run's heading); then the file is closed."""
        with self.file:
            for place in places:
                if isinstance(place, bytes):
                    yield place
                    continue
                at, size = place
                end = at + size
                while at < end:
                    block = os.pread(self.file.fileno(), min(READ_BACK, end - at), at)
                    if not block:
                        raise OSError(f"the spool ended at {at} of {end} bytes")
                    at += len(block)
                    yield block


def spool_for(paths: list[str]) -> Spool | None:
    """A `Spool` when `scored` will score these runs on workers: several runs, each a
    regular file below `LARGEST` bytes, and two cores; None when it scores them here.
    The caller reads it back or closes it."""
    if len(paths) < 2 or (os.cpu_count() or 1) < 2 or not all(map(_moderate_file, paths)):
        return None
    import multiprocessing  # ~10 ms of start-up that one run does not need

    return Spool(multiprocessing.get_context("fork"))


def scored(
    score: Callable[[str, Spool | None], Any],
    paths: list[str],
    spool: Spool | None,
    batch: Callable[[list[str], list[int], Spool], list] | None = None,
) -> Iterator[Any]:
    """`score(path, spool)` of each path, in order: with a spool (`spool_for`), on
    `WORKERS` forked processes (what comes back is pickled; large texts go into the
    spool); without, here. With `batch`, a worker scores small runs a batch at a time
    (`folded_runs.batches`, made by the sizes read here, which `batch` is given), by
    `score` each when the batch fails. An input error in a worker, or its memory running
    out, is raised here with the worker's message; a worker killed is an error too."""
    if spool is None:
        for path in paths:
            yield score(path, None)
        return
    global _score, _batch, _spool, _started
    _score, _batch, _spool, _started = score, batch, spool, spool.context.Value("i", 0)
    groups = [([path], [0]) for path in paths]  # one run a group: scored alone, size unread
    if batch is not None:
        from irscore.cli.folded_runs import batches

        groups = batches(paths, [regular_file_size(path) or 0 for path in paths], WORKERS)
    workers = min(WORKERS, len(groups))
    # Ctrl-C, SIGTERM and SIGHUP held back while the pool forks: a worker (and the pool's
    # threads, which fork its replacements) start with them blocked, and each worker lets
    # them in only once its own handlers are set; else one arriving between the fork and
    # the initializer raised this process's exception in the worker (a hang, seen once).
    # Here they are let in once the pool is one that `with` ends.
    held = HeldBack()
    try:
        pool = spool.context.Pool(workers, initializer=_start_worker)
    except BaseException:
        held.release()
        raise
    try:
        with pool:
            held.release()
            results = pool.imap(_batch_in_worker, groups)
            for _ in groups:
                for failure, result in _next(results, workers):
                    if failure:
                        raise UsageError(result)
                    yield result
    finally:
        _score, _batch, _spool, _started = None, None, None, None


def _next(results: Any, workers: int) -> list[tuple[bool, Any]]:
    """The next result; an error when a worker died on the way (killed: the pool starts
    another in its place, and the run it was scoring would never come back)."""
    import multiprocessing  # loaded already: the pool is running

    while True:
        try:
            return results.next(timeout=POLL)
        except multiprocessing.TimeoutError:
            if _started is not None and _started.value > workers:
                raise UsageError(f"a worker process was killed (perhaps {OUT_OF_MEMORY})") from None


def _moderate_file(path: str) -> bool:
    """True for a regular file below `LARGEST` bytes (not `-`, a pipe or a device; a path
    that cannot be read is scored here, where its error is raised as usual)."""
    size = regular_file_size(path)
    return size is not None and size < LARGEST


def _start_worker() -> None:
    """Workers leave Ctrl-C to the parent, which ends them (no traceback from each), and
    parse with one Arrow thread each: the two workers already use both cores. A worker
    scores run after run of about the same size, so it keeps the memory each frees for
    the next (Arrow's arrays too, from glibc's heap): returned to the kernel at once, as
    the parent's allocators do for one large run, every run faulted its ~1,200-1,800
    pages in again, a quarter of a TREC DL run's time (100 runs: 0-2 faults a run and
    1.29 s against 1.55 s, medians of 9 paired calls; peak 61 MiB a worker, 56 before)."""
    import pyarrow as pa

    from irscore.engine.system.allocator import keep_freed_memory

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    default_termination()  # the parent ends its workers with SIGTERM: no traceback
    signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)  # held back across the fork
    if _started is not None:
        with _started.get_lock():
            _started.value += 1
    pa.set_cpu_count(1)
    if keep_freed_memory():
        pa.set_memory_pool(pa.system_memory_pool())


def _batch_in_worker(group: tuple[list[str], list[int]]) -> list[tuple[bool, Any]]:
    """Each run's (False, result), up to the first (True, message) of an input error: a
    batch (its paths, their sizes) scored at once, or, for one run or when the batch
    fails, run by run (which reports a run's error as it would alone)."""
    paths, sizes = group
    if _batch is not None and _spool is not None and len(paths) > 1:
        try:
            return [(False, result) for result in _batch(paths, sizes, _spool)]
        except (OSError, ValueError, MemoryError) as err:
            if not isinstance(err, (OSError, MemoryError, *user_errors())):
                raise
    done = []
    for path in paths:
        done.append(_scored_in_worker(path))
        if done[-1][0]:
            break
    return done


def _scored_in_worker(path: str) -> tuple[bool, Any]:
    """(False, result) or (True, the one-line message of an input error)."""
    assert _score is not None
    try:
        return False, _score(path, _spool)
    except MemoryError:
        return True, OUT_OF_MEMORY
    except (OSError, ValueError) as err:
        if not isinstance(err, (OSError, *user_errors())):
            raise
        return True, str(err).splitlines()[0] if str(err) else type(err).__name__
