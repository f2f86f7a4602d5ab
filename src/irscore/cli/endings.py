"""How a command ends when something other than its input stops it: Ctrl-C, a
termination signal (SIGTERM, SIGHUP) or memory running out each end with one line on
stderr and a documented exit status (docs/troubleshooting.md), never a traceback.

A termination signal becomes `Terminated`, raised in the main thread as Ctrl-C's
KeyboardInterrupt is, so every `finally` and `except BaseException` on the way out
runs: forked children are ended and waited for, temporary files closed (removed).
"""

from __future__ import annotations

import signal
import sys

from irscore.engine.system.forked import ENDING

OUT_OF_MEMORY = "the input needs more memory than is available"


class Terminated(BaseException):
    """A termination signal arrived: the command stops as at Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def catch_termination() -> None:
    """SIGTERM and SIGHUP raise `Terminated` from here on (left alone where ignored, as
    under nohup)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, _terminate)


def default_termination() -> None:
    """SIGTERM and SIGHUP end this process at once (a worker that its parent ends)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def ending(error: BaseException) -> tuple[str, int] | None:
    """The one line and the exit status for an error that stops a command from outside
    its input, or None for any other."""
    if isinstance(error, KeyboardInterrupt):
        return "irscore: interrupted", 128 + signal.SIGINT
    if isinstance(error, Terminated):
        return f"irscore: terminated ({signal.Signals(error.signum).name})", 128 + error.signum
    if isinstance(error, MemoryError):  # numpy's _ArrayMemoryError, Arrow's ArrowMemoryError
        return f"irscore: error: {OUT_OF_MEMORY}", 2
    if _no_thread(error):
        return f"irscore: error: {OUT_OF_MEMORY} (a thread could not start)", 2
    return None


def _no_thread(error: BaseException) -> bool:
    """True when Python or Arrow could not start a thread (no memory for its stack, or
    the limit on processes reached)."""
    text = str(error)
    if isinstance(error, RuntimeError) and text == "can't start new thread":
        return True
    arrow = sys.modules.get("pyarrow")
    return (
        arrow is not None
        and isinstance(error, arrow.ArrowException)
        and "Failed to launch worker thread" in text
    )


def hold_termination() -> None:
    """Ignore Ctrl-C, SIGTERM and SIGHUP while the command says why it stopped."""
    for signum in ENDING:
        signal.signal(signum, signal.SIG_IGN)
