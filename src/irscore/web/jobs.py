"""Jobs of the page, run in worker processes so that long work never blocks the rest.

Two lanes, each one worker process and the jobs that wait for it: one for what
answers at once (Metrics, One ranking, the pooled collection), one for what can
take long (Compare with many resamples, Interleaving with many impressions). A
job is submitted, gets an id, and the page asks for its state until it is done:
while it waits, its place in its lane's queue; while it runs, how long it has run
and which of its irscore commands it runs now. The server's own thread never
computes.

The server heals and bounds itself:
- a job's inputs live in a private folder of its own (mode 0700, in one folder of
  the server's), written when the job is accepted and removed when it ends,
  however it ends (done, refused, cancelled, its worker killed), and the server's
  folder at shutdown; the server holds no input in memory while a job waits;
- at most `WAITING` jobs wait for each worker, and the jobs not yet done hold at
  most `held` bytes of input: past either, `Busy` (the page's 503);
- a worker that dies (killed, out of memory) fails its job with a message and is
  replaced; the next job runs on the new one;
- a job can be cancelled: a waiting one leaves its queue, a running one's worker
  is ended (with every process it forked) and replaced.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from irscore.web import worker
from irscore.web.security import size_text

KEPT = 64  # finished jobs kept for the page to collect
WAITING = 8  # jobs that may wait for one worker
RETRY_AFTER = 10  # seconds after which a refused request may be made again
LANES = {
    "quick": "Metrics, One ranking and the pooled collection",
    "long": "Compare and Interleaving",
}
CANCELLED = "cancelled: its worker process was ended (a new one takes the next job)"


class Busy(Exception):
    """A job refused because too much work waits already: the message says why."""


@dataclass(eq=False)
class Job:
    """One submitted job: its kind, settings, folder, times and, once done, its answer."""

    kind: str
    lane: str
    request: dict[str, Any]
    folder: Path
    size: int  # bytes of the request, its inputs
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    answer: dict[str, Any] | None = None
    cancelled: bool = False

    def step(self) -> tuple[int, str]:
        """(number, command) of the command the job runs now; (0, "") before the first."""
        try:
            text = (self.folder / worker.PROGRESS_FILE).read_text("utf-8")
        except OSError:
            return 0, ""
        number, _, command = text.partition("\t")
        return (int(number), command) if number.isdigit() else (0, "")


class Worker:
    """One worker process (`worker.serve`) and the pipe to it."""

    def __init__(self, context: Any, root: Path) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=worker.serve, args=(theirs, str(root)))
        self.process.start()
        theirs.close()
        self.ended = False  # reaped by `end`

    def alive(self) -> bool:
        """False once the worker has exited (it is not reaped here: `end` does that)."""
        return not wait([self.process.sentinel], timeout=0)

    def run(self, job: Job) -> tuple[bool, dict[str, Any] | None]:
        """(taken, answer): whether the worker took the job (it says so first), and its
        answer, None when the worker died before it answered."""
        taken = False
        try:
            self.connection.send((job.kind, job.request, str(job.folder)))
            taken = self._next() is True
            return taken, self._next()
        except (EOFError, OSError):
            return taken, None

    def _next(self) -> Any:
        """The worker's next message; EOFError when it died instead."""
        if self.connection not in wait([self.connection, self.process.sentinel]):
            raise EOFError
        return self.connection.recv()

    def kill(self) -> None:
        """End the worker and every process it forked (its process group) now; nothing
        once `end` has reaped it (its number may then be another process's)."""
        if self.ended:
            return
        for end in (lambda: os.killpg(self.process.pid, signal.SIGKILL), self.process.kill):
            try:
                end()
            except (ProcessLookupError, PermissionError):
                continue  # not yet the leader of its group: the process alone
            return

    def end(self) -> str:
        """Kill the worker (if it still runs) and reap it; how it ended, in words."""
        self.kill()
        self.process.join()
        self.connection.close()
        self.ended = True
        code = self.process.exitcode or 0
        if code == -signal.SIGKILL:
            return "killed by SIGKILL: out of memory, or ended from outside"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exit status {code}"


class Lane:
    """One worker and the jobs waiting for it, run one at a time by a thread of the server."""

    def __init__(self, name: str, context: Any, root: Path, lock: threading.Lock) -> None:
        self.name, self.context, self.root = name, context, root
        self.waiting: deque[Job] = deque()
        self.current: Job | None = None
        self.closed = False
        self.ready = threading.Condition(lock)
        self.worker = Worker(context, root)
        self.thread = threading.Thread(target=self._serve, name=f"irscore-{name}", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        """Run the waiting jobs in turn, a worker that died replaced; once closed, end
        the worker (the only thread that reaps it)."""
        while True:
            with self.ready:
                while not self.waiting and not self.closed:
                    self.ready.wait()
                if self.closed:
                    break
                job = self.current = self.waiting.popleft()
                job.started = time.monotonic()
                self._heal()  # killed while idle
                running = self.worker
            for _ in range(2):  # once more, on a new worker, if one died before it took it
                taken, answer = running.run(job)
                if taken or job.cancelled:
                    break
                running.end()  # dead or dying: reaped, so that it is replaced
                with self.ready:
                    self._heal()
                    running = self.worker
            if answer is None:
                how = running.end()
                answer = worker.failed(
                    f"the worker process running this job ended ({how}); "
                    "a new one takes the next job"
                )
            if job.cancelled:
                answer = worker.failed(CANCELLED)
            with self.ready:
                self.current = None
                finish(job, answer)
                self._heal()
        self.worker.end()

    def _heal(self) -> None:
        """A new worker in place of one that died (under the lock); none once closed."""
        if not self.closed and not self.worker.alive():
            self.worker.end()
            self.worker = Worker(self.context, self.root)


def finish(job: Job, answer: dict[str, Any]) -> None:
    """The job is done: its folder removed, then its answer given (under the lock)."""
    shutil.rmtree(job.folder, ignore_errors=True)
    job.answer = answer
    job.finished = time.monotonic()


class Jobs:
    """The worker processes and the jobs submitted to them."""

    def __init__(self, held: int) -> None:
        self.held = held  # bytes of input that jobs not yet done may hold
        self.root = Path(tempfile.mkdtemp(prefix="irscore-serve-"))
        context = multiprocessing.get_context("spawn")  # no fork of a threaded server
        self._lock = threading.Lock()
        self._lanes = {name: Lane(name, context, self.root, self._lock) for name in LANES}
        self._jobs: OrderedDict[str, Job] = OrderedDict()

    def submit(self, kind: str, request: dict[str, Any], size: int) -> str:
        """Accept a job of `size` bytes (its inputs written into a folder of its own);
        its id. `Busy` when too much waits already."""
        lane = _lane(kind)
        busy = self.refusal(kind, size)  # before anything is written
        if busy:
            raise Busy(busy)
        self.root.mkdir(mode=0o700, exist_ok=True)  # removed meanwhile (a /tmp cleaner)
        folder = Path(tempfile.mkdtemp(prefix="job-", dir=self.root))
        try:
            settings = worker.write_inputs(request, folder)
            job = Job(kind, lane, settings, folder, size)
            with self._lock:
                busy = self._full(lane, size)  # again: other jobs came meanwhile
                if busy:
                    raise Busy(busy)
                key = secrets.token_hex(8)
                self._jobs[key] = job
                self._lanes[lane].waiting.append(job)
                self._lanes[lane].ready.notify()
                self._forget_old()
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return key

    def refusal(self, kind: str, size: int) -> str | None:
        """Why a job of `kind` and `size` bytes would be refused now; None: it has room."""
        with self._lock:
            return self._full(_lane(kind), size)

    def _full(self, lane: str, size: int) -> str | None:
        """Why the lane's queue or the bytes held have no room for one more job (under
        the lock); None: they have."""
        waiting = len(self._lanes[lane].waiting)
        if waiting >= WAITING:
            return (
                f"the server is busy: {waiting} jobs wait already for the worker of "
                f"{LANES[lane]}; try again in {RETRY_AFTER} s, or cancel one"
            )
        held = sum(job.size for job in self._jobs.values() if job.finished is None)
        if held + size > self.held:
            return (
                f"the server is busy: the jobs not yet done hold {size_text(held)} of input, "
                f"and this one's {size_text(size)} would pass the {size_text(self.held)} it "
                f"keeps; try again in {RETRY_AFTER} s, or cancel one"
            )
        return None

    def _forget_old(self) -> None:
        """Keep the last KEPT finished jobs (and every one not finished)."""
        done = [key for key, job in self._jobs.items() if job.finished is not None]
        for key in done[: max(0, len(done) - KEPT)]:
            del self._jobs[key]

    def state(self, key: str) -> dict[str, Any] | None:
        """{state: queued, place}, {state: running, step, command} or {state: done,
        ok | error}, each with its kind and seconds; None: no such job."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                return None
            lane = self._lanes[job.lane]
            seen = {"kind": job.kind}
            if job.answer is not None:
                seconds = (job.finished or 0) - (job.started or job.submitted)
                cancelled = {"cancelled": True} if job.cancelled else {}
                return {"state": "done", **seen, "seconds": round(seconds, 3), **cancelled,
                        **job.answer}  # fmt: skip
            if job.started is None:
                place = next(i for i, other in enumerate(lane.waiting, 1) if other is job)
                return {"state": "queued", **seen, "seconds": _since(job.submitted), "place": place}
        number, command = job.step()
        return {"state": "running", **seen, "seconds": _since(job.started), "step": number,
                "command": command}  # fmt: skip

    def cancel(self, key: str) -> dict[str, Any] | None:
        """Cancel the job: a waiting one leaves its queue, a running one's worker is
        ended (and replaced); its state, None: no such job."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                return None
            lane = self._lanes[job.lane]
            if job.answer is None:
                job.cancelled = True
                if job.started is None:
                    lane.waiting.remove(job)
                    job.started = job.submitted
                    finish(job, worker.failed(CANCELLED))
                elif lane.current is job:
                    lane.worker.kill()  # the lane's thread reaps it and starts another
        return self.state(key)

    def close(self) -> None:
        """Stop the workers now (a job still running is ended: its page is gone too)
        and remove every job's folder."""
        with self._lock:
            for lane in self._lanes.values():
                lane.closed = True
                lane.ready.notify_all()
                lane.worker.kill()  # its thread reaps it, and ends
        for lane in self._lanes.values():
            lane.thread.join(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


def _lane(kind: str) -> str:
    """The lane of a job of `kind` (KeyError: no such job)."""
    return "long" if worker.JOBS[kind] and kind in worker.LONG else "quick"


def _since(start: float) -> float:
    return round(time.monotonic() - start, 1)
