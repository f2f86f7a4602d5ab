"""The variants no reference tool computes, checked against small cases worked by hand.

Each test changes one decision of the reference convention (see
../shared/docs/conventions.md, "The variants") and writes the arithmetic out.
tie_break="expected" is not tested here (it is being implemented elsewhere).
"""

import warnings
from math import log2

import pytest

from irscore.engine.measures import MeasureSpec
from irscore.engine.ranking.rank import DuplicateDocumentError

LEVELS = [f"{j / 10:.2f}" for j in range(11)]


def close(value):
    return pytest.approx(value, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------------------
# tie_break


# Topic 1: "10", "9", "100" all tied; only "10" is relevant.
# Topic 2: "abc", "5", "7" tied; only "abc" (not a number) is relevant.
TIE_QRELS = """\
    1 0 10 1
    1 0 9 0
    1 0 100 0
    2 0 abc 1
    2 0 5 0
    2 0 7 0
"""
TIE_RUN = """\
    1 Q0 9 1 0.5 r
    1 Q0 10 2 0.5 r
    1 Q0 100 3 0.5 r
    2 Q0 5 1 0.5 r
    2 Q0 abc 2 0.5 r
    2 Q0 7 3 0.5 r
"""


def test_tie_break_docno_desc_asc_numeric(scores):
    desc = scores(TIE_QRELS, TIE_RUN)  # reference: "9" > "100" > "10"
    asc = scores(TIE_QRELS, TIE_RUN, tie_break="docno_asc")  # "10" < "100" < "9"
    numeric = scores(TIE_QRELS, TIE_RUN, tie_break="docno_numeric")  # 9 < 10 < 100
    assert desc[("1", "recip_rank")] == close(1 / 3)
    assert asc[("1", "recip_rank")] == close(1 / 1)
    assert numeric[("1", "recip_rank")] == close(1 / 2)
    # topic 2: strings descending "abc" > "7" > "5"; ascending "5" < "7" < "abc";
    # numeric: 5, 7, then the non-numeric "abc" after the numeric docnos
    assert desc[("2", "recip_rank")] == close(1 / 1)
    assert asc[("2", "recip_rank")] == close(1 / 3)
    assert numeric[("2", "recip_rank")] == close(1 / 3)


def test_tie_break_numeric_puts_non_numeric_after_numbers(scores):
    qrels = """\
        1 0 b 1
        1 0 a 0
        1 0 20 0
        1 0 3 0
    """
    run = """\
        1 Q0 b 1 1 r
        1 Q0 a 2 1 r
        1 Q0 20 3 1 r
        1 Q0 3 4 1 r
    """
    out = scores(qrels, run, tie_break="docno_numeric")
    # 3, 20 (numbers ascending), then "a", "b": relevant "b" at rank 4
    assert out[("1", "recip_rank")] == close(1 / 4)
    assert out[("1", "map")] == close((1 / 4) / 1)


def test_tie_break_numeric_exact_for_long_integers(scores):
    small, big = "99999999999999999", "100000000000000000"  # 10**17 - 1 < 10**17
    qrels = f"1 0 {small} 1\n1 0 {big} 0\n"
    run = f"1 Q0 {big} 1 1 r\n1 Q0 {small} 2 1 r\n"
    out = scores(qrels, run, tie_break="docno_numeric")
    assert out[("1", "recip_rank")] == close(1 / 1)  # the smaller number first


def test_tie_break_rank_column(scores):
    qrels = """\
        1 0 a 0
        1 0 b 1
        1 0 c 0
    """
    run = """\
        1 Q0 b 2 0.5 r
        1 Q0 a 1 0.5 r
        1 Q0 c 3 0.9 r
    """
    # c has the highest score and stays first whatever its rank; a and b are tied:
    # reference (docno desc): c, b, a; rank column: c, a (rank 1), b (rank 2)
    assert scores(qrels, run)[("1", "recip_rank")] == close(1 / 2)
    assert scores(qrels, run, tie_break="rank")[("1", "recip_rank")] == close(1 / 3)


def test_tie_break_file_order(scores):
    qrels = """\
        1 0 a 0
        1 0 b 1
    """
    run = """\
        1 Q0 a 2 0.5 r
        1 Q0 b 1 0.5 r
    """
    # file order: a, b; rank column: b (1), a (2); docno desc: b, a
    assert scores(qrels, run, tie_break="file_order")[("1", "recip_rank")] == close(1 / 2)
    assert scores(qrels, run, tie_break="rank")[("1", "recip_rank")] == close(1 / 1)
    assert scores(qrels, run)[("1", "recip_rank")] == close(1 / 1)


# z: grade 1, y: unjudged, x: grade 2, w: grade 0, all tied. R = 2 (x, z), N = 1 (w).
# docno desc: z, y, x, w. Optimistic: x (2), z (1), w (0), y (unjudged).
# Pessimistic: y (unjudged), w (0), z (1), x (2).
AWARE_QRELS = """\
    1 0 z 1
    1 0 x 2
    1 0 w 0
"""
AWARE_RUN = """\
    1 Q0 w 1 3.0 r
    1 Q0 x 2 3.0 r
    1 Q0 y 3 3.0 r
    1 Q0 z 4 3.0 r
"""


def test_tie_break_optimistic(scores):
    out = scores(AWARE_QRELS, AWARE_RUN, tie_break="optimistic")
    assert out[("1", "map")] == close((1 / 1 + 2 / 2) / 2)
    assert out[("1", "ndcg")] == close(1.0)  # x (2), z (1) first: the ideal order
    assert out[("1", "bpref")] == close((1 + 1) / 2)  # w is below both relevant
    assert out[("1", "recip_rank")] == close(1 / 1)


def test_tie_break_pessimistic(scores):
    out = scores(AWARE_QRELS, AWARE_RUN, tie_break="pessimistic")
    assert out[("1", "map")] == close((1 / 3 + 2 / 4) / 2)
    dcg = 1 / log2(3 + 1) + 2 / log2(4 + 1)  # z at rank 3, x at rank 4
    idcg = 2 / log2(2) + 1 / log2(3)
    assert out[("1", "ndcg")] == close(dcg / idcg)
    both = 1 - min(1, 2) / min(1, 2)  # w above each relevant
    assert out[("1", "bpref")] == close((both + both) / 2)
    assert out[("1", "recip_rank")] == close(1 / 3)


def test_tie_aware_bounds_bracket_the_reference(scores):
    reference = scores(AWARE_QRELS, AWARE_RUN)  # z, y, x, w
    assert reference[("1", "map")] == close((1 / 1 + 2 / 3) / 2)
    low = scores(AWARE_QRELS, AWARE_RUN, tie_break="pessimistic")
    high = scores(AWARE_QRELS, AWARE_RUN, tie_break="optimistic")
    for measure in ("map", "ndcg", "bpref", "recip_rank", "P_5", "Rprec"):
        key = ("1", measure)
        assert low[key] <= reference[key] <= high[key], measure


# ---------------------------------------------------------------------------------------
# score_precision


def test_score_precision_float64(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
    """
    run = """\
        1 Q0 a 1 0.10000000001 r
        1 Q0 b 2 0.1 r
    """
    # float32: a tie, "b" > "a" comes first; float64: a has the higher score
    assert scores(qrels, run)[("1", "recip_rank")] == close(1 / 2)
    out = scores(qrels, run, score_precision="float64")
    assert out[("1", "recip_rank")] == close(1 / 1)
    assert out[("1", "map")] == close(1.0)


def test_scores_beyond_float32_tie_at_infinity_without_warnings(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
    """
    run = """\
        1 Q0 a 1 1e301 r
        1 Q0 b 2 1e300 r
    """
    # trec_eval stores both in a C float: +inf and +inf, a tie, so "b" > "a" comes first
    # (reciprocal rank 1/2); float64 keeps a above b (1/1). The overflow is by design.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scores(qrels, run)[("1", "recip_rank")] == close(1 / 2)
        assert scores(qrels, run, tie_break="expected")[("1", "recip_rank")] == close(3 / 4)
    assert scores(qrels, run, score_precision="float64")[("1", "recip_rank")] == close(1.0)


# ---------------------------------------------------------------------------------------
# topics, no_relevant_topics, unjudged, rel_level, depth


TOPICS_QRELS = """\
    1 0 a 1
    1 0 b 0
    2 0 c 1
    2 0 d 1
    3 0 e 0
"""
TOPICS_RUN = """\
    1 Q0 b 1 2 r
    1 Q0 a 2 1 r
    3 Q0 e 1 1 r
"""


def test_topics_all_qrels(scores):
    reference = scores(TOPICS_QRELS, TOPICS_RUN)
    assert reference[("all", "num_q")] == 2  # topics 1 and 3
    assert reference[("all", "map")] == close((1 / 2 + 0) / 2)
    assert ("2", "map") not in reference
    out = scores(TOPICS_QRELS, TOPICS_RUN, topics="all_qrels")
    assert out[("all", "num_q")] == 3  # topic 2 (not in the run) is counted ...
    assert out[("2", "map")] == 0.0  # ... and scores 0 on every measure
    assert out[("2", "P_5")] == 0.0
    assert out[("2", "ndcg")] == 0.0
    assert out[("2", "num_ret")] == 0
    assert out[("2", "num_rel")] == 2  # c and d are still its relevant documents
    assert out[("all", "map")] == close((1 / 2 + 0 + 0) / 3)
    assert out[("all", "P_5")] == close((1 / 5 + 0 + 0) / 3)
    assert out[("all", "num_rel")] == 1 + 2 + 0


def test_no_relevant_topics_skip(scores):
    reference = scores(TOPICS_QRELS, TOPICS_RUN)
    assert reference[("3", "map")] == 0.0  # topic 3 has only a grade-0 judgment
    out = scores(TOPICS_QRELS, TOPICS_RUN, no_relevant_topics="skip")
    assert ("3", "map") not in out
    assert out[("all", "num_q")] == 1
    assert out[("all", "map")] == close(1 / 2)  # topic 1 alone
    assert out[("all", "P_5")] == close(1 / 5)


def test_unjudged_removed_closes_up_ranks(scores):
    qrels = """\
        1 0 a 1
        1 0 b 1
        1 0 n 0
        1 0 x -1
    """
    run = """\
        1 Q0 u 1 5 r
        1 Q0 a 2 4 r
        1 Q0 x 3 3 r
        1 Q0 n 4 2 r
        1 Q0 b 5 1 r
    """
    reference = scores(qrels, run)
    assert reference[("1", "map")] == close((1 / 2 + 2 / 5) / 2)  # a at 2, b at 5
    assert reference[("1", "num_ret")] == 5
    out = scores(qrels, run, unjudged="removed")
    # u (unjudged) and x (grade -1) leave the ranking: a, n, b at ranks 1, 2, 3
    assert out[("1", "num_ret")] == 3
    assert out[("1", "map")] == close((1 / 1 + 2 / 3) / 2)
    assert out[("1", "P_5")] == close(2 / 5)
    assert out[("1", "recip_rank")] == close(1 / 1)
    assert out[("1", "ndcg")] == close((1 / log2(2) + 1 / log2(4)) / (1 / log2(2) + 1 / log2(3)))


def test_unjudged_removed_keeps_tie_order(scores):
    qrels = """\
        1 0 a 1
        1 0 c 0
    """
    run = """\
        1 Q0 a 1 1 r
        1 Q0 b 2 1 r
        1 Q0 c 3 1 r
    """
    # tie: docno desc c, b, a; -J removes b: c, a
    out = scores(qrels, run, unjudged="removed")
    assert out[("1", "recip_rank")] == close(1 / 2)


def test_rel_level_2(scores):
    qrels = """\
        1 0 a 2
        1 0 b 1
        1 0 c 0
        1 0 d 3
        1 0 e 2
    """
    run = """\
        1 Q0 b 1 4 r
        1 Q0 a 2 3 r
        1 Q0 c 3 2 r
        1 Q0 d 4 1 r
    """
    reference = scores(qrels, run)
    assert reference[("1", "num_rel")] == 4  # a, b, d, e
    assert reference[("1", "map")] == close((1 / 1 + 2 / 2 + 3 / 4) / 4)
    out = scores(qrels, run, rel_level=2)
    assert out[("1", "num_rel")] == 3  # a, d, e (grade >= 2)
    assert out[("1", "num_rel_ret")] == 2
    assert out[("1", "map")] == close((1 / 2 + 2 / 4) / 3)
    assert out[("1", "P_5")] == close(2 / 5)
    assert out[("1", "recip_rank")] == close(1 / 2)
    # judged non-relevant now b (1) and c (0): N = 2, R = 3, min(N, R) = 2
    a = 1 - min(1, 3) / 2  # b above
    d = 1 - min(2, 3) / 2  # b, c above
    assert out[("1", "bpref")] == close((a + d) / 3)
    # nDCG ignores the relevance level: gains b 1, a 2, c 0, d 3; ideal 3, 2, 2, 1
    dcg = 1 / log2(2) + 2 / log2(3) + 3 / log2(5)
    idcg = 3 / log2(2) + 2 / log2(3) + 2 / log2(4) + 1 / log2(5)
    assert out[("1", "ndcg")] == close(dcg / idcg)
    assert reference[("1", "ndcg")] == close(dcg / idcg)


def test_depth_after_sorting(scores):
    qrels = """\
        1 0 a 1
        1 0 b 1
        1 0 d 0
    """
    run = """\
        1 Q0 c 1 0.1 r
        1 Q0 a 2 0.9 r
        1 Q0 b 3 0.5 r
        1 Q0 d 4 0.7 r
    """
    # sorted by score: a (0.9), d (0.7), b (0.5), c (0.1)
    reference = scores(qrels, run)
    assert reference[("1", "num_ret")] == 4
    assert reference[("1", "map")] == close((1 / 1 + 2 / 3) / 2)
    out = scores(qrels, run, depth=2)  # -M 2: a, d
    assert out[("1", "num_ret")] == 2
    assert out[("1", "num_rel_ret")] == 1
    assert out[("1", "map")] == close((1 / 1) / 2)
    assert out[("1", "P_5")] == close(1 / 5)
    assert out[("1", "recall_5")] == close(1 / 2)


def test_duplicate_beyond_depth_is_not_an_error(scores):
    qrels = "1 0 a 1\n"
    run = """\
        1 Q0 a 1 0.9 r
        1 Q0 b 2 0.8 r
        1 Q0 c 3 0.7 r
        1 Q0 c 4 0.1 r
    """
    with pytest.raises(DuplicateDocumentError):
        scores(qrels, run)
    out = scores(qrels, run, depth=2)  # both copies of c are below the depth
    assert out[("1", "map")] == close(1.0)


# ---------------------------------------------------------------------------------------
# gain, interpolation, grades


def test_gain_exponential(scores):
    qrels = """\
        1 0 a 1
        1 0 b 2
        1 0 c 3
    """
    run = """\
        1 Q0 a 1 2 r
        1 Q0 b 2 1 r
    """
    out = scores(qrels, run, MeasureSpec(ndcg_cut=(1, 5)), gain="exponential")
    # gains 2^g - 1: a 1, b 3; ideal c 7, b 3, a 1
    dcg = (2**1 - 1) / log2(2) + (2**2 - 1) / log2(3)
    idcg = (2**3 - 1) / log2(2) + (2**2 - 1) / log2(3) + (2**1 - 1) / log2(4)
    assert out[("1", "ndcg_exp")] == close(dcg / idcg)
    assert out[("1", "ndcg_exp_cut_5")] == close(dcg / idcg)
    assert out[("1", "ndcg_exp_cut_1")] == close((1 / log2(2)) / (7 / log2(2)))
    measures = {m for _t, m in out}
    assert "ndcg" not in measures and "ndcg_cut_5" not in measures


# R = 3, relevant at ranks 1, 3, 6; precision 1, 1/2, 2/3, 2/4, 2/5, 3/6.
# Interpolated precision for a count c: c <= 1 -> 1, c = 2 -> 2/3, c = 3 -> 1/2.
INTERP_QRELS = """\
    1 0 a 1
    1 0 b 1
    1 0 c 1
"""
INTERP_RUN = """\
    1 Q0 a 1 6 r
    1 Q0 n1 2 5 r
    1 Q0 b 3 4 r
    1 Q0 n2 4 3 r
    1 Q0 n3 5 2 r
    1 Q0 c 6 1 r
"""
BY_COUNT = {0: 1.0, 1: 1.0, 2: 2 / 3, 3: 1 / 2}


@pytest.mark.parametrize(
    ("rule", "counts"),
    [
        # (long)(r * 3 + 0.9): 0.3+0.9 -> 1, 1.2+0.9 -> 2, 2.1+0.9 (2.99..96) -> 2, 2.4+0.9 -> 3
        ("trec_eval9", [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]),
        # lround(r * 3): 0.3 -> 0, 1.2 -> 1, 1.5 -> 2, 2.1 -> 2, 2.4 -> 2, 2.7 -> 3
        ("trec_eval10", [0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3]),
        # ceil(r * 3): 0.3 -> 1, 1.2 -> 2, 2.1 -> 3
        ("textbook", [0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]),
    ],
)
def test_interpolation_rules(scores, rule, counts):
    out = scores(INTERP_QRELS, INTERP_RUN, interpolation=rule)
    expected = [BY_COUNT[c] for c in counts]
    for level, value in zip(LEVELS, expected, strict=True):
        assert out[("1", f"iprec_at_recall_{level}")] == close(value), level
    assert out[("1", "11pt_avg")] == close(sum(expected) / 11)


def test_interpolation_trec_eval10_rounds_half_away_from_zero(scores):
    # R = 3, r = 0.5: lround(1.5) = 2 -> 2/3 (as in the table above)
    out = scores(INTERP_QRELS, INTERP_RUN, interpolation="trec_eval10")
    assert out[("1", "iprec_at_recall_0.50")] == close(2 / 3)
    # R = 5, r = 0.5: lround(2.5) = 3 (half away from zero; banker's rounding would give 2)
    qrels = "".join(f"1 0 r{i} 1\n" for i in range(5))
    run = """\
        1 Q0 r0 1 5 r
        1 Q0 r1 2 4 r
        1 Q0 n1 3 3 r
        1 Q0 n2 4 2 r
        1 Q0 r2 5 1 r
    """
    # precision 1, 1, 2/3, 2/4, 3/5: c = 2 -> max(1, 2/3, 2/4, 3/5) = 1; c = 3 -> 3/5
    out = scores(qrels, run, interpolation="trec_eval10")
    assert out[("1", "iprec_at_recall_0.50")] == close(3 / 5)
    out = scores(qrels, run, interpolation="textbook")  # ceil(2.5) = 3
    assert out[("1", "iprec_at_recall_0.50")] == close(3 / 5)


def test_grades_cranfield_cleverdon(scores):
    qrels = """\
        1 0 x -1
        1 0 a 4
        1 0 b 1
    """
    run = """\
        1 Q0 x 1 3 r
        1 Q0 a 2 2 r
        1 Q0 b 3 1 r
    """
    raw = scores(qrels, run)
    mapped = scores(qrels, run, grades="cranfield_cleverdon")
    # raw: x unjudged (gain 0), a 4, b 1; ideal 4, 1
    raw_dcg = 4 / log2(3) + 1 / log2(4)
    assert raw[("1", "ndcg")] == close(raw_dcg / (4 / log2(2) + 1 / log2(3)))
    # Cleverdon: 5 - g: a (4) -> 1, b (1) -> 4, x (-1) -> 0 (judged non-relevant)
    dcg = 1 / log2(3) + 4 / log2(4)
    idcg = 4 / log2(2) + 1 / log2(3)
    assert mapped[("1", "ndcg")] == close(dcg / idcg)
    # bpref: raw, x is unjudged, so nothing above a and b counts: (1 + 1) / 2
    assert raw[("1", "bpref")] == close(1.0)
    # mapped: x is a judged non-relevant document above both: N = 1, R = 2
    both = 1 - min(1, 2) / min(1, 2)
    assert mapped[("1", "bpref")] == close((both + both) / 2)
    # binary relevance is the same (both a and b have grade >= 1 either way)
    assert raw[("1", "map")] == close((1 / 2 + 2 / 3) / 2)
    assert mapped[("1", "map")] == close((1 / 2 + 2 / 3) / 2)


# ---------------------------------------------------------------------------------------
# duplicates


DUP_QRELS = """\
    1 0 a 1
    1 0 b 0
"""
DUP_RUN = """\
    1 Q0 a 1 0.1 r
    1 Q0 b 2 0.5 r
    1 Q0 a 3 0.9 r
"""


def test_duplicates_error_names_docno_and_topic(scores):
    with pytest.raises(DuplicateDocumentError) as info:
        scores(DUP_QRELS, DUP_RUN)
    message = str(info.value)
    assert "document a " in message
    assert "topic 1" in message


def test_duplicates_first_keeps_first_in_file_order(scores):
    out = scores(DUP_QRELS, DUP_RUN, duplicates="first")
    # the first line of a (score 0.1) is kept: b (0.5), a (0.1)
    assert out[("1", "num_ret")] == 2
    assert out[("1", "recip_rank")] == close(1 / 2)
    assert out[("1", "map")] == close((1 / 2) / 1)


# ---------------------------------------------------------------------------------------
# the known mistakes


def test_mistake_ap_over_retrieved(scores):
    qrels = """\
        1 0 a 1
        1 0 b 1
        1 0 c 1
        1 0 n 0
    """
    run = """\
        1 Q0 a 1 3 r
        1 Q0 n 2 2 r
        1 Q0 b 3 1 r
    """
    spec = MeasureSpec(map_cut=(2,))
    reference = scores(qrels, run, spec)
    assert reference[("1", "map")] == close((1 / 1 + 2 / 3) / 3)  # R = 3
    assert reference[("1", "map_cut_2")] == close((1 / 1) / 3)
    out = scores(qrels, run, spec, mistake="ap_over_retrieved")
    assert out[("1", "map")] == close((1 / 1 + 2 / 3) / 2)  # 2 relevant retrieved
    assert out[("1", "map_cut_2")] == close((1 / 1) / 1)  # 1 relevant within the cut


def test_mistake_ideal_from_run(scores):
    qrels = """\
        1 0 a 1
        1 0 b 2
        1 0 c 3
    """
    run = """\
        1 Q0 a 1 2 r
        1 Q0 b 2 1 r
    """
    dcg = 1 / log2(2) + 2 / log2(3)
    reference = scores(qrels, run)
    assert reference[("1", "ndcg")] == close(dcg / (3 / log2(2) + 2 / log2(3) + 1 / log2(4)))
    out = scores(qrels, run, mistake="ideal_from_run")
    assert out[("1", "ndcg")] == close(dcg / (2 / log2(2) + 1 / log2(3)))  # c left out
    assert out[("1", "ndcg_cut_5")] == close(dcg / (2 / log2(2) + 1 / log2(3)))


def test_mistake_topics_from_run(scores):
    complete = scores(TOPICS_QRELS, TOPICS_RUN, topics="all_qrels")
    assert complete[("all", "num_q")] == 3
    out = scores(TOPICS_QRELS, TOPICS_RUN, topics="all_qrels", mistake="topics_from_run")
    assert out[("all", "num_q")] == 2  # topic 2, missing from the run, silently dropped
    assert ("2", "map") not in out
    assert out[("all", "map")] == close((1 / 2 + 0) / 2)


def test_mistake_rank_column_trusted(scores):
    qrels = """\
        1 0 a 1
        1 0 b 0
    """
    run = """\
        1 Q0 a 2 0.9 r
        1 Q0 b 1 0.1 r
    """
    assert scores(qrels, run)[("1", "recip_rank")] == close(1 / 1)  # by score: a, b
    out = scores(qrels, run, mistake="rank_column_trusted")
    assert out[("1", "recip_rank")] == close(1 / 2)  # by rank column: b, a


# ---------------------------------------------------------------------------------------
# err_k and judged_k


ERR_SPEC = MeasureSpec(err=(3, 5), judged=(2, 5, 10), families=frozenset({"err", "judged"}))
# ranking: a (2), b (0), c (3), u (unjudged), d (1), x (-1)
ERR_QRELS = """\
    1 0 a 2
    1 0 b 0
    1 0 c 3
    1 0 d 1
    1 0 x -1
"""
ERR_RUN = """\
    1 Q0 a 1 6 r
    1 Q0 b 2 5 r
    1 Q0 c 3 4 r
    1 Q0 u 4 3 r
    1 Q0 d 5 2 r
    1 Q0 x 6 1 r
"""


def test_err_at_k(scores):
    out = scores(ERR_QRELS, ERR_RUN, ERR_SPEC)
    # R = (2^g - 1) / 2^4: a 3/16, b 0, c 7/16, u 0, d 1/16, x 0
    ra, rc, rd = 3 / 16, 7 / 16, 1 / 16
    err3 = (1 / 1) * ra + (1 / 2) * 0 * (1 - ra) + (1 / 3) * rc * (1 - ra) * (1 - 0)
    err5 = err3 + (1 / 4) * 0 + (1 / 5) * rd * (1 - ra) * (1 - 0) * (1 - rc) * (1 - 0)
    assert out[("1", "err_3")] == close(err3)
    assert out[("1", "err_5")] == close(err5)
    assert out[("all", "err_5")] == close(err5)


def test_err_gmax(scores):
    qrels = """\
        1 0 a 2
        1 0 d 1
    """
    run = """\
        1 Q0 a 1 2 r
        1 Q0 d 2 1 r
    """
    out = scores(qrels, run, ERR_SPEC, gmax=2)
    # R = (2^g - 1) / 2^2: a 3/4, d 1/4
    assert out[("1", "err_3")] == close(3 / 4 + (1 / 2) * (1 / 4) * (1 - 3 / 4))


def test_judged_at_k(scores):
    out = scores(ERR_QRELS, ERR_RUN, ERR_SPEC)
    assert out[("1", "judged_2")] == close(2 / 2)  # a, b
    assert out[("1", "judged_5")] == close(4 / 5)  # a, b, c, d; u has no judgment
    # 6 retrieved; x has grade -1, which rule 5 counts as unjudged; divided by k = 10
    assert out[("1", "judged_10")] == close(4 / 10)


def test_judged_counts_cleverdon_minus_one_as_judged(scores):
    # under grades=cranfield_cleverdon, -1 means judged non-relevant (grade 0)
    out = scores(ERR_QRELS, ERR_RUN, ERR_SPEC, grades="cranfield_cleverdon")
    assert out[("1", "judged_10")] == close(5 / 10)
