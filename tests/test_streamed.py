"""`irscore evaluate` reads a large run a block of whole topics at a time
(`irscore.cli.streamed`, `irscore.engine.reading.topic_blocks`): what it holds is set by
the block and the largest topic, not by the run; a run not grouped by topic goes
through a spill folder that is removed however the command ends. Byte identity
with trec_eval on the golden inputs, streamed, is in tests/test_golden.py.
"""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irscore.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"


def every_run_streamed(monkeypatch, tmp_path: Path, block: int, halves: bool = True) -> Path:
    """Make `irscore evaluate` stream every run in blocks of about `block` bytes (no
    small-file path), its temporary folders under tmp_path/tmp, which is returned.
    `halves=False`: all in this process (a forked child's reads are not counted here)."""
    from irscore.cli import evaluate, streamed
    from irscore.engine.reading import topic_blocks
    from irscore.engine.small import plain_evaluate

    if not halves:
        monkeypatch.setattr(topic_blocks, "halfway", lambda path, fmt: None)
    monkeypatch.setattr(evaluate, "STREAM_FROM", 0)
    monkeypatch.setattr(streamed, "BLOCK", block)
    monkeypatch.setattr(plain_evaluate, "trec_eval_text", lambda *args, **kwargs: None)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    return temporary


@pytest.fixture
def streaming(monkeypatch, tmp_path):
    """`irscore evaluate` in this process, every run streamed in blocks of ~1,000 bytes,
    temporary folders made under tmp_path/tmp; returns run(flags, qrels, run) ->
    (status, stdout, stderr)."""
    temporary = every_run_streamed(monkeypatch, tmp_path, 1000)

    def run(flags: list[str], qrels: Path, run_path: Path) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["evaluate", *flags, str(qrels), str(run_path)])
        return status, out.getvalue(), err.getvalue()

    run.temporary = temporary
    return run


def whole(flags: list[str], qrels: Path, run_path: Path) -> str:
    """The text of the run read whole (the engine's path the golden tests check)."""
    from irscore.cli import evaluate
    from irscore.engine.small import plain_evaluate

    out = io.StringIO()
    original = plain_evaluate.trec_eval_text, evaluate.STREAM_FROM
    plain_evaluate.trec_eval_text = lambda *args, **kwargs: None
    evaluate.STREAM_FROM = 1 << 62
    try:
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            assert main(["evaluate", *flags, str(qrels), str(run_path)]) == 0
    finally:
        plain_evaluate.trec_eval_text, evaluate.STREAM_FROM = original
    return out.getvalue()


def run_lines(topics: int, depth: int, seed: int = 3) -> list[str]:
    """`topics` x `depth` run lines, topic by topic in numeric order (not byte order:
    10 comes before 2 in strcmp's), scores in steps of 0.5 (many ties)."""
    rng = random.Random(seed)
    return [
        f"{t} Q0 d{rng.randrange(3 * depth)}x{i} {i + 1} {rng.randrange(8) / 2} tag\n"
        for t in range(1, topics + 1)
        for i in range(depth)
    ]


def qrels_lines(topics: int, depth: int, seed: int = 5, lowest: int = 0) -> list[str]:
    """Judgments for run_lines' topics (grades `lowest` .. 2; most retrieved documents
    unjudged), and two judged topics no run names (9001, 9002)."""
    rng = random.Random(seed)
    lines = []
    for t in [*range(1, topics + 1), 9001, 9002]:
        for d in sorted({f"d{rng.randrange(3 * depth)}x{rng.randrange(depth)}" for _ in range(8)}):
            lines.append(f"{t} 0 {d} {rng.randrange(lowest, 3)}\n")
    return lines


def written(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines))
    return path


def test_a_run_grouped_by_topic_in_numeric_order_streams_to_the_bytes_of_one_pass(
    streaming, tmp_path
):
    """60 topics in numeric order (grouped, not byte-sorted) across ~90 blocks: the
    per-topic lines come out in strcmp order, -c's two judged topics without results
    counted, and the `all` lines (sums in topic order) as one pass."""
    qrels = written(tmp_path / "q", qrels_lines(60, 40))
    run = written(tmp_path / "r", run_lines(60, 40))
    for flags in (["-q", "-c", "-m", "all_trec"], ["-c", "-m", "official"], ["-q", "-m", "P.5"]):
        status, out, err = streaming(flags, qrels, run)
        assert status == 0, err
        assert out == whole(flags, qrels, run)
    out = streaming(["-c", "-m", "num_q"], qrels, run)[1]
    assert out == "num_q                 \tall\t62\n"  # 60 with results, 9001 and 9002


def test_ties_of_one_topic_across_many_blocks(streaming, tmp_path):
    """One topic of 300 documents all scored 1 (about 8 blocks of 1,000 bytes): its rows
    are carried from block to block and ranked together, as trec_eval does (ties by
    docno), not block by block."""
    run = written(tmp_path / "r", [f"7 Q0 doc{i:04d} {i + 1} 1 tag\n" for i in range(300)])
    qrels = written(tmp_path / "q", ["7 0 doc0299 1\n", "7 0 doc0000 1\n"])
    status, out, err = streaming(["-q", "-m", "recip_rank", "-m", "num_ret"], qrels, run)
    assert status == 0, err
    # trec_eval ranks tied documents by docno, descending: doc0299 first, doc0000 last
    # (rank 300): recip_rank 1/1 and map (1/1 + 2/300) / 2 = 0.50333.
    assert out == (
        "num_ret               \t7\t300\n"
        "recip_rank            \t7\t1.0000\n"
        "num_ret               \tall\t300\n"
        "recip_rank            \tall\t1.0000\n"
    )
    status, out, err = streaming(["-m", "map"], qrels, run)
    assert out == "map                   \tall\t0.5033\n"


def test_a_topic_that_comes_back_is_read_again_through_the_spill(streaming, tmp_path):
    """Grouped but for its last line, which returns to the first topic: the first pass
    stops there and the run is read again, spilled; the output is one pass's."""
    lines = run_lines(30, 20)
    lines.append("1 Q0 dlast 21 9 tag\n")
    run = written(tmp_path / "r", lines)
    qrels = written(tmp_path / "q", [*qrels_lines(30, 20), "1 0 dlast 1\n"])
    flags = ["-q", "-c", "-m", "all_trec"]
    status, out, err = streaming(flags, qrels, run)
    assert status == 0, err
    assert out == whole(flags, qrels, run)
    assert "recip_rank            \t1\t1.0000\n" in out  # dlast, score 9, is first
    assert list(streaming.temporary.iterdir()) == []


def held_rows(monkeypatch, flags, qrels, run, streaming) -> int:
    """The most run rows one block held (in this process: no second part forked)."""
    from irscore.engine.reading import topic_blocks

    monkeypatch.setattr(topic_blocks, "halfway", lambda path, fmt: None)
    most = [0]
    read = topic_blocks.read

    def counted(path, run_format, block, score, again):
        def counting(run):
            most[0] = max(most[0], run.table.num_rows)
            score(run)

        return read(path, run_format, block, counting, again)

    monkeypatch.setattr(topic_blocks, "read", counted)
    status, _, err = streaming(flags, qrels, run)
    assert status == 0, err
    return most[0]


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "spilled"])
def test_rows_held_are_set_by_the_block_not_by_the_run(streaming, tmp_path, monkeypatch, shuffled):
    """Ten times the topics, the same most rows held at once: a block of ~1,000 bytes
    (about 30 lines of these) and the largest topic (20 lines) at most, whether the run
    is read grouped or through the spill."""
    held = []
    for topics in (20, 200):
        lines = run_lines(topics, 20)
        if shuffled:
            random.Random(1).shuffle(lines)
        run = written(tmp_path / f"r{topics}", lines)
        qrels = written(tmp_path / f"q{topics}", qrels_lines(topics, 20))
        held.append(held_rows(monkeypatch, ["-c", "-m", "official"], qrels, run, streaming))
    line = max(len(x) for x in run_lines(200, 20))
    assert held[1] <= 1000 // 20 + 2 * 20 + line  # a block's lines and the largest topic
    assert held[1] <= held[0] + 20
    assert held[1] < 200 * 20 // 10


def test_the_spill_folder_is_removed_after_success_and_after_an_error(streaming, tmp_path):
    """A shuffled run spills into tmp/irscore-spill-*: gone after the output; and after
    a bad line near the end, which is one line naming the file and the line."""
    from irscore.engine.reading import topic_blocks

    lines = run_lines(20, 20)
    random.Random(2).shuffle(lines)
    qrels = written(tmp_path / "q", qrels_lines(20, 20))
    seen = []
    spilled = topic_blocks.spilled

    def watched(parts, size):
        for block in spilled(parts, size):
            seen.append([p.name for p in streaming.temporary.iterdir()])
            yield block

    topic_blocks.spilled, restore = watched, spilled
    try:
        status, out, err = streaming(["-m", "map"], qrels, written(tmp_path / "r", lines))
        assert status == 0 and out.startswith("map"), err
        lines.insert(390, "5 Q0 dx 1 notanumber tag\n")
        bad = written(tmp_path / "bad", lines)
        status, out, err = streaming(["-m", "map"], qrels, bad)
    finally:
        topic_blocks.spilled = restore
    assert seen and all(any(n.startswith("irscore-spill-") for n in names) for names in seen)
    assert status == 2 and out == ""
    assert err.startswith(f"irscore: error: {bad}:391: ") and err.count("\n") == 1, err
    assert list(streaming.temporary.iterdir()) == []


def test_the_spill_folder_is_removed_on_sigterm(tmp_path):
    """A run from a pipe spills from its first block; SIGTERM while it is read ends the
    command with its one line and status 143, and leaves no spill behind."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    qrels = written(tmp_path / "q", qrels_lines(50, 20))
    env = {**os.environ, "TMPDIR": str(temporary), "IRSCORE_MAX_LINE": "1M"}
    command = [sys.executable, "-m", "irscore", "evaluate", "-m", "map", str(qrels), str(fifo)]
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = "".join(run_lines(50, 20)).encode()
    while len(lines) < (5 << 20):  # more than a block (4 MiB), so one is spilled
        lines += lines
    pipe = open(fifo, "wb")  # noqa: SIM115 (closed below, once the child has ended)
    pipe.write(lines)
    pipe.flush()
    deadline = time.monotonic() + 60
    while not any(temporary.glob("irscore-spill-*/*.arrow")):
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.05)
    child.send_signal(signal.SIGTERM)  # while it waits for the rest of the pipe
    _, err = child.communicate(timeout=180)
    pipe.close()
    assert child.wait(timeout=60) == 128 + signal.SIGTERM
    assert err.decode() == "irscore: terminated (SIGTERM)\n"
    assert list(temporary.iterdir()) == []


def test_iter_evaluate_on_a_large_file_holds_a_bucket(tmp_path, monkeypatch):
    """`irscore.iter_evaluate` on a run file above `STREAM_FROM` reads it through the
    spill, a bucket of whole topics at a time (held rows flat as the run grows), and
    yields the values the whole read gives (topics in another order), -c's judged
    topics without results included; on a DataFrame reader's chunks, the same."""
    import pandas as pd

    import irscore
    from irscore import api_streams
    from irscore.engine.reading import topic_blocks

    def values(run, qrels, **kwargs):
        found = irscore.iter_evaluate(str(qrels), run, ["map", "P.5"], "all_qrels", **kwargs)
        return sorted(found)

    held = []
    spilled = topic_blocks.spilled

    def counted(parts, size):
        for block in spilled(parts, size):
            held[-1] = max(held[-1], block.table.num_rows)
            yield block

    for topics in (20, 200):
        lines = run_lines(topics, 20)
        random.Random(4).shuffle(lines)
        run = written(tmp_path / f"r{topics}", lines)
        qrels = written(tmp_path / f"q{topics}", qrels_lines(topics, 20))
        expected = values(str(run), qrels)
        assert len(expected) == 2 * (topics + 2)  # -c: 9001 and 9002 too
        monkeypatch.setattr(api_streams, "STREAM_FROM", 0)
        monkeypatch.setattr(topic_blocks, "BLOCK", 1000)
        monkeypatch.setattr(topic_blocks, "spilled", counted)
        held.append(0)
        assert values(str(run), qrels, rows=50) == expected
        monkeypatch.undo()
        names = ["topic", "q0", "docno", "rank", "score", "tag"]
        grouped = sorted(lines, key=lambda line: int(line.split()[0]))
        reader = pd.read_csv(
            io.StringIO("".join(grouped)), sep=" ", names=names, dtype={"topic": str}, chunksize=37
        )
        assert values(reader, qrels, rows=50) == expected
    assert 0 < held[1] <= held[0] + 20 < 200 * 20 // 10
