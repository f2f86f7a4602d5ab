"""A command stopped from outside its input ends with one line on stderr and its
documented status (docs/troubleshooting.md), no traceback, no process left in its
group and nothing left in its temporary folder: memory running out (in this process
or a worker), a worker killed, and SIGTERM or SIGHUP while forked processes score
(`irscore.cli.endings`; Ctrl-C's own tests are in test_halves.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irscore.cli import endings, workers
from irscore.cli.common import UsageError

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists() or not hasattr(os, "fork"),
    reason="needs Linux's /proc and os.fork",
)
OUT_OF_MEMORY = "irscore: error: the input needs more memory than is available\n"


def _group(pgid: int) -> list[int]:
    """The processes of a process group that are still there (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _start(argv: list[str], scratch: Path, code: str | None = None) -> subprocess.Popen:
    """`irscore ARGV` (or Python `code` with ARGV) in a session of its own, with its own
    TMPDIR, the engine scoring every input."""
    command = [sys.executable, "-c", code, *argv] if code else [sys.executable, "-m", "irscore"]
    return subprocess.Popen(
        command if code else [*command, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(scratch), "IRSCORE_PLAIN_BYTES": "0"},
        start_new_session=True,
    )


def _ended(process: subprocess.Popen, scratch: Path) -> tuple[int, bytes, bytes]:
    """Its status, stdout and stderr, once it and every process of its group ended; the
    temporary folder is empty."""
    out, err = process.communicate(timeout=120)
    for _ in range(500):  # a killed child is reaped by its parent's wait: no more than that
        if not _group(process.pid):
            break
        time.sleep(0.01)
    assert _group(process.pid) == [], "a process of the command's group is left"
    assert list(scratch.iterdir()) == []
    return process.returncode, out, err


# ---------------------------------------------------------------------------------------
# memory

# Evaluates a small run (numpy, Arrow and its threads in place), then allows the
# process BUDGET more bytes of address space than it has, and runs `irscore ARGV...`.
LIMITED = """
import resource, sys
from irscore import cli
qrels, run, budget, *argv = sys.argv[1:]
assert cli.main(["evaluate", "-m", "map", qrels, run]) == 0
size = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size * 1024 + int(budget), resource.RLIM_INFINITY))
sys.argv = ["irscore", *argv]
cli.entry()
"""


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A run of 1M results for one topic, and one of 100,000 one-result topics (which
    `halves` scores on two processes), with their qrels and a one-line run."""
    folder = tmp_path_factory.mktemp("large")
    (folder / "q1").write_text("1 0 d1 1\n1 0 d7 1\n")
    (folder / "r1").write_text("".join(f"1 Q0 d{i} {i + 1} {1e6 - i} x\n" for i in range(10**6)))
    (folder / "qn").write_text("".join(f"{t} 0 d{t} {t % 2}\n" for t in range(100_000)))
    (folder / "rn").write_text("".join(f"{t} Q0 d{t} 1 {t % 7}.5 x\n" for t in range(100_000)))
    (folder / "small").write_text("1 Q0 d1 1 1.5 x\n")
    return folder


# MiB. Arrow's C++ itself may crash when its allocation fails (a segmentation fault in
# dictionary_encode with 12 or 16 MiB over 100,000 topics, ValueOrDie's abort in the CSV
# reader with 16 or 24 over one topic, seen once at 16 in a full run): budgets where numpy's
# or Python's allocation fails first.
@pytest.mark.parametrize(("shape", "budget"), [("one topic", 8), ("many topics", 8)])
def test_memory_running_out_is_one_line_and_status_2(large, tmp_path, shape, budget):
    """Under an address-space limit (RLIMIT_AS) a few MiB above what the command holds
    before it reads: numpy's or Arrow's allocation fails somewhere, in this process or
    in the child scoring the later half of the topics."""
    names = ("q1", "r1") if shape == "one topic" else ("qn", "rn")
    qrels, run = large / names[0], large / names[1]
    argv = [str(qrels), str(large / "small"), str(budget << 20)]
    argv += ["evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    status, out, err = _ended(_start(argv, scratch, LIMITED), scratch)
    last = err.decode().splitlines()[-1]  # before it: what the small run printed
    assert (status, last.startswith(OUT_OF_MEMORY.strip())) == (2, True), err
    # the small run's line: AP 1/2 (d1 at rank 1, d7 not found); AP 1 (d1, topic 1's one)
    value = "0.5000" if shape == "one topic" else "1.0000"
    assert out.decode().splitlines() == [f"map                   \tall\t{value}"]
    assert b"Traceback" not in err


BOOM = """
import sys
import numpy as np
import pyarrow as pa
from irscore import cli

def main():
    {}

cli.main = main
sys.argv = ["irscore"]
cli.entry()
"""


@pytest.mark.parametrize(
    "failing",
    [
        "np.empty(1 << 42)",  # numpy's _ArrayMemoryError (32 TiB)
        "pa.allocate_buffer(1 << 60)",  # Arrow's ArrowMemoryError
        "raise MemoryError()",
    ],
)
def test_each_kind_of_memory_error_is_the_same_line(tmp_path, failing):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    status, out, err = _ended(_start([], scratch, BOOM.format(failing)), scratch)
    assert (status, out, err) == (2, b"", OUT_OF_MEMORY.encode())


def _runs(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for k in range(count):
        path = tmp_path / f"run{k}"
        path.write_text("".join(f"1 Q0 d{d} {d + 1} {9 - d} r{k}\n" for d in range(10)))
        paths.append(str(path))
    return paths


def test_memory_running_out_in_a_worker_is_that_line(tmp_path):
    paths = _runs(tmp_path, 3)

    def score(path: str, spool: workers.Spool | None) -> str:
        if path == paths[1]:
            raise MemoryError
        return path

    spool = workers.spool_for(paths)
    assert spool is not None
    with pytest.raises(UsageError) as raised:
        list(workers.scored(score, paths, spool))
    spool.close()
    assert str(raised.value) == endings.OUT_OF_MEMORY


def test_a_killed_worker_is_an_error_not_a_hang(tmp_path):
    """A worker killed (as the kernel kills one when memory runs out) is replaced by the
    pool, and the run it was scoring would never come back: an error instead."""
    paths = _runs(tmp_path, 3)

    def score(path: str, spool: workers.Spool | None) -> str:
        if path == paths[1]:
            os.kill(os.getpid(), signal.SIGKILL)
        return path

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("still waiting for the killed worker's run after 60 s")

    spool = workers.spool_for(paths)
    assert spool is not None
    signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        with pytest.raises(UsageError, match=r"^a worker process was killed \(perhaps the input"):
            list(workers.scored(score, paths, spool))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    spool.close()


# ---------------------------------------------------------------------------------------
# signals


@pytest.fixture(scope="module")
def several(tmp_path_factory):
    """Qrels and four runs of 3,000 topics x 100 results: two workers score them."""
    folder = tmp_path_factory.mktemp("several")
    topics = range(3000)
    (folder / "q").write_text("".join(f"{t} 0 d{d} {d % 3}\n" for t in topics for d in range(30)))
    for k in range(4):
        lines = (
            f"{t} Q0 d{(d * (k + 3)) % 400} {d + 1} {1000 - d} r{k}\n"
            for t in topics
            for d in range(100)
        )
        (folder / f"r{k}").write_text("".join(lines))
    return folder


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
@pytest.mark.parametrize("group", [True, False], ids=["group", "parent only"])
def test_a_termination_signal_while_two_workers_score(several, tmp_path, signum, group):
    """SIGTERM or SIGHUP once both workers run (to the whole group, as a closing terminal
    sends SIGHUP, or to the command alone, as `kill` does): one line, 128 + the signal,
    the workers ended, no file left (it printed 4 tracebacks of BrokenPipeError)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    runs = [str(several / f"r{k}") for k in range(4)]
    process = _start(["evaluate", "-q", str(several / "q"), *runs], scratch)
    for _ in range(3000):  # up to 30 s for the qrels to be read and the workers forked
        if len(_children(process.pid)) >= 2 or process.poll() is not None:
            break
        time.sleep(0.01)
    assert len(_children(process.pid)) >= 2, "no two workers (or the command ended first)"
    time.sleep(0.2)  # the workers inside their first run
    if group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    status, out, err = _ended(process, scratch)
    name = signal.Signals(signum).name
    assert (status, out, err) == (128 + signum, b"", f"irscore: terminated ({name})\n".encode())


def test_the_statuses_are_the_documented_ones():
    page = (Path(__file__).parents[1] / "docs" / "troubleshooting.md").read_text()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        error = KeyboardInterrupt() if signum == signal.SIGINT else endings.Terminated(signum)
        line, status = endings.ending(error)
        assert f"| {status} | " in page and f"`{line}`" in page
    line, status = endings.ending(MemoryError())
    assert f"`{line.removeprefix('irscore: error: ')}`" in page and status == 2
