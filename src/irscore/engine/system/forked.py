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
import threading
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


class HeldBack:
    """Ctrl-C, SIGTERM and SIGHUP held back from here to `release`: blocked in this
    thread, and a Python handler that runs all the same only notes its signal. The
    kernel hands a process's signal to any thread that does not block it (one of
    Arrow's), and Python then runs the handler in the main thread at its next step,
    whatever that thread's mask: a fork's child was left running when one raised just
    after `os.fork` returned, before its pid was kept (CI, 1 in about 100 signals)."""

    def __init__(self) -> None:
        self.noted: list[int] = []
        self.handlers: dict[int, Callable] = {}
        self.released = False
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])  # as it is
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
            if threading.current_thread() is threading.main_thread():  # else none runs here
                for signum in ENDING:
                    handler = signal.getsignal(signum)
                    if callable(handler):
                        self.handlers[signum] = handler
                        signal.signal(signum, self._note)
        except BaseException:  # a handler ran before its note was set: nothing held
            self.release(forget=True)
            raise

    def _note(self, signum: int, frame: object) -> None:
        """Note a signal; once released, do what the handler it replaced does."""
        if self.released:
            self.handlers[signum](signum, frame)
        else:
            self.noted.append(signum)

    def release(self, *, forget: bool = False) -> None:
        """Let the signals in again, and raise each noted one (its handler runs, an
        exception comes out of here) unless `forget`. A forked child raises the notes it
        was forked with too: its parent raises them as well, and ends it."""
        self.released = True  # a note's handler interrupted midway acts as the old one
        try:
            for signum, handler in self.handlers.items():
                signal.signal(signum, handler)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if not forget:
            for signum in dict.fromkeys(self.noted):
                signal.raise_signal(signum)


def on_two_cores(work: Callable, parts: list) -> list | None:
    """[work(parts[0]), work(parts[1])], the second computed in a forked child and sent
    back with `marshal` (so it must return plain data: lists, tuples, numbers, strings,
    None); None when the child fails (an exception, or killed), for the caller to take
    another way. An exception here (Ctrl-C too) kills the child and closes the pipe,
    and then waits for it."""
    read, write = os.pipe()
    # Ctrl-C (and SIGTERM, SIGHUP, which the command line raises as it) waits until each
    # process is inside its `try`: raised between the fork and it, the child would run
    # on in this process's code, or be left running, its pid not yet kept.
    try:
        held = HeldBack()
    except BaseException:
        os.close(read)
        os.close(write)
        raise
    try:
        pid = os.fork()
    except BaseException:
        os.close(read)
        os.close(write)
        held.release()
        raise
    if pid == 0:  # the child: nothing it holds is flushed or freed at its exit
        code = 1
        try:
            held.release()
            os.close(read)
            with open(write, "wb") as pipe:
                pipe.write(marshal.dumps(work(parts[1])))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    # The read end is closed once, in `finally`, never through a file object: one closed
    # by a handler run between a file's close and the flag saying so was closed twice.
    try:
        held.release()
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
            held = HeldBack()
            try:
                _, status = os.waitpid(pid, 0)
            finally:
                held.release()
    if status != 0 or not data:
        return None
    return [first, marshal.loads(data)]


def _read_all(fd: int) -> bytes:
    """Every byte of the pipe `fd` until its writer closes it."""
    pieces = []
    while piece := os.read(fd, 1 << 20):
        pieces.append(piece)
    return b"".join(pieces)
