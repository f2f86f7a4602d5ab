"""A run read a block of topics at a time reads its qrels the same way
(`irscore.engine.reading.qrels_blocks`): a qrels grouped by topic is read once to
check it and note each topic's bytes, then each block's judgments are read back from
those bytes, so the judgments held at once are a block's, never the file's. A qrels
that is not grouped, compressed, or has subtopics is read whole, as before; every way
gives trec_eval's bytes (tests/golden).
"""

from __future__ import annotations

import gzip
import io
import json
import random
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from test_streamed import every_run_streamed

from irscore.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
# (flags, input, trec_eval 9.0.8's output): the golden files with ties, unjudged
# documents, negative grades and topics on one side only (tests/golden/README.md).
GOLDEN_CASES = [
    (["-q", "-m", "all_trec"], "small", "small.none.trec_eval-9.0.8.txt"),
    (["-q", "-m", "all_trec", "-c"], "small", "small.c.trec_eval-9.0.8.txt"),
    (["-m", "all_trec", "-c"], "medium", "medium.c.trec_eval-9.0.8.txt"),
    (["-m", "all_trec"], "medium", "medium.none.trec_eval-9.0.8.txt"),
    (["-m", "all_trec", "-c"], "boundary", "boundary.c.trec_eval-9.0.8.txt"),
]


@pytest.fixture
def streaming(monkeypatch, tmp_path):
    """`irscore evaluate` in this process, every run read a block of ~2,000 bytes of
    topics at a time and an indexed qrels ~200 bytes at a time; the reads of the last
    call counted: run(flags, qrels, run) -> (status, stdout, stderr), with `.whole`
    (the qrels files read whole) and `.held` (the judgment rows of each read back by
    topic)."""
    from irscore.engine.reading import qrels_blocks, trec

    every_run_streamed(monkeypatch, tmp_path, 2000, halves=False)
    monkeypatch.setattr(qrels_blocks, "BLOCK", 200)
    whole_reads, held, active = [], [], []
    read_whole, read_back = trec.read_qrels_records, qrels_blocks.IndexedByTopic._read

    def counted_whole(*args, **kwargs):
        if active:
            whole_reads.append(str(args[0]))
        return read_whole(*args, **kwargs)

    def counted_back(self, codes):
        records = read_back(self, codes)
        held.append(records.table.num_rows)
        return records

    monkeypatch.setattr(trec, "read_qrels_records", counted_whole)
    monkeypatch.setattr(qrels_blocks.IndexedByTopic, "_read", counted_back)

    def run(flags: list[str], qrels: Path, run_path: Path) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        whole_reads.clear()
        held.clear()
        active.append(True)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                status = main(["evaluate", *flags, str(qrels), str(run_path)])
        finally:
            active.clear()
        return status, out.getvalue(), err.getvalue()

    run.whole, run.held = whole_reads, held
    return run


def whole(flags: list[str], qrels: Path, *run_paths: Path) -> tuple[int, str, str]:
    """(status, stdout, stderr) of the runs and the qrels read whole (the engine's path
    that the golden tests check)."""
    from irscore.cli import evaluate
    from irscore.engine.small import plain_evaluate

    out, err = io.StringIO(), io.StringIO()
    original = plain_evaluate.trec_eval_text, evaluate.STREAM_FROM
    plain_evaluate.trec_eval_text = lambda *args, **kwargs: None
    evaluate.STREAM_FROM = 1 << 62
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["evaluate", *flags, str(qrels), *map(str, run_paths)])
    finally:
        plain_evaluate.trec_eval_text, evaluate.STREAM_FROM = original
    return status, out.getvalue(), err.getvalue()


def topic_groups(path: Path) -> list[list[str]]:
    """A qrels file's lines, topic by topic, in file order (each group ended)."""
    groups: dict[str, list[str]] = {}
    for line in path.read_text().splitlines(keepends=True):
        groups.setdefault(line.split()[0], []).append(line)
    return list(groups.values())


def reordered(path: Path, target: Path) -> Path:
    """The qrels grouped by topic, the topics in reverse order, with a blank line and a
    comment between topics, CRLF line ends in one topic and no end on the last line."""
    groups = topic_groups(path)[::-1]
    groups[1] = [line.replace("\n", "\r\n") for line in groups[1]]
    text = "".join("".join(g) + ("\n# next topic\n" if i % 2 else "") for i, g in enumerate(groups))
    target.write_text(text.rstrip("\n"), newline="")
    return target


def shuffled(path: Path, target: Path) -> Path:
    """The qrels lines shuffled (seeded): no topic's lines together."""
    lines = path.read_text().splitlines(keepends=True)
    random.Random(11).shuffle(lines)
    target.write_text("".join(lines))
    return target


@pytest.mark.parametrize("order", ["as_written", "reordered", "shuffled"])
@pytest.mark.parametrize(
    ("flags", "name", "output"), GOLDEN_CASES, ids=[c[2] for c in GOLDEN_CASES]
)
def test_trec_eval_bytes_with_the_qrels_read_back_by_topic(
    streaming, tmp_path, flags, name, output, order
):
    """trec_eval's bytes from the qrels read back a block of topics at a time, for a
    qrels grouped by topic (as written; in reverse topic order with blank, comment and
    CRLF lines and no last line end); a qrels not grouped is read whole, to the same
    bytes. -c's judged topics without results come in several blocks of 200 bytes."""
    qrels = GOLDEN / f"{name}.qrels"
    if order == "reordered":
        qrels = reordered(qrels, tmp_path / "q")
    elif order == "shuffled":
        qrels = shuffled(qrels, tmp_path / "q")
    status, out, err = streaming(flags, qrels, GOLDEN / f"{name}.run")
    assert status == 0, err
    assert out == (GOLDEN / output).read_text()
    if order == "shuffled":
        assert streaming.whole == [str(qrels)] and streaming.held == []
    else:
        assert streaming.whole == [] and len(streaming.held) > 1
        # every judgment is read back once: the run's blocks' topics, then -c's others
        total = sum(1 for line in qrels.read_text().splitlines() if line.strip()[:1].isalnum())
        assert sum(streaming.held) == total


def test_a_run_on_stdin_with_the_qrels_read_back_by_topic(tmp_path):
    """A run piped in (read a block at a time whatever its size) beside a grouped qrels:
    trec_eval's bytes, with -c's judged topics without results."""
    run = (GOLDEN / "medium.run").read_bytes()
    command = [sys.executable, "-m", "irscore", "evaluate", "-m", "all_trec", "-c"]
    done = subprocess.run(
        [*command, str(GOLDEN / "medium.qrels"), "-"], input=run, capture_output=True, check=True
    )
    assert done.stdout == (GOLDEN / "medium.c.trec_eval-9.0.8.txt").read_bytes()


def judged_twice(tmp_path: Path) -> Path:
    """A grouped qrels whose topic 2 (lines 3 to 32, d0 to d29, crossing many blocks of
    200 bytes) judges d3 on line 6 and again on line 29 (in d26's stead)."""
    lines = ["1 0 a1 1\n", "1 0 a2 0\n"]
    lines += [f"2 0 d{i} {i % 3}\n" for i in range(30)]
    lines[28] = "2 0 d3 2\n"
    lines += ["3 0 c1 1\n"]
    path = tmp_path / "q"
    path.write_text("".join(lines))
    return path


def test_a_document_judged_twice_across_blocks_is_the_whole_readers_error(streaming, tmp_path):
    """The index's check sees a topic whole, however many blocks it crosses: the error
    names the second judgment's line and the first's, as the whole-file reader does."""
    qrels = judged_twice(tmp_path)
    run = tmp_path / "r"
    run.write_text("2 Q0 d1 1 3 t\n2 Q0 d3 2 2 t\n")
    status, out, err = streaming(["-m", "map"], qrels, run)
    assert (status, out) == (whole(["-m", "map"], qrels, run)[0], "")
    assert err == whole(["-m", "map"], qrels, run)[2]
    assert "/q:29: document d3 is judged twice for topic 2 (first on line 6)" in err


def test_qrels_with_subtopics_or_compressed_are_read_whole(streaming, tmp_path):
    """A second column that varies (subtopics, or TREC-COVID's rounds) and a gzip qrels
    are read whole: the same bytes as the whole path."""
    rounds = tmp_path / "rounds"
    rounds.write_text("".join(f"1 {i % 2} d{i} {i % 3}\n" for i in range(12)))
    packed = tmp_path / "q.gz"
    packed.write_bytes(gzip.compress((GOLDEN / "small.qrels").read_bytes()))
    run = tmp_path / "r"
    run.write_text("".join(f"1 Q0 d{i} {i + 1} {20 - i} t\n" for i in range(15)))
    for qrels, run_path in ((rounds, run), (packed, GOLDEN / "small.run")):
        flags = ["-q", "-c", "-m", "official"]
        status, out, err = streaming(flags, qrels, run_path)
        assert (status, out) == whole(flags, qrels, run_path)[:2], err
        assert streaming.whole == [str(qrels)] and streaming.held == []


def test_a_json_run_beside_an_indexed_qrels_reads_the_qrels_whole(streaming, tmp_path):
    """A JSON run (no lines to stream) is read whole; so are the qrels then, once."""
    run = tmp_path / "r.json"
    scores: dict[str, dict[str, float]] = {}
    for line in (GOLDEN / "small.run").read_text().splitlines():
        topic, _, docno, _, score, _ = line.split()
        scores.setdefault(topic, {})[docno] = float(score)
    run.write_text(json.dumps(scores))
    flags = ["-c", "-m", "official"]
    status, out, err = streaming(flags, GOLDEN / "small.qrels", run)
    assert status == 0, err
    assert out == whole(flags, GOLDEN / "small.qrels", run)[1]
    assert streaming.whole == [str(GOLDEN / "small.qrels")]


def grouped_inputs(tmp_path: Path, topics: int) -> tuple[Path, Path]:
    """`topics` x 20 run lines and 10 judgments a topic, both grouped by topic (the
    qrels in reverse topic order), plus 5 judged topics without results."""
    rng = random.Random(topics)
    run = tmp_path / f"r{topics}"
    run.write_text(
        "".join(
            f"{t} Q0 d{rng.randrange(60)}x{i} {i + 1} {rng.randrange(6) / 2} tag\n"
            for t in range(1, topics + 1)
            for i in range(20)
        )
    )
    qrels = tmp_path / f"q{topics}"
    qrels.write_text(
        "".join(
            f"{t} 0 d{rng.randrange(60)}x{i} {rng.randrange(-1, 3)}\n"
            for t in range(topics + 5, 0, -1)
            for i in range(10)
        )
    )
    return qrels, run


def test_judgments_held_are_set_by_the_block_not_by_the_qrels(streaming, tmp_path, monkeypatch):
    """Ten times the topics, the same most judgments held at once: those of one block of
    the run's topics (2,000 bytes: about 70 lines, 5 topics, and the one carried on),
    and in the index's check a block of 200 bytes (about 15 lines) and the topic
    carried on; never the qrels whole."""
    from irscore.engine.reading import qrels_blocks

    checked_rows: list[int] = []
    check = qrels_blocks._check

    def counted(parts, pieces):
        checked_rows.append(sum(raw.num_rows for raw, _ in pieces))
        return check(parts, pieces)

    monkeypatch.setattr(qrels_blocks, "_check", counted)
    held, checked_most = [], []
    for topics in (20, 200):
        qrels, run = grouped_inputs(tmp_path, topics)
        status, out, err = streaming(["-c", "-m", "official"], qrels, run)
        assert status == 0, err
        assert out == whole(["-c", "-m", "official"], qrels, run)[1]
        assert streaming.whole == []
        held.append(max(streaming.held))
        checked_most.append(max(checked_rows))
        checked_rows.clear()
    # a run block: 2,000 bytes of ~28-byte lines (~72 lines, 4 whole topics) and the
    # topic carried on: at most 6 topics of 10 judgments
    assert held[1] <= 6 * 10
    assert held[1] <= held[0] + 10
    # the index's check: 200 bytes of ~12-byte lines and the topic carried on
    assert checked_most[1] <= 200 // 10 + 2 * 10
    assert checked_most[1] <= checked_most[0] + 10


def test_a_block_of_comments_only_between_topics(streaming, tmp_path):
    """A run whose topics are parted by more than a block of comment lines (a block
    with no record): trec_eval's bytes (it was an IndexError)."""
    groups = topic_groups(GOLDEN / "small.run")
    comments = "".join(f"# a comment line, number {i}\n" for i in range(200))
    run = tmp_path / "r"
    run.write_text(comments.join("".join(group) for group in groups))
    status, out, err = streaming(["-q", "-m", "all_trec", "-c"], GOLDEN / "small.qrels", run)
    assert status == 0, err
    assert out == (GOLDEN / "small.c.trec_eval-9.0.8.txt").read_text()


def test_several_runs_with_the_qrels_read_back_by_topic(monkeypatch, tmp_path):
    """Several runs, each read a block at a time beside the indexed qrels (several runs
    on the command line otherwise score in batches that need the qrels whole): the
    bytes of the qrels read whole, each run's block after a head naming it."""
    every_run_streamed(monkeypatch, tmp_path, 2000)
    qrels, run = GOLDEN / "medium.qrels", GOLDEN / "medium.run"
    other = tmp_path / "other.run"
    other.write_text(run.read_text().replace(" 1 ", " 3 ", 5))
    flags = ["-q", "-c", "-m", "all_trec"]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["evaluate", *flags, str(qrels), str(run), str(other)])
    monkeypatch.undo()
    assert (status, out.getvalue(), err.getvalue()) == whole(flags, qrels, run, other)
