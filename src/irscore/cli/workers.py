"""Several runs scored on both cores: forked worker processes each read and score
whole runs, and the results come back in the runs' order.

A run's scoring is numpy's and Arrow's work in many short steps that hold
Python's lock, so threads would take turns; processes forked after the qrels
are read share them without copying. One run, or an input that is not a
regular file of moderate size (standard input, a pipe, a run of millions of
lines whose memory should not be doubled), is scored in this process.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

from irscore.cli.common import UsageError, regular_file_size, user_errors

WORKERS = 2
LARGEST = 256 << 20  # bytes of one run file scored beside another (about 5M lines)
_score: Callable[[str, bool], Any] | None = None  # what a forked worker calls (set before the fork)


def scored(score: Callable[[str, bool], Any], paths: list[str]) -> Iterator[Any]:
    """`score(path, in_worker)` of each path, in order; on `WORKERS` forked processes
    (`in_worker` True: what comes back is pickled) when there are several runs, each a
    regular file below `LARGEST` bytes. An input error in a worker is raised here with
    the worker's message."""
    if len(paths) < 2 or (os.cpu_count() or 1) < 2 or not all(map(_moderate_file, paths)):
        for path in paths:
            yield score(path, False)
        return
    import multiprocessing  # ~10 ms of start-up that one run does not need

    global _score
    _score = score
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(min(WORKERS, len(paths)), initializer=_start_worker) as pool:
            for failure, result in pool.imap(_scored_in_worker, paths):
                if failure:
                    raise UsageError(result)
                yield result
    finally:
        _score = None


def _moderate_file(path: str) -> bool:
    """True for a regular file below `LARGEST` bytes (not `-`, a pipe or a device; a path
    that cannot be read is scored here, where its error is raised as usual)."""
    size = regular_file_size(path)
    return size is not None and size < LARGEST


def _start_worker() -> None:
    """Workers leave Ctrl-C to the parent, which ends them (no traceback from each), and
    parse with one Arrow thread each: the two workers already use both cores."""
    import pyarrow as pa

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pa.set_cpu_count(1)


def _scored_in_worker(path: str) -> tuple[bool, Any]:
    """(False, result) or (True, the one-line message of an input error)."""
    assert _score is not None
    try:
        return False, _score(path, True)
    except (OSError, ValueError) as err:
        if not isinstance(err, (OSError, *user_errors())):
            raise
        return True, str(err).splitlines()[0] if str(err) else type(err).__name__
