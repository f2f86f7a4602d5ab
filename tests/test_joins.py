"""The (topic, docno) join of run rows to qrels: hand-worked, then against a dict join."""

import numpy as np
import pyarrow as pa
import pytest

from irscore import joins

NJ = joins.NOT_JUDGED


def _join(qrels: list[tuple[int, str, int]], run: list[tuple[int, str]]) -> joins.Joined:
    q_topic = np.array([t for t, _, _ in qrels], dtype=np.int64)
    q_docno = pa.array([d for _, d, _ in qrels], pa.string())
    q_grade = np.array([g for _, _, g in qrels], dtype=np.int64)
    r_topic = np.array([t for t, _ in run], dtype=np.int64)
    r_docno = pa.array([d for _, d in run], pa.string())
    return joins.join(q_topic, q_docno, q_grade, r_topic, r_docno)


def test_grades_ranks_and_width_by_hand():
    # Topic 0 has docnos {"b", "a", "c"} in the run and {"a", "z"} judged: byte order
    # a < b < c < z, so ranks a=0, b=1, c=2 (z=3 holds a rank but no run row).
    # Topic 1 has "B" and "a": "B" (0x42) < "a" (0x61), so B=0, a=1.
    joined = _join(
        [(0, "a", 2), (0, "z", 0), (1, "a", -1)],
        [(0, "b"), (0, "a"), (0, "c"), (1, "a"), (1, "B")],
    )
    assert joined.doc.tolist() == [1, 0, 2, 1, 0]
    assert joined.grade.tolist() == [NJ, 2, NJ, -1, NJ]
    assert joined.width == 4  # topic 0's four distinct docnos: ranks 0..3
    assert not joined.has_duplicates


def test_a_repeated_docno_is_found_even_when_judged():
    # "a" twice for topic 0: the qrels row sorts first, then both run rows.
    assert _join([(0, "a", 1)], [(0, "a"), (0, "b"), (0, "a")]).has_duplicates
    # The same docno for two topics is no repeat.
    assert not _join([], [(0, "a"), (1, "a")]).has_duplicates


@pytest.mark.parametrize("threaded", [False, True])
def test_matches_a_dict_join_on_generated_rows(monkeypatch, threaded):
    if threaded:  # the two-thread sort, which real inputs reach only from 2**18 rows
        monkeypatch.setattr(joins, "_THREADED", 0)
    rng = np.random.default_rng(11)
    for _ in range(20):
        topics = int(rng.integers(1, 6))
        run = [(int(t), f"d{int(d)}") for t, d in rng.integers(0, [topics, 40], (60, 2))]
        run = list(dict.fromkeys(run))  # no repeats: rank comparison below needs sets
        judged = {(int(t), f"d{int(d)}") for t, d in rng.integers(0, [topics, 40], (30, 2))}
        qrels = [(t, d, int(rng.integers(-2, 4))) for t, d in sorted(judged)]
        joined = _join(qrels, run)
        grade = {(t, d): g for t, d, g in qrels}
        assert joined.grade.tolist() == [grade.get(key, NJ) for key in run]
        for topic in range(topics):
            names = sorted({d for t, d in run if t == topic} | {d for t, d in judged if t == topic})
            expected = [names.index(d) for t, d in run if t == topic]
            assert [
                int(r) for r, (t, _) in zip(joined.doc, run, strict=True) if t == topic
            ] == expected
        assert not joined.has_duplicates
