"""The join of long docnos past the beginning they share (`joins._common_prefix`, then
`joins._matched` on what follows) is exact on docnos built to trip it: digit tails of
different widths and leading zeros, a docno that is the shared beginning alone, mixed
beginnings, non-ASCII bytes, docnos that differ only after the beginning. Each run row's
grade is the one a dict of whole docnos gives (exact equality), and a tie's docnos come
in the order of the plain join (the sort of whole strings, `join` without scores)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from irscore.engine.system import joins

P = "msmarco_passage_"  # 16 bytes
# Tails whose docnos differ only after P: the same digits at other widths, leading zeros,
# one a prefix of another; P alone (the shortest docno leaves P[:15] to skip).
TAILS = ["1", "01", "001", "10", "010", "100", "0", "00", "000", "1_2", "12", "0_12", "9"]
TRICKY = {
    "widths and leading zeros": [P + t for t in TAILS],
    "the beginning alone": [P, *[P + t for t in TAILS]],
    "mixed beginnings": [P + t for t in TAILS] + ["msmarco_doc_" + t for t in TAILS],
    "non-ASCII after it": [P + t for t in TAILS] + [P + "é1", P + "é", P + "1é", P + "ü"],
}
# Docnos judged but not retrieved, each one byte from a retrieved one.
NEAR = [P + "0001", P + "1_", P + "_1", P + "011", "msmarco_passage" + "1"]


def rows(tricky: list[str]) -> tuple:
    """Two topics each retrieving the tricky docnos tied at one score, then 200 untied
    filler docnos below them (so ties stay under `_MOST_TIED` of the rows); qrels judging
    every other tricky docno (grades 0-3 by position), some fillers and the near misses."""
    filler = [f"{P}{i % 70:02d}_{i}" for i in range(200)]  # at most 16 bytes past `msmarco_`
    run_docnos, run_topic, run_score = [], [], []
    for topic in (0, 1):
        run_docnos += tricky + filler
        run_topic += [topic] * (len(tricky) + len(filler))
        run_score += [50.0] * len(tricky) + [40.0 - i / 8 for i in range(len(filler))]
    judged = {}
    for topic in (0, 1):
        for i, docno in enumerate(tricky[topic::2] + filler[::7] + NEAR):
            judged[(topic, docno)] = (i + topic) % 4
    q_topic = np.array([t for t, _ in judged], dtype=np.int32)
    q_docno = pa.array([d for _, d in judged])
    q_grade = np.array(list(judged.values()), dtype=np.int64)
    run = np.array(run_topic, dtype=np.int32), pa.array(run_docnos), np.array(run_score)
    return (q_topic, q_docno, q_grade), run, judged


@pytest.mark.parametrize("case", list(TRICKY))
def test_grades_and_tie_order_are_the_plain_join_s(case, monkeypatch):
    (q_topic, q_docno, q_grade), (r_topic, r_docno, r_score), judged = rows(TRICKY[case])
    taken = []
    matched = joins._matched

    def spied(*args):
        taken.append(matched(*args))
        return taken[-1]

    monkeypatch.setattr(joins, "_matched", spied)
    fast = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno, r_score)
    assert taken and taken[0] is not None  # joined past the beginning, not by the sort
    assert joins._common_prefix(q_docno, r_docno) >= 8  # `msmarco_` at least
    plain = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno)  # the sort of strings
    by_dict = [
        judged.get((int(t), d), joins.NOT_JUDGED)
        for t, d in zip(r_topic, r_docno.to_pylist(), strict=True)
    ]
    assert fast.grade.tolist() == by_dict == plain.grade.tolist()
    tricky = len(TRICKY[case])
    for topic in (0, 1):  # the tie: the same docno order as the whole strings' sort
        tie = np.arange(tricky) + topic * (tricky + 200)
        assert np.argsort(fast.doc[tie]).tolist() == np.argsort(plain.doc[tie]).tolist()
        in_bytes = sorted(range(tricky), key=lambda i: TRICKY[case][i].encode())
        assert np.argsort(plain.doc[tie]).tolist() == in_bytes


def test_a_non_ascii_first_byte_leaves_the_whole_strings_to_the_sort():
    """The shared beginning is read as ASCII: one that starts with `é` is none."""
    run = pa.array(["é" + P + t for t in TAILS])
    assert joins._common_prefix(pa.array(["é" + P + "5"]), run) == 0
