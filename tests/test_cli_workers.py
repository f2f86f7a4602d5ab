"""Several runs on two worker processes print what one process prints, in the runs' order,
and a bad run in a worker is the same one-line error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from irscore.cli import workers

IRSCORE = [sys.executable, "-m", "irscore", "evaluate", "-q", "-m", "all_trec"]


@pytest.fixture
def runs(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{d} {d % 3}\n" for t in (1, 2, 3) for d in range(8)))
    paths = []
    for k in range(5):  # five runs, each ranking the documents differently
        path = tmp_path / f"run{k}"
        lines = [
            f"{t} Q0 d{(d * (k + 1)) % 11} {d + 1} {10 - d} r{k}"
            for t in (1, 2, 3)
            for d in range(10)
            if not (k == 3 and t == 2)  # one run without topic 2
        ]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(qrels), paths


def _irscore(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*IRSCORE, *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("plain_bytes", ["0", ""], ids=["engine", "plain"])
def test_workers_print_the_runs_one_process_prints_in_order(runs, monkeypatch, plain_bytes):
    """On two workers (the engine) or in one process (the plain path, small files)."""
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", plain_bytes)
    qrels, paths = runs
    together = _irscore(qrels, *paths)
    assert together.returncode == 0, together.stderr
    alone = [_irscore(qrels, path) for path in paths]
    # several runs: each block starts with its runid line (-q: before the topics' lines)
    heads = [f"{'runid':<22s}\tall\tr{k}\n" for k in range(5)]
    assert together.stdout == "".join(h + one.stdout for h, one in zip(heads, alone, strict=True))
    # the runs' tags show the order: r0 .. r4, whatever worker finished first
    runids = [line.split("\t")[2] for line in together.stdout.splitlines() if "runid" in line]
    assert runids == [f"r{k}" for k in range(5) for _ in range(2)]


def test_scored_keeps_the_order_and_uses_other_processes(runs):
    _, paths = runs

    def score(path: str, spool: workers.Spool | None) -> tuple:
        place = None if spool is None else spool.put(f"text of {path}\n".encode())
        return path, os.getpid(), place

    spool = workers.spool_for(paths)
    assert spool is not None
    results = list(workers.scored(score, paths, spool))
    assert [path for path, _, _ in results] == paths
    assert {pid for _, pid, _ in results} - {os.getpid()}  # scored in forked workers
    texts = b"".join(spool.read_back([place for _, _, place in results]))
    assert texts.decode() == "".join(f"text of {path}\n" for path in paths)
    assert spool.file.closed  # read back: closed, and so removed
    assert workers.spool_for(paths[:1]) is None
    assert list(workers.scored(score, paths[:1], None)) == [(paths[0], os.getpid(), None)]


def test_the_spool_keeps_each_text_where_it_was_put(tmp_path):
    """Places reserved one after another, texts read back in any order asked, in blocks
    of READ_BACK bytes."""
    import multiprocessing

    spool = workers.Spool(multiprocessing.get_context("fork"))
    first = spool.put(b"abc")
    second = spool.put(b"x" * (workers.READ_BACK + 5))
    assert first == (0, 3) and second == (3, workers.READ_BACK + 5)
    blocks = list(spool.read_back([second, first]))
    assert [len(b) for b in blocks] == [workers.READ_BACK, 5, 3]
    assert b"".join(blocks) == b"x" * (workers.READ_BACK + 5) + b"abc"


def test_a_bad_run_in_a_worker_names_its_file_and_line(runs, tmp_path):
    qrels, paths = runs
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 d1 1 0.5 t\n1 Q0 d2 2 high t\n")  # a score that is no number
    done = _irscore(qrels, paths[0], str(bad), paths[1])
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"irscore: error: {bad}:2:")
    assert "Traceback" not in done.stderr


def test_workers_keep_freed_memory_for_the_next_run(runs):
    """With glibc, a worker's Arrow arrays come from glibc's heap, which keeps what each
    run frees for the next (`allocator.keep_freed_memory`); this process is left as it was."""
    from irscore.engine.system import allocator

    if allocator._libc() is None:
        pytest.skip("needs glibc")
    import pyarrow as pa

    _, paths = runs
    before = pa.default_memory_pool().backend_name

    def pool(path: str, spool: workers.Spool | None) -> str:
        return pa.default_memory_pool().backend_name

    spool = workers.spool_for(paths)
    assert set(workers.scored(pool, paths, spool)) == {"system"}
    spool.close()
    assert pa.default_memory_pool().backend_name == before
