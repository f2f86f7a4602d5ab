"""Work split over both cores by `os.fork`, for work that the GIL keeps on one core
(the plain-Python path, and one run's chunks of topics, `irscore.cli.halves`): a
forked child does half of it while this process does the other half. Forking needs
no import (`multiprocessing` costs ~10 ms of start-up, a tenth of a small run's
whole time) and copies nothing until a page is written.
"""

from __future__ import annotations

import marshal
import os
import signal
from collections.abc import Callable

# The scoring work (topics x values, about microseconds) from which a second process
# pays for its fork and for reading every line again: 290 topics x 188 values (BEIR's
# shape, -q -m all_trec) took 12 ms less of 103; 43 x 188 over 43,000 lines, none.
WORTH_IT = 20_000
# The signals that stop a command (`irscore.cli.endings`), held back across the fork.
ENDING = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def possible() -> bool:
    """True where `os.fork` exists and this process may use two cores."""
    if not hasattr(os, "fork"):
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


def on_two_cores(work: Callable, parts: list) -> list | None:
    """[work(parts[0]), work(parts[1])], the second computed in a forked child and sent
    back with `marshal` (so it must return plain data: lists, tuples, numbers, strings,
    None); None when the child fails (an exception, or killed), for the caller to take
    another way. An exception here (Ctrl-C too) kills the child and closes the pipe,
    and then waits for it."""
    read, write = os.pipe()
    # Ctrl-C (and SIGTERM, SIGHUP, which the command line raises as it) waits until each
    # process is inside its `try`: delivered between the fork and it, the child would
    # run on in this process's code, or be left unreaped.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # the child: nothing it holds is flushed or freed at its exit
        code = 1
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            os.close(read)
            with open(write, "wb") as pipe:
                pipe.write(marshal.dumps(work(parts[1])))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    # The read end is closed once, in `finally`, never through a file object: a handler
    # can run between any two steps even while this thread holds the signals back (the
    # kernel hands a process's signal to a thread that does not, one of Arrow's), and one
    # run between a file's close and a flag saying so closed the descriptor twice.
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        first = work(parts[0])
        data = _read_all(read)
    except BaseException:
        os.kill(pid, signal.SIGKILL)  # its result will not be read: its work is not waited for
        raise
    finally:
        try:
            os.close(read)
        finally:
            # the child has sent all (or was killed): reaped before a signal is let in,
            # which raised inside waitpid would leave it a zombie
            signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
            try:
                _, status = os.waitpid(pid, 0)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if status != 0 or not data:
        return None
    return [first, marshal.loads(data)]


def _read_all(fd: int) -> bytes:
    """Every byte of the pipe `fd` until its writer closes it."""
    pieces = []
    while piece := os.read(fd, 1 << 20):
        pieces.append(piece)
    return b"".join(pieces)
