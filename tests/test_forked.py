"""`irscore.engine.system.forked`: half the work in a forked child, its result or None back, and
no child left behind whatever happens on either side."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from irscore.engine.system import forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture(autouse=True)
def no_hang():
    """A call that waits forever on a child fails the test after 20 s instead."""

    def stop(*_):
        raise TimeoutError("on_two_cores did not return")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_each_part_is_done_and_the_second_in_another_process():
    parent = os.getpid()
    got = forked.on_two_cores(lambda part: (part * 10, os.getpid()), [1, 2])
    assert got is not None
    (first, first_pid), (second, second_pid) = got
    assert (first, second) == (10, 20)
    assert first_pid == parent and second_pid != parent
    with pytest.raises(ChildProcessError):
        os.waitpid(second_pid, os.WNOHANG)  # already reaped


def test_a_large_result_comes_back_whole():
    text = "x" * (3 << 20)  # far more than a pipe holds at once
    assert forked.on_two_cores(lambda part: [part, text], [0, 1]) == [[0, text], [1, text]]


def test_a_child_that_fails_or_dies_gives_none():
    def fails(part: int) -> int:
        if part == 1:
            raise ValueError("the child's error")
        return part

    def dies(part: int) -> int:
        if part == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return part

    assert forked.on_two_cores(fails, [0, 1]) is None
    assert forked.on_two_cores(dies, [0, 1]) is None
    assert forked.on_two_cores(lambda part: object(), [0, 1]) is None  # marshal refuses it


def test_an_error_here_ends_the_child_and_is_raised():
    """The child blocks writing a result larger than the pipe holds: closing the pipe
    ends it, so that waiting for it returns."""
    pids = []

    def work(part: int) -> str:
        if part == 0:
            raise KeyError("here")
        return "y" * (4 << 20)

    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        pids.append(pid)
        return pid

    with pytest.MonkeyPatch.context() as m:
        m.setattr(os, "fork", fork)
        with pytest.raises(KeyError):
            forked.on_two_cores(work, [0, 1])
    with pytest.raises(ChildProcessError):
        os.waitpid(pids[0], os.WNOHANG)  # reaped, not a zombie


def test_possible_needs_two_cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert forked.possible()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    assert not forked.possible()


def test_an_error_here_does_not_wait_for_the_childs_work():
    """The child would work for a minute; the error here kills it, so the call raises at
    once (the 20 s alarm fails the test otherwise)."""

    def work(part: int) -> int:
        if part == 0:
            raise KeyError("here")
        time.sleep(60)
        return part

    started = time.monotonic()
    with pytest.raises(KeyError):
        forked.on_two_cores(work, [0, 1])
    assert time.monotonic() - started < 10


def blocked() -> set:
    """The signals this thread holds back."""
    return signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_ctrl_c_is_held_back_across_the_fork(monkeypatch):
    """SIGINT is blocked when the fork happens (a Ctrl-C then would reach the child
    before its `try`, and it would run on in the parent's code), and unblocked again
    on both sides once they are inside it."""
    at_fork, real_fork = [], os.fork

    def fork() -> int:
        at_fork.append(signal.SIGINT in blocked())
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    got = forked.on_two_cores(lambda part: signal.SIGINT in blocked(), [0, 1])
    assert at_fork == [True] and got == [False, False]
    assert signal.SIGINT not in blocked()


class Ended(BaseException):
    """What the test's SIGTERM handler raises (as the command line's `Terminated`)."""


def running_or_unreaped(pid: int) -> bool:
    """True while `pid` is this process's child, running or a zombie not yet waited for."""
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def test_a_signal_given_to_another_thread_just_after_the_fork_ends_the_child(monkeypatch):
    """The kernel hands a signal that the main thread blocks to a thread that does not
    (one of Arrow's); Python then runs the handler in the main thread at its next step,
    here just after `os.fork` returned, before its pid was kept. The handler's exception
    comes out of the call all the same, once the child is killed and reaped (it would
    have slept 60 s: before the fix it was left running)."""
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(Ended()))
    idle = threading.Event()
    other = threading.Thread(target=idle.wait)  # started here: it blocks no signal
    other.start()
    children, real_fork = [], os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
            signal.pthread_kill(other.ident, signal.SIGTERM)
            for _ in range(100_000):  # steps at which the main thread runs handlers
                pass
        return pid

    monkeypatch.setattr(os, "fork", fork)
    try:
        with pytest.raises(Ended):
            forked.on_two_cores(lambda part: time.sleep(60 * part), [0, 1])
    finally:
        signal.signal(signal.SIGTERM, previous)
        idle.set()
        other.join()
    assert children and not running_or_unreaped(children[0])
    assert signal.SIGTERM not in blocked()


def test_held_back_notes_a_signal_and_raises_it_at_release():
    """Held: a SIGTERM that another thread takes runs no handler; released, the handler
    runs once, and the handlers and the mask are as they were."""
    calls = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _: calls.append(signum))
    idle = threading.Event()
    other = threading.Thread(target=idle.wait)
    other.start()
    try:
        before = (blocked(), {s: signal.getsignal(s) for s in forked.ENDING})
        held = forked.HeldBack()
        assert blocked() >= forked.ENDING
        signal.pthread_kill(other.ident, signal.SIGTERM)
        signal.pthread_kill(other.ident, signal.SIGTERM)
        time.sleep(0.05)
        for _ in range(100_000):
            pass
        assert calls == [] and held.noted
        held.release()
        assert calls == [signal.SIGTERM]
        assert (blocked(), {s: signal.getsignal(s) for s in forked.ENDING}) == before
    finally:
        signal.signal(signal.SIGTERM, previous)
        idle.set()
        other.join()
