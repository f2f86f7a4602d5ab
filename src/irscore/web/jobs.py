"""Jobs of the page, run in worker processes so that long work never blocks the rest.

Two worker processes: one for what answers at once (Metrics, One ranking, the
pooled collection), one for what can take long (Compare with many resamples,
Interleaving with many impressions). A job is submitted, gets an id, and the
page asks for its state until it is done: while it runs, how long it has run
and which of its irscore commands it runs now (the page shows both as its
progress). The server's own thread never computes.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irscore.web import worker

KEPT = 64  # finished jobs kept for the page to collect


@dataclass
class Job:
    """One submitted job: its kind, when it started, and its future result."""

    kind: str
    future: Future
    progress: Path
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None

    def step(self) -> tuple[int, str]:
        """(number, command) of the command the job runs now; (0, "") before the first."""
        try:
            number, _, command = self.progress.read_text("utf-8").partition("\t")
        except OSError:
            return 0, ""
        return (int(number), command) if number.isdigit() else (0, "")

    def forget(self) -> None:
        self.progress.unlink(missing_ok=True)


class Jobs:
    """The worker processes and the jobs submitted to them."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a threaded server
        self._pools = {
            lane: ProcessPoolExecutor(1, mp_context=context, initializer=worker.start)
            for lane in ("quick", "long")
        }
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def submit(self, kind: str, request: dict[str, Any]) -> str:
        """Start a job; its id."""
        if kind not in worker.JOBS:
            raise KeyError(kind)
        lane = "long" if kind in worker.LONG else "quick"
        handle, name = tempfile.mkstemp(prefix="irscore-serve-progress-")
        os.close(handle)
        future = self._pools[lane].submit(worker.run, kind, request, name)
        with self._lock:
            key = str(next(self._ids))
            job = self._jobs[key] = Job(kind, future, Path(name))
            future.add_done_callback(lambda _: self._finished(job))
            while len(self._jobs) > KEPT:
                oldest = next(iter(self._jobs))
                if not self._jobs[oldest].future.done():
                    break
                del self._jobs[oldest]
        return key

    @staticmethod
    def _finished(job: Job) -> None:
        job.finished = time.monotonic()
        job.forget()

    def state(self, key: str) -> dict[str, Any] | None:
        """{state: running, seconds} or {state: done, ok | error, seconds}; None: no such job."""
        with self._lock:
            job = self._jobs.get(key)
        if job is None:
            return None
        if not job.future.done():
            number, command = job.step()
            return {
                "state": "running",
                "kind": job.kind,
                "seconds": _since(job.started),
                "step": number,
                "command": command,
            }
        seconds = round((job.finished or time.monotonic()) - job.started, 3)
        try:
            result = job.future.result()
        except Exception as err:  # a bug, or a worker that died: said, not hidden
            result = {"error": {"message": f"the job failed: {err!r}", "field": None}}
        return {"state": "done", "kind": job.kind, "seconds": seconds, **result}

    def warm(self) -> None:
        """Start both workers now (each loads irscore once) rather than at the first job."""
        for pool in self._pools.values():
            pool.submit(worker.warm)

    def close(self) -> None:
        """Stop the workers now: at once when idle, and a job still running is ended
        (its page is gone too)."""
        with self._lock:
            running = any(not job.future.done() for job in self._jobs.values())
        for pool in self._pools.values():
            if not running:
                pool.shutdown(wait=True, cancel_futures=True)
                continue
            workers = list(getattr(pool, "_processes", {}).values())  # no public handle
            pool.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                process.terminate()
                process.join(timeout=5)
        with self._lock:
            for job in self._jobs.values():
                job.forget()


def _since(start: float) -> float:
    return round(time.monotonic() - start, 1)
