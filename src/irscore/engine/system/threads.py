"""Helper threads that leave Ctrl-C to the main thread.

The system hands a process's SIGINT to any of its threads that does not block it,
and Python acts on it only in the main thread: one that lands on a helper is
acted on once the main thread next runs Python code, and never while it sleeps in
a read of a pipe. So the threads this package starts block SIGINT, and work is
put on them beside a read only when every input is a regular file.
"""

from __future__ import annotations

import signal
import threading
from concurrent.futures import ThreadPoolExecutor

_HELPER = threading.local()


def pool(workers: int) -> ThreadPoolExecutor:
    """A thread pool whose threads block SIGINT."""
    return ThreadPoolExecutor(workers, initializer=_started)


def on_helper() -> bool:
    """True in a thread of `pool`: its work is already one part of several side by side,
    so splitting it again onto more threads than cores only adds copies and switches."""
    return getattr(_HELPER, "started", False)


def _started() -> None:
    """A helper's first step: SIGINT blocked, and the thread marked as a helper."""
    block_interrupts()
    _HELPER.started = True


def block_interrupts() -> None:
    """Block SIGINT in the calling thread (each helper's first step)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
