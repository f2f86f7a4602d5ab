"""`irscore.evaluate` on a large run file reads it as the command line does, a block of
whole topics at a time (`irscore.api_streams.evaluated`): the same DataFrame (values,
dtypes, topic order, `all` rows, attrs) and the same warnings as the file read whole,
and what it holds at once is a block, not the run.
"""

from __future__ import annotations

import gc
import random
import warnings

import pandas as pd
import pytest
from test_streamed import qrels_lines, written

import irscore
from irscore import api_streams
from irscore.engine import evaluate
from irscore.engine.ranking import prepare
from irscore.engine.reading import topic_blocks

MEASURES = ["map", "P.5", "ndcg_cut.10", "num_rel_ret", "bpref", "gm_map", "nDCG@10", "RR"]
GRID = ["reference", "all_qrels", "judged_only", "tie_expected"]


def run_lines(topics: int, depth: int, seed: int = 3) -> list[str]:
    """`topics` x `depth` run lines, topic by topic in numeric order (not byte order: 10
    comes before 2 in strcmp's), scores in steps of 0.5 (many ties), topics 1 .. n and
    one topic no qrels judge (7001)."""
    rng = random.Random(seed)
    return [
        f"{t} Q0 d{rng.randrange(3 * depth)}x{i} {i + 1} {rng.randrange(8) / 2} tag{t % 3}\n"
        for t in [*range(1, topics + 1), 7001]
        for i in range(depth)
    ]


def scored(qrels, runs, **kwargs) -> tuple[pd.DataFrame, list[tuple[type, str]]]:
    """`irscore.evaluate`'s table and its warnings (category, message). Garbage that earlier
    tests left is collected first: a file one of them left open was finalised inside the
    call once, and its ResourceWarning counted as the call's (a fresh clone's make test)."""
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = irscore.evaluate(qrels, runs, **kwargs)
    return table, [(w.category, str(w.message)) for w in caught]


@pytest.fixture
def streaming(monkeypatch, tmp_path):
    """Every run file streamed, in blocks of ~1,000 bytes, temporary folders made under
    tmp_path/tmp; the largest run held at once (rows of a run prepared) kept in `held`."""
    monkeypatch.setattr(api_streams, "STREAM_FROM", 0)
    monkeypatch.setattr(topic_blocks, "BLOCK", 1000)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temporary))
    held = []
    makers = prepare.chunk_makers

    def counted(qrels, run, *args, **kwargs):
        held.append(run.table.num_rows if hasattr(run, "table") else len(run))
        return makers(qrels, run, *args, **kwargs)

    monkeypatch.setattr(prepare, "chunk_makers", counted)
    monkeypatch.setattr(evaluate, "chunk_makers", counted)  # the whole read's
    return held


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "shuffled"])
def test_a_streamed_file_gives_the_table_and_warnings_of_the_whole_read(
    streaming, tmp_path, grouped, monkeypatch
):
    """40 topics of 30 results across many blocks (grouped by topic in numeric order, or
    shuffled, which goes through the spill), under a grid of conventions and trec_eval's
    and peers' names: the same frame (dtypes and categories too) and warnings (the
    topic without judgments, the judged topics without results) as the file read whole."""
    lines = run_lines(40, 30)
    if not grouped:
        random.Random(4).shuffle(lines)
    run = written(tmp_path / "run", lines)
    qrels = written(tmp_path / "qrels", qrels_lines(40, 30, lowest=-1))
    with monkeypatch.context() as whole:
        whole.setattr(api_streams, "STREAM_FROM", 1 << 62)
        expected, said = scored(str(qrels), str(run), measures=MEASURES, convention=GRID)
        assert max(streaming) == 41 * 30  # read whole
    streaming.clear()
    table, told = scored(str(qrels), str(run), measures=MEASURES, convention=GRID)
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert table.attrs == expected.attrs
    assert told == said
    assert any("7001" in message for _, message in told)  # a run topic without judgments
    assert any("9001" in message for _, message in told)  # -c's judged topics without results
    assert list(table["run"].cat.categories) == [lines[0].split()[5]]  # the first line's tag
    assert 0 < max(streaming) < 41 * 30 // 4  # a block at a time, never the run
    assert list((tmp_path / "tmp").iterdir()) == []  # the spill folder removed


def test_several_runs_and_means_only(streaming, tmp_path, monkeypatch):
    """A mapping of two runs (one streamed in numeric topic order, one shuffled) with
    per_topic false: the `all` rows of the whole read, bit for bit (the sums in topic
    order, not block order)."""
    lines = run_lines(60, 20, seed=8)
    one = written(tmp_path / "one", lines)
    random.Random(2).shuffle(lines)
    two = written(tmp_path / "two", lines)
    qrels = written(tmp_path / "qrels", qrels_lines(60, 20, lowest=-1))
    runs = {"one": str(one), "two": str(two)}
    kwargs = {"measures": ["official"], "convention": ["reference", "all_qrels"]}
    with monkeypatch.context() as whole:
        whole.setattr(api_streams, "STREAM_FROM", 1 << 62)
        expected, said = scored(str(qrels), runs, per_topic=False, **kwargs)
    table, told = scored(str(qrels), runs, per_topic=False, **kwargs)
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert told == said


def test_held_rows_stay_flat_as_the_run_grows(streaming, tmp_path):
    """What is prepared at once is a block of topics: 10x the topics (of the same size)
    hold about as many rows (a block's, plus a topic carried over), while the whole
    read would hold all 2,010 / 20,010."""
    qrels = written(tmp_path / "qrels", qrels_lines(1000, 20, lowest=-1))
    peaks = []
    for topics in (100, 1000):
        run = written(tmp_path / f"run{topics}", run_lines(topics, 20))
        streaming.clear()
        scored(str(qrels), str(run), measures=["map"], per_topic=False)
        peaks.append(max(streaming))
    assert 0 < peaks[1] <= peaks[0] + 20 < 100 * 20 // 4
