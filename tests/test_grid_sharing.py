"""A grid of conventions shares work (sort orders, rankings, measures) without changing
a single value: each convention scored alone gives the same bits as within the grid,
and every derived sort order equals a full sort by (topic, score, tie-break)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore.engine import evaluate as evaluate_module
from irscore.engine.evaluate import evaluate, evaluate_one, evaluate_records
from irscore.engine.measures import MeasureSpec
from irscore.engine.ranking import prepare as prepare_module
from irscore.engine.ranking.conventions import (
    DEFAULT_GRID,
    TIE_BREAKS,
    Convention,
    conventions_from_config,
)
from irscore.engine.ranking.prepare import prepare
from irscore.engine.ranking.rank import DuplicateDocumentError, rank

pytestmark = pytest.mark.slow  # started early (tests/conftest.py)

GRID = conventions_from_config(
    {**DEFAULT_GRID, "grades_cleverdon": {"grades": "cranfield_cleverdon"}}
)
SPEC = MeasureSpec(P=(1, 3, 10), recall=(3, 10), ndcg_cut=(3, 10), ndcg_exp_cut=(3,))
ORDERS = [
    Convention(tie_break=tie, score_precision=precision)
    for tie in TIE_BREAKS
    if tie != "expected"  # the reference order, with tie groups
    for precision in ("float32", "float64")
]


@st.composite
def collections(draw):
    """qrels + run with exact ties, float32-only ties, signed zeros, extreme scores,
    negative grades, topics without relevant documents, and large rank numbers."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scores = draw(
        st.sampled_from(
            [
                [0.5, 1.0, 1.0 + 1e-9, 2.0],  # float32-equal, float64-different
                [0.0, -0.0, 1e-300, -1e-300, 3.0],  # one float32 group spanning signs
                [1.0],  # every document tied
                [1e300, -1e300, 7.25, 7.25 + 1e-12],
            ]
        )
    )
    # rank numbers spread so far that packed sort keys no longer fit in 64 bits
    rank_step = draw(st.sampled_from([1, 2**40, 2**54, 2**60]))
    qrels_rows, run_rows = [], []
    for t in range(int(rng.integers(1, 5))):
        topic = str(t + 1)
        docs = rng.choice(200, size=int(rng.integers(1, 25)), replace=False)
        for i, doc in enumerate(docs):
            rank = int(rng.integers(1, 4)) * rank_step + i % 2
            run_rows.append((topic, f"{doc}", rank, float(rng.choice(scores)), "g"))
            if rng.random() < 0.6:
                grade = int(rng.choice([-1, 0, 1, 2, 3, 5]))
                qrels_rows.append((topic, f"{doc}", grade if t else min(grade, 0)))
        qrels_rows.append((topic, "never_retrieved", 1 if t else 0))
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "docno", "grade"])
    run = pd.DataFrame(run_rows, columns=["topic", "docno", "rank", "score", "tag"])
    return qrels, run


def _values(table: pd.DataFrame) -> pd.Series:
    labels = ["convention", "topic", "measure"]
    return table.astype(dict.fromkeys(labels, str)).set_index(labels)["value"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_grid_equals_each_convention_alone(data):
    qrels, run = data
    together = _values(evaluate(qrels, run, GRID, SPEC))
    alone = pd.concat([_values(evaluate(qrels, run, [c], SPEC)) for c in GRID])
    pd.testing.assert_series_equal(together, alone, check_exact=True)


def cleverdon(grade: int) -> int:
    """Cranfield's grades as Cleverdon defined them: 1 (complete answer) .. 5 (none) give
    gain 4 .. 0, and ir_datasets' -1 (no interest) gives 0."""
    return 5 - grade if 1 <= grade <= 5 else 0 if grade == -1 else grade


def expected_order(qrels, run, tie_break: str, precision: str, grades: str) -> list[int]:
    """The run's rows in the convention's order, by plain sorted() on the spec's rule.

    Topic (as a string), then score descending at the precision (float32: rounded to a
    C float, 1e300 becoming inf; -0.0 equal to 0.0), then the tie-break:
    docno_desc / docno_asc: the docno as a string, descending / ascending;
    docno_numeric: by numeric value (every run docno here is an integer);
    rank: the rank column ascending, equal ranks in file order; file_order: line order;
    optimistic / pessimistic: usefulness descending / ascending, where usefulness is
    the (mapped) grade, and -1 for unjudged documents and negative grades; then docno
    descending. Python's sort is stable: sorting by the tie-break first, then by
    score, then by topic, gives the order by (topic, score, tie-break).
    """
    judged = {
        (t, d): cleverdon(g) if grades == "cranfield_cleverdon" else g
        for t, d, g in qrels[["topic", "docno", "grade"]].itertuples(index=False)
    }
    topic, docno = run["topic"].tolist(), run["docno"].tolist()
    rank_column = run["rank"].tolist()
    usefulness = [max(judged.get((t, d), -1), -1) for t, d in zip(topic, docno, strict=True)]
    score = run["score"].to_numpy()
    if precision == "float32":
        with np.errstate(over="ignore"):
            score = score.astype(np.float32)
    score = [float(s) for s in score]
    rows = list(range(len(run)))
    if tie_break == "docno_desc":
        rows.sort(key=lambda i: docno[i], reverse=True)
    elif tie_break == "docno_asc":
        rows.sort(key=lambda i: docno[i])
    elif tie_break == "docno_numeric":
        rows.sort(key=lambda i: int(docno[i]))
    elif tie_break == "rank":
        rows.sort(key=lambda i: rank_column[i])
    elif tie_break in ("optimistic", "pessimistic"):
        rows.sort(key=lambda i: docno[i], reverse=True)
        rows.sort(key=lambda i: usefulness[i], reverse=tie_break == "optimistic")
    else:
        assert tie_break == "file_order"
    rows.sort(key=lambda i: -score[i])
    rows.sort(key=lambda i: topic[i])
    return rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from(["raw", "cranfield_cleverdon"]))
def test_derived_orders_equal_a_full_sort(data, grades):
    qrels, run = data
    p = prepare(qrels, run)
    for convention in ORDERS:
        c = Convention(
            tie_break=convention.tie_break,
            score_precision=convention.score_precision,
            grades=grades,
        )
        _, rows, _, _ = rank(p, c)
        full = expected_order(qrels, run, c.tie_break, c.score_precision, grades)
        assert rows.tolist() == full, c


CHUNKED = [
    *GRID,
    Convention(topics="all_qrels"),
    Convention(topics="all_qrels", missing_topics="evaluated", no_relevant_topics="skip"),
    Convention(duplicates="first", tie_break="file_order"),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 30), st.sampled_from([1, 1 << 16]))
def test_topic_chunks_give_the_same_bits(data, rows, stretches):
    """`evaluate_records` in chunks of topics of about `rows` run rows equals the whole
    input at once: per-topic values, topic order, means (summed across chunks in
    topic order) and notes, whether chunks find their rows by stretches of rows or by
    a scan of every row. Topic 0 is judged but never retrieved (-c fills it)."""
    qrels, run = data
    prepare_module._STRETCHES = stretches  # restored by the fixture below
    qrels = pd.concat([qrels, pd.DataFrame([("0", "x", 1)], columns=qrels.columns)])
    run = pd.concat([run, run.iloc[:1]], ignore_index=True)  # one repeated document
    for c in CHUNKED:
        rows_of = run if c.duplicates == "first" else run.iloc[:-1]
        whole = evaluate_one(prepare(qrels, rows_of), c, SPEC)
        chunked = evaluate_records(qrels, rows_of, c, SPEC, rows=rows)
        assert list(chunked[1]) == list(whole[1])
        assert chunked[0].keys() == whole[0].keys()
        for name in whole[0]:
            np.testing.assert_array_equal(chunked[0][name], whole[0][name])
        np.testing.assert_equal(chunked[2], whole[2])  # NaN equals NaN here
        assert chunked[3] == whole[3]


@pytest.fixture(autouse=True)
def _stretches_restored():
    kept = prepare_module._STRETCHES
    yield
    prepare_module._STRETCHES = kept


@pytest.mark.parametrize("most", [1 << 16, 1])  # by stretches, then by a scan of every row
def test_the_rows_of_each_chunk_by_hand(monkeypatch, most):
    """In [0, 0, 1, 1, 1, 0, 2], chunk 0 is rows 0, 1 and 5 (two stretches), chunk 1 rows
    2 to 4 and chunk 2 row 6 (slices: no copy), chunk 3 no row."""
    monkeypatch.setattr(prepare_module, "_STRETCHES", most)
    rows = prepare_module._RowsOfChunks(np.array([0, 0, 1, 1, 1, 0, 2], np.uint8))
    assert list(rows.of(0)) == [0, 1, 5]
    assert rows.of(1) == slice(2, 5)
    assert rows.of(2) == slice(6, 7)
    assert len(np.arange(7)[rows.of(3)]) == 0
    assert prepare_module._RowsOfChunks(np.zeros(0, np.uint8)).of(0) == slice(0, 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_two_threads_give_the_same_bits(data):
    """From THREADED_ROWS run rows `evaluate` scores two halves of the topics on two
    threads; the long table equals the whole input's bit for bit, over the grid. Topic 0
    is judged but never retrieved (-c fills it, from the first half)."""
    qrels, run = data
    qrels = pd.concat([qrels, pd.DataFrame([("0", "x", 1)], columns=qrels.columns)])
    whole = evaluate(qrels, run, GRID, SPEC)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluate_module, "THREADED_ROWS", 1)
        halves = evaluate(qrels, run, GRID, SPEC)
    pd.testing.assert_frame_equal(halves, whole, check_exact=True)
    assert halves.attrs == whole.attrs


@pytest.mark.parametrize("interleaved", [False, True])
def test_a_repeat_in_a_later_chunk_names_its_line(interleaved):
    """A chunk's rows map back to the run's lines, whether they are consecutive (taken as
    a slice) or not. Topic 2's document c is on lines 3 and 6 (lines 2 and 5 when
    topic 1's second row is moved to the end)."""
    topics, docnos = ["1", "1", "2", "2", "2", "2"], ["a", "b", "c", "d", "e", "c"]
    if interleaved:
        topics, docnos = (
            topics[:1] + topics[2:] + topics[1:2],
            docnos[:1] + docnos[2:] + docnos[1:2],
        )
    run = pd.DataFrame({"topic": topics, "docno": docnos, "score": 1.0, "rank": 1, "tag": "r"})
    run.attrs["source"] = "run.txt"
    qrels = pd.DataFrame({"topic": ["1", "2"], "docno": ["a", "c"], "grade": [1, 1]})
    first, second = (2, 5) if interleaved else (3, 6)
    expected = rf"run.txt:{second}: document c .* topic 2 \(first on line {first}\)"
    for rows in (None, 2):  # whole, then one chunk a topic
        with pytest.raises(DuplicateDocumentError, match=expected):
            evaluate_records(qrels, run, Convention(duplicates="error"), SPEC, rows=rows)


def test_default_chunks_have_a_least_size_and_a_largest_number(monkeypatch):
    """By default `evaluate_records` scores chunks of at least CHUNK_ROWS run rows, and at
    most CHUNKS of them (a run not grouped by topic is scanned for each): 40 rows in chunks of
    at least 4 rows make 10 chunks, at most 3 chunks make chunks of ceil(40 / 3) = 14
    rows; the values are the whole run's."""
    topics = [str(t) for t in range(10) for _ in range(4)]
    run = pd.DataFrame(
        {"topic": topics, "docno": [f"d{i}" for i in range(40)], "score": 1.0, "rank": 1}
    )
    run["tag"] = "r"
    qrels = pd.DataFrame({"topic": [str(t) for t in range(10)], "docno": "d0", "grade": 1})
    whole = evaluate_one(prepare(qrels, run), Convention(), SPEC)
    seen, chunk_makers = [], evaluate_module.chunk_makers

    def chunks(q, r, rows, topics):
        seen.append(rows)
        return chunk_makers(q, r, rows, topics)

    monkeypatch.setattr(evaluate_module, "chunk_makers", chunks)
    monkeypatch.setattr(evaluate_module, "CHUNK_ROWS", 4)
    for most, rows in ((100, 4), (3, 14)):
        monkeypatch.setattr(evaluate_module, "CHUNKS", most)
        values, topics, means, _ = evaluate_records(qrels, run, Convention(), SPEC)
        assert seen[-1] == rows
        assert list(topics) == list(whole[1])
        for name in whole[0]:
            np.testing.assert_array_equal(values[name], whole[0][name])
        np.testing.assert_equal(means, whole[2])
