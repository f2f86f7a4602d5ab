"""Every measure of the reference convention (trec_eval 9.0.x), worked out by hand.

Each test writes tiny qrels and run texts, reads them with the strict readers
(through the `scores` fixture of conftest.py) and compares the evaluator with
the arithmetic written out in the test. The rules are those of
../shared/docs/conventions.md, checked against trec_eval 9.0.8's m_*.c.
"""

from math import exp, log, log2

import numpy as np
import pytest

from irscore.engine.measures import MeasureSpec

LEVELS = [f"{j / 10:.2f}" for j in range(11)]


def close(value):
    return pytest.approx(value, rel=1e-12, abs=1e-15)


# Topic 1: relevant (grade >= 1) at ranks 1, 3 and 6; d6 (grade 3) is relevant but never
# retrieved, so R = 4; d2 and d4 are judged non-relevant (N = 2); u1 is unjudged.
MAIN_QRELS = """\
    1 0 d1 1
    1 0 d2 0
    1 0 d3 2
    1 0 d4 0
    1 0 d5 1
    1 0 d6 3
"""
MAIN_RUN = """\
    1 Q0 d1 1 0.9 main
    1 Q0 d2 2 0.8 main
    1 Q0 d3 3 0.7 main
    1 Q0 u1 4 0.6 main
    1 Q0 d4 5 0.5 main
    1 Q0 d5 6 0.4 main
"""


@pytest.fixture
def main(scores):
    return scores(MAIN_QRELS, MAIN_RUN)


def test_counts(main):
    assert main[("1", "num_q")] == 1
    assert main[("1", "num_ret")] == 6
    assert main[("1", "num_rel")] == 4  # d1, d3, d5, d6 (grade >= 1), retrieved or not
    assert main[("1", "num_rel_ret")] == 3  # d1, d3, d5


def test_map_divides_by_all_relevant_in_qrels(main):
    # relevant at ranks 1, 3, 6; R = 4 (d6 never retrieved)
    expected_ap = (1 / 1 + 2 / 3 + 3 / 6) / 4
    assert main[("1", "map")] == close(expected_ap)
    assert main[("all", "map")] == close(expected_ap)


def test_rprec(main):
    expected = 2 / 4  # top R = 4: d1 (rel), d2, d3 (rel), u1
    assert main[("1", "Rprec")] == close(expected)


def test_rprec_fewer_retrieved_than_r(scores):
    qrels = """\
        7 0 a 1
        7 0 b 1
        7 0 c 1
        7 0 d 1
    """
    run = """\
        7 Q0 a 1 2.0 r
        7 Q0 b 2 1.0 r
    """
    out = scores(qrels, run)
    assert out[("7", "Rprec")] == close(2 / 4)  # only 2 retrieved, both relevant; still / R = 4
    assert out[("7", "P_5")] == close(2 / 5)  # P@5 divides by 5 although only 2 were retrieved
    assert out[("7", "recall_5")] == close(2 / 4)


def test_recip_rank_and_success(main, scores):
    assert main[("1", "recip_rank")] == close(1 / 1)  # d1 relevant at rank 1
    qrels = """\
        2 0 a 0
        2 0 b 0
        2 0 c 1
    """
    run = """\
        2 Q0 a 1 3 r
        2 Q0 b 2 2 r
        2 Q0 c 3 1 r
    """
    out = scores(qrels, run)
    assert out[("2", "recip_rank")] == close(1 / 3)  # first relevant at rank 3
    assert out[("2", "success_1")] == 0.0
    assert out[("2", "success_5")] == 1.0
    assert out[("2", "success_10")] == 1.0


def test_precision_divides_by_k(main):
    assert main[("1", "P_5")] == close(2 / 5)  # d1, d3 in the top 5
    assert main[("1", "P_10")] == close(3 / 10)  # 6 retrieved, 3 relevant, divided by 10
    assert main[("1", "P_1000")] == close(3 / 1000)


def test_recall_at_k(main):
    assert main[("1", "recall_5")] == close(2 / 4)
    assert main[("1", "recall_10")] == close(3 / 4)


def test_success_at_k(main):
    assert main[("1", "success_1")] == 1.0
    assert main[("1", "success_5")] == 1.0


def test_map_cut(main):
    assert main[("1", "map_cut_5")] == close((1 / 1 + 2 / 3) / 4)  # ranks 1, 3 within the cut
    assert main[("1", "map_cut_10")] == close((1 / 1 + 2 / 3 + 3 / 6) / 4)


def test_ndcg(main):
    # gains (= grade) by rank: 1, 0, 2, 0 (unjudged), 0, 1
    dcg = 1 / log2(1 + 1) + 2 / log2(3 + 1) + 1 / log2(6 + 1)
    # ideal: every judged positive grade, sorted: 3 (d6, not retrieved), 2, 1, 1
    idcg = 3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert main[("1", "ndcg")] == close(dcg / idcg)
    dcg_5 = 1 / log2(2) + 2 / log2(4)
    assert main[("1", "ndcg_cut_5")] == close(dcg_5 / idcg)  # ideal has only 4 documents
    assert main[("1", "ndcg_cut_10")] == close(dcg / idcg)


def test_bpref_min_n_r(main):
    # R = 4, N = 2 judged non-relevant, so the denominator is min(N, R) = 2
    d1 = 1  # no judged non-relevant above it
    d3 = 1 - min(1, 4) / min(2, 4)  # d2 above it (u1 below, and unjudged anyway)
    d5 = 1 - min(2, 4) / min(2, 4)  # d2 and d4 above it
    assert main[("1", "bpref")] == close((d1 + d3 + d5) / 4)  # d6 not retrieved: adds 0


def test_bpref_caps_at_r_and_ignores_unjudged_and_negative(scores):
    qrels = """\
        3 0 r1 1
        3 0 r2 1
        3 0 r3 1
        3 0 n1 0
        3 0 n2 0
        3 0 n3 0
        3 0 n4 0
        3 0 n5 0
        3 0 x -1
    """
    run = """\
        3 Q0 r1 1 9 r
        3 Q0 n1 2 8 r
        3 Q0 x 3 7 r
        3 Q0 u 4 6 r
        3 Q0 r2 5 5 r
        3 Q0 n2 6 4 r
        3 Q0 n3 7 3 r
        3 Q0 n4 8 2 r
        3 Q0 r3 9 1 r
    """
    out = scores(qrels, run)
    # R = 3, N = 5 (x has grade -1: not judged non-relevant), denominator min(5, 3) = 3
    r1 = 1
    r2 = 1 - min(1, 3) / 3  # only n1 counts above it: x (negative) and u (unjudged) do not
    r3 = 1 - min(4, 3) / 3  # n1..n4 above it, capped at R
    assert out[("3", "bpref")] == close((r1 + r2 + r3) / 3)
    assert out[("3", "bpref")] == close(5 / 9)


def test_iprec_at_recall_and_11pt(main):
    # R = 4: c = (long)(r * 4 + 0.9) for r = 0.0 .. 1.0
    counts = [0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4]
    assert counts == [int(j / 10 * 4 + 0.9) for j in range(11)]
    # precision by rank: 1/1, 1/2, 2/3, 2/4, 2/5, 3/6; relevant at ranks 1, 3, 6
    by_count = {
        0: 1 / 1,  # maximum over the whole ranking
        1: 1 / 1,  # max precision at ranks >= 1
        2: max(2 / 3, 2 / 4, 2 / 5, 3 / 6),  # ranks >= 3
        3: 3 / 6,  # ranks >= 6
        4: 0.0,  # only 3 relevant retrieved: fewer than c = 4
    }
    expected = [by_count[c] for c in counts]
    for level, value in zip(LEVELS, expected, strict=True):
        assert main[("1", f"iprec_at_recall_{level}")] == close(value), level
    assert main[("1", "11pt_avg")] == close((3 * 1 + 3 * (2 / 3) + 2 * (1 / 2) + 3 * 0) / 11)


def test_iprec_r3_recall_07_uses_two_relevant(scores):
    qrels = """\
        5 0 a 1
        5 0 b 1
        5 0 c 1
    """
    run = """\
        5 Q0 a 1 6 r
        5 Q0 n1 2 5 r
        5 Q0 b 3 4 r
        5 Q0 n2 4 3 r
        5 Q0 n3 5 2 r
        5 Q0 c 6 1 r
    """
    out = scores(qrels, run)
    # 0.7 * 3 + 0.9 is 2.9999999999999996 in double precision, so (long) gives c = 2,
    # not 3 (neither rounding nor ceil)
    assert 0.7 * 3 + 0.9 < 3
    assert int(0.7 * 3 + 0.9) == 2
    # precision by rank: 1, 1/2, 2/3, 2/4, 2/5, 3/6; relevant at ranks 1, 3, 6
    at_second = max(2 / 3, 2 / 4, 2 / 5, 3 / 6)  # c = 2: ranks >= 3
    assert out[("5", "iprec_at_recall_0.70")] == close(at_second)
    assert out[("5", "iprec_at_recall_0.70")] != close(3 / 6)  # what c = 3 would give
    # c for R = 3: 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3
    expected = [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 1 / 2]
    for level, value in zip(LEVELS, expected, strict=True):
        assert out[("5", f"iprec_at_recall_{level}")] == close(value), level
    assert out[("5", "11pt_avg")] == close((4 * 1 + 4 * (2 / 3) + 3 * (1 / 2)) / 11)


def test_iprec_zero_when_fewer_than_c_relevant_retrieved(scores):
    qrels = """\
        6 0 a 1
        6 0 b 1
    """
    run = """\
        6 Q0 n 1 2 r
        6 Q0 a 2 1 r
    """
    out = scores(qrels, run)
    # R = 2: c = (long)(r * 2 + 0.9) = 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2; one relevant retrieved
    expected = [1 / 2] * 6 + [0.0] * 5  # precision 1/2 at rank 2; c = 2 is never reached
    for level, value in zip(LEVELS, expected, strict=True):
        assert out[("6", f"iprec_at_recall_{level}")] == close(value), level
    assert out[("6", "11pt_avg")] == close(6 * (1 / 2) / 11)


def test_ndcg_ideal_from_all_judged_ignores_level_and_negative(scores):
    qrels = """\
        8 0 a 2
        8 0 b 1
        8 0 c 0
        8 0 n -1
        8 0 z 3
    """
    run = """\
        8 Q0 n 1 4 r
        8 Q0 b 2 3 r
        8 Q0 c 3 2 r
        8 Q0 a 4 1 r
    """
    dcg = 0 / log2(2) + 1 / log2(3) + 0 / log2(4) + 2 / log2(5)  # n: grade -1 gives gain 0
    idcg = 3 / log2(2) + 2 / log2(3) + 1 / log2(4)  # z (not retrieved), a, b; not n, not c
    expected = dcg / idcg
    for level in (1, 2, 3):
        out = scores(qrels, run, rel_level=level)
        assert out[("8", "ndcg")] == close(expected), level  # -l does not change nDCG
        assert out[("8", "ndcg_cut_5")] == close(expected), level
    spec = MeasureSpec(ndcg_cut=(2,))
    out = scores(qrels, run, spec)
    assert out[("8", "ndcg_cut_2")] == close((1 / log2(3)) / (3 / log2(2) + 2 / log2(3)))


def test_ndcg_zero_ideal_gives_zero(scores):
    out = scores("9 0 a 0\n9 0 b -1\n", "9 Q0 a 1 2 r\n9 Q0 b 2 1 r\n")
    assert out[("9", "ndcg")] == 0.0  # no positive grade: IDCG = 0 gives 0
    assert out[("9", "map")] == 0.0
    assert out[("9", "num_rel")] == 0


# ---------------------------------------------------------------------------------------
# Ranking rules of the reference convention


def test_ties_broken_by_docno_descending_as_strings(scores):
    qrels = """\
        1 0 9 1
        1 0 10 0
        2 0 9 0
        2 0 10 1
    """
    run = """\
        1 Q0 10 1 0.5 r
        1 Q0 9 2 0.5 r
        2 Q0 10 1 0.5 r
        2 Q0 9 2 0.5 r
    """
    out = scores(qrels, run)
    # "9" > "10" as strings (and as bytes), so "9" is ranked first in both topics
    assert "9" > "10"
    assert out[("1", "recip_rank")] == close(1 / 1)  # relevant "9" at rank 1
    assert out[("2", "recip_rank")] == close(1 / 2)  # relevant "10" at rank 2


def test_scores_compared_at_float32(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
    """
    run = """\
        1 Q0 a 1 0.10000000001 r
        1 Q0 b 2 0.1 r
    """
    assert np.float32(0.1) == np.float32(0.10000000001)
    out = scores(qrels, run)
    # equal in float32: tie, docno descending puts "b" before "a"
    assert out[("1", "recip_rank")] == close(1 / 2)
    assert out[("1", "map")] == close((1 / 2) / 1)


def test_rank_column_ignored(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
        1 0 c 1
    """
    consistent = """\
        1 Q0 b 1 0.9 r
        1 Q0 a 2 0.5 r
        1 Q0 c 3 0.1 r
    """
    contradictory = """\
        1 Q0 c 1 0.1 r
        1 Q0 a 2 0.5 r
        1 Q0 b 7 0.9 r
    """
    expected_ap = (1 / 2 + 2 / 3) / 2  # order by score: b, a (rel), c (rel)
    for run in (consistent, contradictory):
        out = scores(qrels, run)
        assert out[("1", "map")] == close(expected_ap)
        assert out[("1", "recip_rank")] == close(1 / 2)


def test_negative_grade_counts_as_unjudged(scores):
    qrels = """\
        1 0 x -1
        1 0 a 1
    """
    run = """\
        1 Q0 x 1 2 r
        1 Q0 a 2 1 r
    """
    out = scores(qrels, run)
    assert out[("1", "num_rel")] == 1  # x is not relevant
    assert out[("1", "num_rel_ret")] == 1
    assert out[("1", "recip_rank")] == close(1 / 2)
    assert out[("1", "map")] == close((1 / 2) / 1)
    assert out[("1", "bpref")] == close(1.0)  # x is not a judged non-relevant document
    assert out[("1", "ndcg")] == close((1 / log2(3)) / (1 / log2(2)))


def test_topics_and_the_all_row(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
        2 0 c 1
        2 0 d 0
        4 0 e 0
    """
    run = """\
        1 Q0 b 1 0.9 r
        1 Q0 a 2 0.8 r
        2 Q0 d 1 0.9 r
        2 Q0 x 2 0.8 r
        3 Q0 f 1 0.9 r
        4 Q0 e 1 0.9 r
        4 Q0 g 2 0.8 r
    """
    out = scores(qrels, run)
    topics = {topic for topic, _measure in out}
    assert topics == {"1", "2", "4", "all"}  # topic 3 has no qrels: skipped
    ap = {"1": 1 / 2, "2": 0.0, "4": 0.0}  # 2: c never retrieved; 4: no relevant document
    for topic, value in ap.items():
        assert out[(topic, "map")] == close(value)
        assert out[(topic, "num_q")] == 1
    assert out[("4", "num_rel")] == 0
    assert out[("4", "ndcg")] == 0.0
    assert out[("4", "recall_5")] == 0.0
    assert out[("4", "Rprec")] == 0.0
    assert out[("all", "num_q")] == 3  # 1, 2, 4
    assert out[("all", "num_ret")] == 2 + 2 + 2  # topic 3 not counted
    assert out[("all", "num_rel")] == 1 + 1 + 0
    assert out[("all", "num_rel_ret")] == 1 + 0 + 0
    assert out[("all", "map")] == close((1 / 2 + 0 + 0) / 3)  # topic 4 included in the mean
    assert out[("all", "P_5")] == close((1 / 5 + 0 + 0) / 3)
    assert out[("all", "recip_rank")] == close((1 / 2 + 0 + 0) / 3)
    gm = exp((log(1 / 2) + log(0.00001) + log(0.00001)) / 3)  # AP 0 floored at 0.00001
    assert out[("all", "gm_map")] == close(gm)
    assert ("1", "gm_map") not in out  # gm_map has only an `all` row, as in trec_eval


def test_gm_map_floors_small_ap(scores):
    qrels = """\
        1 0 a 1
        2 0 b 1
    """
    run = """\
        1 Q0 a 1 1 r
        2 Q0 n 1 1 r
    """
    out = scores(qrels, run)
    assert out[("all", "gm_map")] == close(exp((log(1.0) + log(0.00001)) / 2))
    assert out[("all", "map")] == close((1.0 + 0.0) / 2)
