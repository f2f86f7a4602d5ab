"""`irscore serve` under faults: a worker killed, a full queue, a cancelled job, bodies
that are too large or malformed, shutdown with work in hand. The server heals, says
why, and leaves no process and no user data behind.

Each server runs in a subprocess with a TMPDIR of its own, so that what it leaves on
disk can be seen; the long job that holds a worker is Interleaving with 1,000,000
impressions (tens of seconds), always cancelled or killed before it ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from web_server import IRSCORE, done, job, request, serving

from irscore.web import presets

pytestmark = pytest.mark.slow  # a server per test: about two minutes in all
DATA = presets.PRESETS["interleave"]["data"]  # six topics: runs A and B
LONG = {**DATA, "imps": "1000000"}
NOT_READ = "the request is not JSON that the workbench reads"
BUSY = "the server is busy: 8 jobs wait already for the worker of Compare and Interleaving"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """(address, TMPDIR) of one server for the tests that leave it as they found it."""
    tmp = tmp_path_factory.mktemp("shared")
    with serving(tmp=tmp) as (url, _):
        yield url, tmp


def children(pid: int) -> set[int]:
    """The processes the server started (from any of its threads)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def running(url: str, body: dict = LONG, kind: str = "interleave") -> str:
    """Start a long job and wait until its command runs; its id."""
    status, _, started = request(url, f"/api/jobs/{kind}", body)
    assert status == 200, started
    deadline = time.monotonic() + 60
    while request(url, f"/api/jobs/{started['id']}")[2].get("step", 0) < 1:
        assert time.monotonic() < deadline, "the long job did not start"
        time.sleep(0.05)
    return started["id"]


def busy_worker(server: int) -> tuple[int, Path]:
    """(pid, job folder) of the worker that runs a job: its working folder is the job's."""
    for pid in children(server):
        with contextlib.suppress(OSError):
            folder = Path(os.readlink(f"/proc/{pid}/cwd"))
            if folder.name.startswith("job-"):
                return pid, folder
    raise AssertionError("no worker runs a job")


def gone(pid: int, seconds: float = 10) -> bool:
    """True once process `pid` has ended and been reaped (no zombie either)."""
    deadline = time.monotonic() + seconds
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def folders(tmp: Path) -> list[str]:
    """Everything under the server's TMPDIR, relative to it."""
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


def cancel(url: str, key: str) -> dict:
    status, _, state = request(url, f"/api/jobs/{key}", method="DELETE")
    assert status == 200, state
    return state


def test_a_killed_worker_is_replaced_and_the_next_job_runs(tmp_path):
    """kill -9 of the busy worker (what the out-of-memory killer does): its job says so,
    its folder goes, and the next Compare and Interleaving jobs run on a new worker."""
    with serving(tmp=tmp_path) as (url, server):
        key = running(url)
        pid, folder = busy_worker(server.pid)
        os.kill(pid, signal.SIGKILL)
        failed = done(url, key)
        assert failed["error"]["message"] == (
            "the worker process running this job ended (killed by SIGKILL: out of memory, "
            "or ended from outside); a new one takes the next job"
        )
        assert gone(pid) and not folder.exists()
        assert "ok" in job(url, "compare", {**DATA, "metric": "map"})
        assert job(url, "interleave", DATA)["ok"]["figures"]["wins_a"] is not None
        # and a worker killed while idle is replaced as well
        idle = children(server.pid) - {os.getpid()}
        for pid in idle:
            if Path(f"/proc/{pid}/cmdline").read_bytes().find(b"spawn_main") > 0:
                os.kill(pid, signal.SIGKILL)
        assert "ok" in job(url, "evaluate", DATA) and "ok" in job(url, "compare", DATA)


def test_a_full_queue_is_refused_with_503_and_retry_after(tmp_path):
    """Eight jobs wait for the long worker at most; the ninth gets 503, Retry-After and
    a message; each waiting job says its place, which moves up as others leave."""
    with serving(tmp=tmp_path) as (url, _):
        first = running(url)
        waiting = []
        for _ in range(8):
            status, _, started = request(url, "/api/jobs/compare", DATA)
            assert status == 200
            waiting.append(started["id"])
        status, response, said = request(url, "/api/jobs/interleave", DATA)
        assert status == 503 and response.getheader("Retry-After") == "10"
        assert said["error"]["message"] == f"{BUSY}; try again in 10 s, or cancel one"
        jobs = [f for f in folders(tmp_path) if "/job-" in f and f.count("/") == 1]
        assert len(jobs) == 9  # the one running and the 8 waiting: none for the refused
        places = [request(url, f"/api/jobs/{k}")[2] for k in waiting]
        assert [(p["state"], p["place"]) for p in places] == [("queued", i) for i in range(1, 9)]
        assert request(url, f"/api/jobs/{first}")[2]["state"] == "running"
        assert cancel(url, waiting[0])["cancelled"] is True  # a waiting job leaves its queue
        assert request(url, f"/api/jobs/{waiting[1]}")[2]["place"] == 1
        assert request(url, "/api/jobs/compare", DATA)[0] == 200  # room again
        # the quick worker has a queue of its own: not held up
        assert "ok" in job(url, "evaluate", DATA)
        cancel(url, first)
        assert "ok" in done(url, waiting[-1])


def test_the_bytes_of_waiting_jobs_are_bounded(tmp_path):
    """The jobs not yet done hold at most four upload caps of input: 4 x 50 kB here."""
    big = {**DATA, "a": DATA["a"] + "\n" * 20_000}  # 40 kB more: "\\n" is 2 bytes in JSON
    with serving("--max-upload", "0.05", tmp=tmp_path) as (url, _):
        first = running(url)
        for _ in range(4):
            assert request(url, "/api/jobs/compare", big)[0] == 200
        status, response, said = request(url, "/api/jobs/compare", big)
        assert status == 503 and response.getheader("Retry-After") == "10"
        # held: the running job's request (3.6 kB) and four of 43.6 kB, as sent (JSON)
        held = (len(json.dumps(LONG)) + 4 * len(json.dumps(big))) / 1000
        assert said["error"]["message"] == (
            f"the server is busy: the jobs not yet done hold {held:.0f} kB of input, and this "
            f"one's {len(json.dumps(big)) / 1000:.0f} kB would pass the 200 kB it keeps; "
            "try again in 10 s, or cancel one"
        )
        cancel(url, first)


def test_a_cancelled_job_ends_its_process_and_its_folder(tmp_path):
    with serving(tmp=tmp_path) as (url, server):
        key = running(url)
        pid, folder = busy_worker(server.pid)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
        waiting = request(url, "/api/jobs/compare", DATA)[2]["id"]
        assert request(url, f"/api/jobs/{waiting}")[2]["place"] == 1
        state = cancel(url, key)
        assert state["state"] in ("running", "done")  # the worker is being ended
        state = done(url, key)
        assert state["cancelled"] is True
        assert state["error"]["message"] == (
            "cancelled: its worker process was ended (a new one takes the next job)"
        )
        assert gone(pid) and not folder.exists()
        assert "ok" in done(url, waiting)  # the job behind it ran on a new worker
        assert cancel(url, waiting)["state"] == "done"  # cancelling a done job: no change
        assert request(url, "/api/jobs/nothing", method="DELETE")[0] == 404


def test_a_chunked_body_over_the_cap_gets_the_413_message(tmp_path):
    with serving("--max-upload", "0.01", tmp=tmp_path) as (url, _):
        chunks = (b'{"qrels": "' + b"x" * 4000 if i == 0 else b"x" * 4000 for i in range(5))
        status, _, said = request(url, "/api/jobs/evaluate", raw=chunks)
        assert status == 413
        assert said["error"]["message"] == (
            "the request is over 10 kB; irscore serve takes at most 10 kB in one request "
            "(start it with --max-upload MB to allow more)"
        )
        # under the cap, chunks are one body as any other
        small = [b'{"qrels": ', b'"1 0 a 1\\n", "a": ', b'"1 Q0 a 1 1 r\\n"}']
        status, _, started = request(url, "/api/jobs/evaluate", raw=iter(small))
        assert status == 200 and done(url, started["id"])["ok"]["runs"]["a"]["means"]["map"] == 1
        assert folders(tmp_path) == [next(iter(folders(tmp_path)))]  # the server's folder only


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b'{"qrels": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
         f"{NOT_READ} (nested too deeply)"),
        (b"[" * 100_000, f"{NOT_READ} (nested too deeply)"),
        (b'{"B": ' + b"9" * 5000 + b"}", "the request is not JSON"),
        (b'{"qrels": "\xff"}', "the request is not JSON"),
        (b"{", "the request is not JSON"),
        (b"[1, 2]", "the request is not a JSON object"),
        (b'{"qrels": "\\ud800 0 a 1\\n"}', f"{NOT_READ} (a lone surrogate)"),
        (b'{"metric": "\\ud800"}', f"{NOT_READ} (a lone surrogate)"),
    ],
    ids=["nested-object", "nested-array", "long-number", "not-utf8", "cut-short", "a-list",
         "surrogate-text", "surrogate-setting"],
)  # fmt: skip
def test_a_malformed_body_gets_400_with_a_message(body, said, shared):
    url, tmp = shared
    for raw in (body, iter([body[: len(body) // 2], body[len(body) // 2 :]])):
        status, _, answer = request(url, "/api/jobs/compare", raw=raw)
        assert (status, answer["error"]["message"]) == (400, said)
    assert len(folders(tmp)) == 1  # the server's folder: nothing of the refused request
    assert "ok" in job(url, "evaluate", DATA)  # and the server goes on


def test_no_user_data_is_left_after_jobs_and_after_shutdown(tmp_path):
    """Done, refused, failed, cancelled: each job's folder goes when it ends; Ctrl-C
    (SIGINT) or SIGTERM with a job running and others waiting leaves an empty TMPDIR
    and no process."""
    for stop in (signal.SIGINT, signal.SIGTERM):
        tmp = tmp_path / stop.name
        tmp.mkdir()
        with serving(tmp=tmp) as (url, server):
            root = [tmp / name for name in folders(tmp)]
            assert len(root) == 1 and stat.S_IMODE(root[0].stat().st_mode) == 0o700
            assert "ok" in job(url, "evaluate", DATA)
            assert "error" in job(url, "evaluate", {**DATA, "qrels": "1 0 x\n"})
            assert request(url, "/api/jobs/evaluate", raw=b"{")[0] == 400
            assert folders(tmp) == [root[0].name]  # nothing per job, nothing per refusal
            running(url)
            request(url, "/api/jobs/compare", DATA)
            assert len(folders(tmp)) > 1  # the jobs' inputs, while they run and wait
            workers = children(server.pid)
            server.send_signal(stop)
            server.wait(timeout=30)
            said = {signal.SIGINT: "irscore: interrupted\n"}.get(
                stop, "irscore: terminated (SIGTERM)\n"
            )
            assert server.stderr.read() in ("", said)
        assert folders(tmp) == []
        assert all(gone(pid) for pid in workers)


def test_a_folder_that_cannot_be_written_is_a_503_and_heals(tmp_path):
    """The server's folder removed under it (as a cleaner of /tmp does) is made again;
    one that cannot be made (a file in its place) refuses the job with a message."""
    with serving(tmp=tmp_path) as (url, _):
        root = tmp_path / folders(tmp_path)[0]
        root.rmdir()
        assert "ok" in job(url, "evaluate", DATA)
        root.rmdir()
        root.write_text("in the way")
        status, response, said = request(url, "/api/jobs/evaluate", DATA)
        assert status == 503 and response.getheader("Retry-After") == "10"
        assert said["error"]["message"] == "the server cannot keep the job's inputs: File exists"
        root.unlink()
        assert "ok" in job(url, "evaluate", DATA)


def test_a_server_killed_outright_leaves_no_worker_and_no_data(tmp_path):
    """kill -9 of the server itself: its workers see it gone, remove its folder and end."""
    process = subprocess.Popen(
        [str(IRSCORE), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    try:
        url = process.stdout.readline().split()[2]
        running(url)
        workers = children(process.pid)
    finally:
        process.kill()
        process.wait()
    assert all(gone(pid, 15) for pid in workers)
    assert folders(tmp_path) == []


def rss(pid: int) -> int:
    """The resident memory of process `pid`, in bytes."""
    line = next(
        x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmRSS:")
    )
    return int(line.split()[1]) * 1024


def settled_growth(pid: int, before: int) -> int:
    """How much process `pid` has grown since `before`, once what it frees is given back:
    the least growth seen in 5 s (a request's buffers go when the event loop next runs)."""
    least = rss(pid) - before
    deadline = time.monotonic() + 5
    while least >= 12_000_000 and time.monotonic() < deadline:
        time.sleep(0.1)
        least = min(least, rss(pid) - before)
    return least


def test_server_memory_stays_bounded_with_queued_and_refused_jobs(tmp_path):
    """Queued jobs wait with their inputs on disk, not in the server: once one job of
    12 MB has been received (reading it takes memory that the server keeps for the
    next), four more waiting (48 MB) grow it by less than one of them; and requests
    refused once the 80 MB it keeps are held (4 x --max-upload 20) keep nothing."""
    big = {**DATA, "a": "1 Q0 d 1 1.0 r\n" * 800_000}  # 15 bytes a line: 12 MB
    # glibc's malloc keeps freed blocks of this size for reuse: here it gives them back,
    # so that the server's resident memory is what it holds
    unkept = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}
    with serving("--max-upload", "20", tmp=tmp_path, **unkept) as (url, server):
        running(url)
        assert request(url, "/api/jobs/compare", big)[0] == 200
        before = rss(server.pid)
        for _ in range(4):
            assert request(url, "/api/jobs/compare", big)[0] == 200
        grown = settled_growth(server.pid, before)
        assert grown < 12_000_000, f"four queued jobs grew the server by {grown / 1e6:.0f} MB"
        assert request(url, "/api/jobs/compare", big)[0] == 200  # 6 x 12 MB: 72 MB held
        before = rss(server.pid)
        for _ in range(4):
            assert request(url, "/api/jobs/compare", big)[0] == 503
        grown = settled_growth(server.pid, before)
        assert grown < 12_000_000, f"four refusals grew the server by {grown / 1e6:.0f} MB"
