"""Measure parameters as trec_eval reads them (meas_init.c), worked out by hand: recall
levels, unsorted 11pt_avg levels, decimal cut-offs, `level=gain` maps for the DCG
measures (with trec_eval's sort of the levels), and what is refused."""

from math import log, log2

import pytest
from hypothesis import HealthCheck, given, settings

from irscore.engine.measures import MeasureError, MeasureSpec, parse_requests
from irscore.engine.measures.gain_maps import ideal_gains, sorted_levels
from irscore.engine.ranking.conventions import Convention
from irscore.pipeline.crosscheck import compare, disagreements
from tests.test_pytrec_property import collections


def close(value):
    return pytest.approx(value, rel=1e-12, abs=1e-15)


# R = 4 (d1 grade 1, d3 grade 2, d5 grade 1, d6 grade 3, never retrieved); relevant
# retrieved at ranks 1, 3 and 6; u1 has no qrels line.
QRELS = """\
    1 0 d1 1
    1 0 d2 0
    1 0 d3 2
    1 0 d4 0
    1 0 d5 1
    1 0 d6 3
"""
RUN = """\
    1 Q0 d1 1 0.9 r
    1 Q0 d2 2 0.8 r
    1 Q0 d3 3 0.7 r
    1 Q0 u1 4 0.6 r
    1 Q0 d4 5 0.5 r
    1 Q0 d5 6 0.4 r
"""
# precision at the relevant ranks 1, 3, 6: 1/1, 2/3, 3/6; interpolated (the best at or
# below): 1, 2/3, 1/2


def values(scores, *requests, **convention):
    spec, _ = parse_requests(list(requests))
    return scores(QRELS, RUN, spec, **convention)


def test_recall_levels_name_and_count(scores):
    v = values(scores, "iprec_at_recall..75,.25,0.5")
    # sorted as trec_eval sorts them; c = (long)(r * 4 + 0.9): .25 -> 1, .5 -> 2, .75 -> 3
    assert v[("1", "iprec_at_recall_0.25")] == close(1.0)
    assert v[("1", "iprec_at_recall_0.50")] == close(2 / 3)
    assert v[("1", "iprec_at_recall_0.75")] == close(1 / 2)
    assert parse_requests(["iprec_at_recall..75,.25"])[0].iprec_at_recall == (0.25, 0.75)


def test_recall_levels_under_the_textbook_rule(scores):
    # textbook: ceil(r * R) exactly: 0.3 * 4 = 1.2 -> 2 (trec_eval 9: (long)2.1 = 2 too);
    # 0.2 * 4 = 0.8 -> 1, where trec_eval 9 takes (long)1.7 = 1 as well; 0.55 -> 3 vs 3
    v = values(scores, "iprec_at_recall.0.3,0.55", interpolation="textbook")
    assert v[("1", "iprec_at_recall_0.30")] == close(2 / 3)
    assert v[("1", "iprec_at_recall_0.55")] == close(1 / 2)


def test_11pt_avg_levels_averaged_and_named_after_their_text(scores):
    v = values(scores, "11pt_avg..25,.5,.75")
    assert v[("1", "11pt_avg_.25,.5,.75")] == close((1 / 2 + 2 / 3 + 1) / 3)


def test_11pt_avg_unsorted_levels_stop_trec_eval_s_walk(scores):
    # levels .75, .25 (c = 3, 1): trec_eval walks from the last level (c = 1) up the
    # ranking; it finds c = 1 at rank 1 (value 1), then waits for c = 3 above it, which
    # never comes: .75 takes the whole ranking's best, 1, not the 1/2 of sorted levels
    v = values(scores, "11pt_avg..75,.25")
    assert v[("1", "11pt_avg_.75,.25")] == close((1 + 1) / 2)
    # a level above R_ret (c = 5 > 3 found) at the end is skipped: 0
    v = values(scores, "11pt_avg..25,1.0")
    assert v[("1", "11pt_avg_.25,1.0")] == close((1 + 0) / 2)


def test_decimal_cut_offs_are_cut_to_their_whole_part(scores):
    v = values(scores, "P.5,3.9")  # atol("3.9") = 3
    assert v[("1", "P_3")] == close(2 / 3)
    assert v[("1", "P_5")] == close(2 / 5)
    for bad in ("P.0.5", "P.3,3.2", "P.1e3", "P.x"):  # 0, duplicate, atol's 1, a word
        with pytest.raises(MeasureError):
            parse_requests([bad])


def test_ndcg_with_a_gain_map(scores):
    # gains 1 -> 3, 2 -> 9, level 3 keeps its default 3; ideal: 9 (d3), 3, 3, 3 (d1,d5,d6)
    v = values(scores, "ndcg.1=3,2=9")
    dcg = 3 / log2(2) + 9 / log2(4) + 3 / log2(7)
    ideal = 9 / log2(2) + 3 / log2(3) + 3 / log2(4) + 3 / log2(5)
    assert v[("1", "ndcg_1=3,2=9")] == close(dcg / ideal)


def test_ndcg_rel_rndcg_and_g_with_a_gain_map(scores):
    v = values(scores, "ndcg_rel.1=3,2=9", "Rndcg.1=3,2=9", "G.1=3,2=9")
    dcg = [3 / log2(2), 3 / log2(2), 3 / log2(2) + 9 / log2(4)]
    dcg += [dcg[2], dcg[2], dcg[2] + 3 / log2(7)]
    terms = [9 / log2(2), 3 / log2(3), 3 / log2(4), 3 / log2(5)]
    ideal = [sum(terms[: k + 1]) for k in range(4)]
    ideal += [ideal[3], ideal[3]]
    # ndcg_rel: at ranks 1, 3, 6 (gain > 0), and the end for the 1 of 4 not retrieved
    rel = (dcg[0] / ideal[0] + dcg[2] / ideal[2] + dcg[5] / ideal[5] + dcg[5] / ideal[5]) / 4
    assert v[("1", "ndcg_rel_1=3,2=9")] == close(rel)
    # Rndcg: the ideal gain changes at position 2 (9 -> 3) and 5 (3 -> 0): nDCG at
    # depths 1 and 4; 6 retrieved > 4 + 1: the end of the ranking is one more point
    r = (dcg[0] / ideal[0] + dcg[3] / ideal[3] + dcg[5] / ideal[3]) / 3
    assert v[("1", "Rndcg_1=3,2=9")] == close(r)
    # G: cost is the ideal gain so far (9, 12, 15, 18, then 1 a position), gained the run's
    g = 3 / log2(2 + 9 - 3) + 9 / log2(2 + 15 - 12) + 3 / log2(2 + 20 - 15)
    assert v[("1", "G_1=3,2=9")] == close(g / 18)


def test_gain_map_levels_sorted_as_trec_eval_sorts_them():
    # comp_rel_gain returns (int)(gain1 - gain2): 4.5 and 4 compare equal, so the stable
    # merge sort keeps the map's level 2 (4.5) before level 1 (4.0): the ideal ranking
    # puts level 1's documents first, though their gain is lower
    levels = sorted_levels(((2, 4.5), (1, 4.0)), [5, 1, 1], float)
    assert levels == [(0, 5, 0.0), (2, 1, 4.5), (1, 1, 4.0)]
    assert ideal_gains(levels).tolist() == [4.0, 4.5]
    # a level of gain <= 0 with documents ends the ideal ranking
    assert ideal_gains(sorted_levels(((1, -1.0),), [0, 2, 1], float)).tolist() == [2.0]


def test_gain_maps_refused(scores):
    for bad in ("ndcg.-1=2", "ndcg.1=2,1=3", "ndcg.x=1", "ndcg.1=x", "G.1", "ndcg_rel.1=inf"):
        with pytest.raises(MeasureError):
            parse_requests([bad])


def test_gain_map_under_expected_ties_is_not_computed(scores):
    spec, _ = parse_requests(["ndcg.1=3", "P.5"])
    v = scores(QRELS, RUN, spec, ties="expected")
    assert ("1", "P_5") in v and not any(m.startswith("ndcg") for _, m in v)


PARAMS = MeasureSpec(
    families={"iprec_at_recall", "Rprec_mult", "P", "ndcg_cut"},
    iprec_at_recall=(0.05, 0.25, 0.33, 0.5, 0.9),
    Rprec_mult=(0.5, 1.5, 3.0),
    P=(2, 7, 23),
    ndcg_cut=(3, 23),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_parameters_equal_pytrec_eval(data):
    """Recall levels, multiples and cut-offs given as parameters: pytrec_eval (trec_eval
    9's code) computes the same per topic."""
    qrels, run = data
    table = compare(qrels, run, PARAMS, Convention())
    assert {"iprec_at_recall_0.33", "Rprec_mult_3.00", "P_23", "ndcg_cut_23"} <= set(
        table["measure"]
    ) or table.empty
    bad = disagreements(table)
    assert bad.empty, bad.head(10).to_string()


def test_dcg_ideal_dcg_and_yaap(scores):
    v = values(scores, "dcg", "ideal_dcg", "yaap")
    mapped = values(scores, "dcg.1=3,2=9")  # one family, one set of parameters
    # relevant d1 (grade 1) at rank 1, d3 (2) at 3, d5 (1) at 6; ideal grades 3, 2, 1, 1
    assert v[("1", "dcg")] == close(1 / log2(2) + 2 / log2(4) + 1 / log2(7))
    assert v[("1", "ideal_dcg")] == close(3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5))
    assert mapped[("1", "dcg_1=3,2=9")] == close(3 / log2(2) + 9 / log2(4) + 3 / log2(7))
    # yaap: S = 1/1 + 2/3 + 3/6 (AP's numerator), R = 4: log((1 + S) / (1 + R - S))
    s = 1 + 2 / 3 + 3 / 6
    assert v[("1", "yaap")] == close(log((1 + s) / (1 + 4 - s)))
