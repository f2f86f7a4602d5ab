"""Helper threads: they block SIGINT (so Ctrl-C reaches the main thread, `threads`), a
qrels and a lone run of regular files are read on two, and chunks of topics made on
two are written in topic order, byte for byte as one thread writes them."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from cli_calls import called as run_cli

from irscore.cli import chunked
from irscore.cli import evaluate as cli_evaluate
from irscore.engine.reading import run_parts, trec
from irscore.engine.system import threads


def blocked_here(_=None) -> set[int]:
    return signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_a_pools_threads_block_sigint_and_the_main_thread_does_not():
    with threads.pool(2) as pool:
        masks = list(pool.map(blocked_here, range(6)))
    assert all(signal.SIGINT in mask for mask in masks)
    assert signal.SIGINT not in blocked_here()


@pytest.fixture
def inputs(tmp_path):
    """A qrels and a run of 5 topics x 8 documents, ties included."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(5) for d in range(8)))
    run.write_text(
        "".join(f"{t} Q0 d{d} {d + 1} {(d // 2) / 4} r\n" for t in range(5) for d in range(8))
    )
    return qrels, run


def where_inputs_are_read(monkeypatch) -> list[tuple[str, bool]]:
    """For each qrels or run read: (which, whether on the main thread)."""
    seen = []

    def recorded(which, read):
        def reader(*args, **kwargs):
            seen.append((which, threading.current_thread() is threading.main_thread()))
            return read(*args, **kwargs)

        return reader

    monkeypatch.setattr(trec, "read_qrels_records", recorded("qrels", trec.read_qrels_records))
    monkeypatch.setattr(trec, "read_run_records", recorded("run", trec.read_run_records))
    # a pipe's run is read a block of topics at a time (cli/streamed), its blocks here,
    # and a qrels beside it so too (engine/reading/qrels_blocks)
    iterate = run_parts.RunParts.__iter__

    def blocks(parts):
        seen.append((parts.role, threading.current_thread() is threading.main_thread()))
        return iterate(parts)

    monkeypatch.setattr(run_parts.RunParts, "__iter__", blocks)
    return seen


def test_the_qrels_and_a_lone_run_of_regular_files_are_read_on_helpers(inputs, monkeypatch):
    qrels, run = inputs
    seen = where_inputs_are_read(monkeypatch)
    assert run_cli("evaluate", "-m", "map", str(qrels), str(run))[0] == 0
    assert sorted(seen) == [("qrels", False), ("run", False)]
    seen.clear()
    assert run_cli("evaluate", "-m", "map", str(qrels), str(run), str(run))[0] == 0
    # Two runs: the qrels first, here; the runs in turn (here, or in forked workers).
    assert seen[0] == ("qrels", True) and all(main for _, main in seen)


def test_a_run_past_the_read_ahead_size_is_read_in_turn(inputs, monkeypatch):
    """A big run is read after its qrels: read beside it, the qrels' reading temporaries
    would add to the run's peak."""
    qrels, run = inputs
    monkeypatch.setattr(cli_evaluate, "READ_AHEAD", run.stat().st_size - 1)
    seen = where_inputs_are_read(monkeypatch)
    assert run_cli("evaluate", "-m", "map", str(qrels), str(run))[0] == 0
    assert seen == [("qrels", True), ("run", True)]
    monkeypatch.setattr(cli_evaluate, "READ_AHEAD", run.stat().st_size)
    seen.clear()
    assert run_cli("evaluate", "-m", "map", str(qrels), str(run))[0] == 0
    assert sorted(seen) == [("qrels", False), ("run", False)]


def test_the_rows_of_a_chunk():
    """At least CHUNK_ROWS (65,536) rows, or a 64th of the run (a 128th in halves)."""
    from irscore.engine.evaluate import chunk_rows

    assert chunk_rows(1000) == chunk_rows(1000, halves=True) == 65_536
    assert chunk_rows(10_000_000) == 156_250  # 10,000,000 / 64
    assert chunk_rows(10_000_000, halves=True) == 78_125  # / 128
    assert chunk_rows(64 * 65_536 + 1) == 65_537  # rounded up


@pytest.mark.parametrize("fifo_is", ["qrels", "run"])
def test_with_a_fifo_the_run_is_read_on_the_main_thread(fifo_is, inputs, monkeypatch, tmp_path):
    """A read of a FIFO would not wake for a Ctrl-C that lands on a helper thread, so
    nothing is read beside it (the hang test_input_faults' Ctrl-C test once met)."""
    qrels, run = inputs
    expected = run_cli("evaluate", "-m", "map", str(qrels), str(run))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    source = qrels if fifo_is == "qrels" else run
    writer = threading.Thread(target=lambda: fifo.write_bytes(source.read_bytes()))
    writer.start()
    seen = where_inputs_are_read(monkeypatch)
    paths = (fifo, run) if fifo_is == "qrels" else (qrels, fifo)
    assert run_cli("evaluate", "-m", "map", *map(str, paths)) == expected
    writer.join()
    assert seen == [("qrels", True), ("run", True)]


def test_the_qrels_error_comes_first_when_both_inputs_are_bad(inputs):
    qrels, run = inputs
    good_qrels, good_run = qrels.read_text(), run.read_text()
    qrels.write_text(good_qrels + "4 0 d9 x\n")  # line 41: grade x
    run.write_text(good_run + "4 Q0 d9\n")  # line 41: 3 fields
    status, out, err = run_cli("evaluate", "-m", "map", str(qrels), str(run))
    assert (status, out) == (2, "") and f"{qrels}:41: grade 'x'" in err and str(run) not in err
    qrels.write_text(good_qrels)  # the run's own error, once the qrels is fine
    status, out, err = run_cli("evaluate", "-m", "map", str(qrels), str(run))
    assert (status, out) == (2, "") and f"{run}:41: expected 6 columns, found 3" in err


def test_chunks_made_on_two_threads_come_in_order():
    """The later chunks finish first; they still come in order."""

    def maker(k: int):
        return lambda: time.sleep(0.02 * (5 - k)) or k

    makers = [maker(k) for k in range(6)]
    assert list(chunked.made_in_order(makers, True)) == list(range(6))
    assert list(chunked.made_in_order(makers, False)) == list(range(6))


def test_a_chunks_error_is_raised_in_its_turn():
    made = []

    def maker(k: int):
        def make():
            if k == 2:
                raise ValueError("chunk 2")
            made.append(k)
            return k

        return make

    out = []
    with pytest.raises(ValueError, match="chunk 2"):
        for k in chunked.made_in_order([maker(k) for k in range(5)], True):
            out.append(k)
    assert out == [0, 1]


def test_one_topic_a_chunk_prints_what_one_chunk_does(inputs, monkeypatch):
    """-q all_trec with 5 chunks (made on two threads) against 1 chunk, byte for byte."""
    from irscore.engine import evaluate

    qrels, run = inputs
    argv = ("evaluate", "-q", "-m", "all_trec", str(qrels), str(run))
    monkeypatch.setenv("IRSCORE_PLAIN_BYTES", "0")  # the engine, whose chunks these are
    whole = run_cli(*argv)
    monkeypatch.setattr(evaluate, "CHUNK_TOPICS", 1)
    assert run_cli(*argv) == whole
    assert whole[0] == 0 and whole[1].count("\tall\t") == 94  # all_trec's summary lines
