"""trec_eval's remaining measures (infAP, gm_bpref, Rprec_mult, utility, binG, G,
ndcg_rel, Rndcg, relative_P, set_*, num_nonrel_judged_ret).

Property tests compare every one of them with pytrec_eval per topic on
generated collections (negative grades, unjudged documents, topics without
relevant documents, ties) under -l and -J; the hand-worked cases write out the
arithmetic of trec_eval 9.0.8's m_*.c for small rankings.
"""

from __future__ import annotations

import itertools
from math import exp, log, log2

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore import cli
from irscore.engine.measures import (
    MIN_GEO_MEAN,
    MeasureError,
    MeasureSpec,
    parse_requests,
    spec_from_config,
)
from irscore.engine.measures.ap import INFAP_EPSILON
from irscore.engine.measures.ranking import max_to_segment_end, segment_cumsum
from irscore.engine.ranking.conventions import Convention
from irscore.pipeline.crosscheck import compare, disagreements

NEW_FAMILIES = frozenset(
    {
        "infAP",
        "gm_bpref",
        "Rprec_mult",
        "utility",
        "binG",
        "G",
        "ndcg_rel",
        "Rndcg",
        "relative_P",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    }
)
SPEC = MeasureSpec(
    relative_P=(1, 2, 3, 5, 10),
    Rprec_mult=(0.25, 0.5, 1.0, 1.5, 3.0),
    families=NEW_FAMILIES,
)
NAMES = {
    "infAP",
    "gm_bpref",
    "utility",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    *(f"relative_P_{k}" for k in SPEC.relative_P),
    "Rprec_mult_0.25",
    "Rprec_mult_0.50",
    "Rprec_mult_1.00",
    "Rprec_mult_1.50",
    "Rprec_mult_3.00",
}


def close(value):
    return pytest.approx(value, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------- against pytrec_eval


@st.composite
def collections(draw):
    """Small qrels + run: grades -2..3, unjudged documents, ties, topics missing either side."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_topics = draw(st.integers(1, 5))
    pool = [
        f"d{d}" for d in draw(st.lists(st.integers(0, 90), min_size=3, max_size=20, unique=True))
    ]
    qrels_rows, run_rows = [], []
    for t in range(1, n_topics + 1):
        topic = str(t)
        if rng.random() < 0.9:
            judged = rng.choice(pool, size=rng.integers(1, len(pool) + 1), replace=False)
            # a third of the topics have no relevant document at level 1
            grades = [-2, -1, 0, 0, 1, 2, 3] if rng.random() < 0.67 else [-1, 0]
            qrels_rows += [(topic, d, int(rng.choice(grades))) for d in judged]
        if rng.random() < 0.9:
            candidates = [*pool, *(f"u{i}" for i in range(8))]  # u*: never judged
            retrieved = rng.choice(candidates, size=rng.integers(1, len(candidates)), replace=False)
            scores = rng.choice([0.25, 0.5, 1.0, 2.0], size=len(retrieved))
            scores = np.where(rng.random(len(retrieved)) < 0.3, scores + 1e-9, scores)
            run_rows += [
                (topic, d, rank, float(s), "gen")
                for rank, (d, s) in enumerate(zip(retrieved, scores, strict=True), 1)
            ]
    if not qrels_rows:
        qrels_rows.append(("1", pool[0], 1))
    if not run_rows:
        run_rows.append(("1", pool[0], 1, 1.0, "gen"))
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "docno", "grade"])
    run = pd.DataFrame(run_rows, columns=["topic", "docno", "rank", "score", "tag"])
    return qrels, run


def _assert_agree(qrels, run, convention):
    table = compare(qrels, run, SPEC, convention)
    evaluated = set(table["topic"]) - {"all"}
    if not evaluated:
        return  # no topic has both judgments (with a grade >= 0) and results
    assert set(table["measure"]) >= NAMES
    bad = disagreements(table)
    assert bad.empty, bad.head(10).to_string()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_new_measures_equal_pytrec_eval(data):
    _assert_agree(*data, Convention())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_new_measures_judged_only_equal_pytrec_eval(data):
    _assert_agree(*data, Convention(unjudged="removed"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 3))
def test_new_measures_relevance_level_equal_pytrec_eval(data, level):
    _assert_agree(*data, Convention(rel_level=level))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.integers(1, 4))
def test_new_measures_depth_and_judged_only_equal_pytrec_eval(data, depth):
    # pytrec_eval has no -M: cut the run by hand (score descending, docno descending)
    qrels, run = data
    ordered = run.assign(s32=run["score"].astype(np.float32)).sort_values(
        ["topic", "s32", "docno"], ascending=[True, False, False], kind="stable"
    )
    cut = ordered.groupby("topic", sort=False).head(depth).drop(columns="s32")
    _assert_agree(qrels, cut, Convention(depth=depth, unjudged="removed"))


def test_crosscheck_covers_every_new_measure():
    # the workflow's cross-check compares the new families too (default parameters)
    qrels = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "grade": [1, 0]})
    run = pd.DataFrame(
        {"topic": ["1", "1"], "docno": ["a", "b"], "rank": [1, 2], "score": [2.0, 1.0]}
    ).assign(tag="t")
    measures = set(compare(qrels, run)["measure"])
    defaults = {f"Rprec_mult_{m:.2f}" for m in MeasureSpec().Rprec_mult}
    assert (NAMES - {n for n in NAMES if n.startswith(("Rprec_mult", "relative_P"))}) <= measures
    assert defaults <= measures
    assert "relative_P_1000" in measures


# ---------------------------------------------------------------- by hand

# Topic 1: relevant (grade >= 1) are d1 (grade 2, rank 1) and d3 (grade 1, rank 5),
# d5 (grade 3) and d7 (grade 1) are never retrieved: R = 4. d2 and d6 are judged
# non-relevant (grade 0); d4 has grade -1 (in the pool, not judged); u1 has no qrels
# line at all. Ranking: d1 u1 d2 d4 d3 d6 (6 retrieved, 2 of them relevant).
# Topic 2: the one relevant document e1 is not retrieved; e2 (grade 0) then x (no line).
# Topic 3: no relevant document at all; f1 (grade 0), f2 (no line).
QRELS = """\
    1 0 d1 2
    1 0 d2 0
    1 0 d3 1
    1 0 d4 -1
    1 0 d5 3
    1 0 d6 0
    1 0 d7 1
    2 0 e1 1
    2 0 e2 0
    3 0 f1 0
"""
RUN = """\
    1 Q0 d1 1 0.9 t
    1 Q0 u1 2 0.8 t
    1 Q0 d2 3 0.7 t
    1 Q0 d4 4 0.6 t
    1 Q0 d3 5 0.5 t
    1 Q0 d6 6 0.4 t
    2 Q0 e2 1 0.9 t
    2 Q0 x 2 0.8 t
    3 Q0 f1 1 0.9 t
    3 Q0 f2 2 0.8 t
"""
E = INFAP_EPSILON
# topic 1's ideal ranking: grades 3, 2, 1, 1 (every positive judgment)
IDCG_1 = 3 / log2(2)
IDCG_2 = IDCG_1 + 2 / log2(3)
IDCG_4 = IDCG_2 + 1 / log2(4) + 1 / log2(5)
DCG_5 = 2 / log2(2) + 1 / log2(6)  # d1 (grade 2) at rank 1, d3 (grade 1) at rank 5


@pytest.fixture
def hand(scores):
    return scores(QRELS, RUN)


def test_infap_counts_pool_unjudged_above_but_skips_documents_without_a_line(hand):
    # d1 at index j = 0 counts 1. d3 at j = 4: above it 1 relevant (d1), 1 judged
    # non-relevant (d2), 1 in the pool but unjudged (d4); u1 (no line) counts in j only:
    # 1/5 + (4/5) * ((1 + 1 + 1)/4) * ((1 + e)/(1 + 1 + 2e)) = 0.2 + 0.6 * 0.5
    d3 = 1 / 5 + (4 / 5) * ((1 + 1 + 1) / 4) * ((1 + E) / (1 + 1 + 2 * E))
    assert hand[("1", "infAP")] == close((1 + d3) / 4)  # / R = 4
    assert hand[("1", "infAP")] == close(0.375)
    assert hand[("2", "infAP")] == 0.0 and hand[("3", "infAP")] == 0.0
    assert hand[("all", "infAP")] == close(0.375 / 3)


def test_infap_a_negative_grade_differs_from_no_line(scores):
    # the same ranking with d4's line removed: d4 is now outside the pool, so at d3
    # (1 + 1 + 0)/4 of the documents above are "in the pool": 0.2 + 0.8 * 0.5 * 0.5 = 0.4
    qrels = QRELS.replace("    1 0 d4 -1\n", "")
    values = scores(qrels, RUN)
    d3 = 1 / 5 + (4 / 5) * ((1 + 1 + 0) / 4) * ((1 + E) / (1 + 1 + 2 * E))
    assert values[("1", "infAP")] == close((1 + d3) / 4)
    assert values[("1", "infAP")] == close(0.35)


def test_infap_judged_only(scores):
    # -J removes u1 and d4: d1 d2 d3 d6. d3 at j = 2 has 1 relevant and 1 non-relevant
    # above: 1/3 + (2/3) * ((1 + 1)/2) * ((1 + e)/(2 + 2e)) = 1/3 + 1/3
    values = scores(QRELS, RUN, unjudged="removed")
    d3 = 1 / 3 + (2 / 3) * ((1 + 1) / 2) * ((1 + E) / (1 + 1 + 2 * E))
    assert values[("1", "infAP")] == close((1 + d3) / 4)


def test_gm_bpref_is_the_geometric_mean_of_bpref_floored(hand):
    # topic 1 bpref: d1 has no judged non-relevant above: 1; d3 has d2 above:
    # 1 - min(1, R=4)/min(2 judged non-relevant, R=4) = 1/2. (1 + 1/2)/4 = 0.375.
    # topics 2 and 3 retrieve nothing relevant: bpref 0, floored at 0.00001
    assert hand[("1", "bpref")] == close(0.375)
    expected = exp((log(0.375) + log(MIN_GEO_MEAN) + log(MIN_GEO_MEAN)) / 3)
    assert hand[("all", "gm_bpref")] == close(expected)


def test_gm_bpref_under_c_scores_a_missing_topic_at_the_floor(scores):
    # topic 4 is judged but not in the run: with -c it counts as log(0.00001)
    values = scores(QRELS + "    4 0 g1 1\n", RUN, topics="all_qrels")
    expected = exp((log(0.375) + 3 * log(MIN_GEO_MEAN)) / 4)
    assert values[("all", "gm_bpref")] == close(expected)


def test_rprec_mult_cutoffs_are_long_of_multiple_times_r_plus_0_9(hand):
    # R = 4: cut-off (long)(m * 4 + 0.9); 6 documents retrieved, relevant at ranks 1 and 5
    expected = {
        "0.20": 1 / 1,  # (long)1.7 = 1: 1 relevant in the top 1
        "0.40": 1 / 2,  # (long)2.5 = 2
        "0.60": 1 / 3,  # (long)3.3 = 3
        "0.80": 1 / 4,  # (long)4.1 = 4: not 3.2 rounded
        "1.00": 1 / 4,  # (long)4.9 = 4 (R-precision)
        "1.20": 2 / 5,  # (long)5.7 = 5
        "1.40": 2 / 6,  # (long)6.5 = 6
        "1.60": 2 / 7,  # (long)7.3 = 7 > 6 retrieved: 2 relevant retrieved / 7
        "1.80": 2 / 8,  # (long)8.1 = 8
        "2.00": 2 / 8,  # (long)8.9 = 8
    }
    for multiple, value in expected.items():
        assert hand[("1", f"Rprec_mult_{multiple}")] == close(value), multiple
        # topic 3 has R = 0: cut-off (long)0.9 = 0 leaves 0
        assert hand[("3", f"Rprec_mult_{multiple}")] == 0.0


def test_utility_default_and_with_parameters(hand, scores):
    # 1 * relevant retrieved - 1 * non-relevant retrieved (+ 0 * the rest)
    assert hand[("1", "utility")] == close(1 * 2 - 1 * (6 - 2))
    assert hand[("2", "utility")] == close(1 * 0 - 1 * 2)
    spec = MeasureSpec(utility="2,-1,-0.5,0", families=frozenset({"utility"}))
    values = scores(QRELS, RUN, spec)
    # 2 * 2 relevant retrieved - 1 * 4 non-relevant retrieved - 0.5 * 2 relevant missed
    assert values[("1", "utility_2,-1,-0.5,0")] == close(2 * 2 - 1 * 4 - 0.5 * 2)
    assert values[("all", "utility_2,-1,-0.5,0")] == close((-1 + (0 - 2 - 0.5) + (0 - 2)) / 3)


def test_bin_g_discounts_by_non_relevant_above(hand):
    # d1: 0 non-relevant above: 1/log2(2); d3: u1, d2, d4 above: 1/log2(2 + 3); / R = 4
    assert hand[("1", "binG")] == close((1 / log2(2) + 1 / log2(5)) / 4)
    assert hand[("2", "binG")] == 0.0


def test_g_normalised_gain(hand):
    # gains (grades): d1 2 at rank 1, d3 1 at rank 5, the rest 0. The ideal ranking's
    # gains are 3, 2, 1, 1 (total 7), each rank beyond it costing 1.
    # rank 1: cost 3, gained 2: 2/log2(2 + 3 - 2)
    # rank 5: cost 3 + 2 + 1 + 1 + 1 = 8, gained 2 + 1 = 3: 1/log2(2 + 8 - 3)
    expected = (2 / log2(2 + 3 - 2) + 1 / log2(2 + 8 - 3)) / 7
    assert hand[("1", "G")] == close(expected)
    assert hand[("3", "G")] == 0.0  # no positive grade: no ideal gain


def test_ndcg_rel_averages_ndcg_over_the_positive_documents(hand):
    # 4 documents of positive grade. d1 at rank 1: DCG@1/IDCG@1 = 2/3; d3 at rank 5:
    # DCG@5/IDCG@min(5, 4); the 2 never retrieved each count DCG@6/IDCG@4 (= DCG@5/IDCG@4)
    expected = (2 / 3 + DCG_5 / IDCG_4 + 2 * DCG_5 / IDCG_4) / 4
    assert hand[("1", "ndcg_rel")] == close(expected)
    assert hand[("3", "ndcg_rel")] == 0.0


def test_rndcg_averages_ndcg_where_the_ideal_gain_changes(hand):
    # ideal grades 3 | 2 | 1 1: the gain changes after 1, 2 and 4 documents; 6 retrieved
    # > 4 + 1, so nDCG at the end of the ranking (DCG@6 = DCG@5 over IDCG@4) is a 4th point
    points = [2 / IDCG_1, 2 / IDCG_2, 2 / IDCG_4, DCG_5 / IDCG_4]
    assert hand[("1", "Rndcg")] == close(sum(points) / 4)
    assert hand[("3", "Rndcg")] == 0.0  # R = 0


def test_rndcg_skips_the_end_point_when_exactly_one_more_than_the_ideal_is_retrieved(scores):
    # one relevant document g1 (ideal length P = 1), retrieved at rank 2.
    # 2 retrieved = P + 1: the only point is nDCG@1 = 0 (trec_eval adds no end point)
    qrels = "    1 0 g1 1\n"
    two = "    1 Q0 g2 1 0.9 t\n    1 Q0 g1 2 0.8 t\n"
    assert scores(qrels, two)[("1", "Rndcg")] == 0.0
    # 3 retrieved > P + 1: the end point DCG@3/IDCG@1 = (1/log2(3))/1 is added
    three = two + "    1 Q0 g3 3 0.7 t\n"
    assert scores(qrels, three)[("1", "Rndcg")] == close((0 + 1 / log2(3)) / 2)


def test_rndcg_is_nan_with_relevant_but_no_positive_grade(scores):
    # -l 0 makes a grade-0 document relevant (R = 1) but the ideal ranking is empty:
    # trec_eval divides 0 by 0 points
    values = scores("    1 0 g1 0\n", "    1 Q0 g1 1 0.9 t\n    1 Q0 g2 2 0.8 t\n", rel_level=0)
    assert np.isnan(values[("1", "Rndcg")])


def test_relative_p_divides_by_min_of_cutoff_and_r(scores):
    spec = MeasureSpec(relative_P=(1, 2, 5, 10), families=frozenset({"relative_P"}))
    values = scores(QRELS, RUN, spec)
    assert values[("1", "relative_P_1")] == close(1 / min(1, 4))  # d1
    assert values[("1", "relative_P_2")] == close(1 / min(2, 4))
    assert values[("1", "relative_P_5")] == close(2 / min(5, 4))  # d1, d3
    assert values[("1", "relative_P_10")] == close(2 / min(10, 4))  # only 6 retrieved
    assert values[("3", "relative_P_10")] == 0.0  # R = 0


def test_set_measures(hand, scores):
    # topic 1: 2 relevant of 6 retrieved, R = 4
    assert hand[("1", "set_P")] == close(2 / 6)
    assert hand[("1", "set_relative_P")] == close(2 / min(6, 4))
    assert hand[("1", "set_recall")] == close(2 / 4)
    assert hand[("1", "set_map")] == close((2 * 2) / (6 * 4))
    p, r = 2 / 6, 2 / 4
    assert hand[("1", "set_F")] == close((1 + 1) * p * r / (1 * p + r))  # 0.4
    # topic 2 retrieves nothing relevant; topic 3 has R = 0
    for topic in ("2", "3"):
        for name in ("set_P", "set_relative_P", "set_recall", "set_map", "set_F"):
            assert hand[(topic, name)] == 0.0
    spec = MeasureSpec(set_F="0.5", families=frozenset({"set_F"}))
    values = scores(QRELS, RUN, spec)
    assert values[("1", "set_F_0.5")] == close((0.5 + 1) * p * r / (0.5 * p + r))  # 0.375


def test_num_nonrel_judged_ret_counts_grades_below_the_level_only(hand, scores):
    # topic 1: d2, d6 (grade 0); not u1 (no line) nor d4 (grade -1). topic 2: e2. topic 3: f1
    assert [hand[(t, "num_nonrel_judged_ret")] for t in "123"] == [2, 1, 1]
    assert hand[("all", "num_nonrel_judged_ret")] == 4  # a sum, like num_ret
    # -l 2: d3 (grade 1) becomes judged non-relevant too
    assert scores(QRELS, RUN, rel_level=2)[("1", "num_nonrel_judged_ret")] == 3


# ---------------------------------------------------------------- names and printing


def test_parse_requests_names_and_parameters():
    spec, missing = parse_requests(["all_trec"])
    assert missing == []  # relstring too: every measure of trec_eval 9's all_trec
    assert spec.families >= NEW_FAMILIES | {"relstring"}
    spec, _ = parse_requests(["Rprec_mult.1.5,0.5", "relative_P.10,5", "utility.1,-1,0,0"])
    assert spec.Rprec_mult == (0.5, 1.5)  # sorted, as trec_eval sorts its cut-offs
    assert spec.relative_P == (5, 10)
    assert spec.utility == "1,-1,0,0"
    assert parse_requests(["P.10,5"])[0].P == (5, 10)
    for bad in ("utility.1,-1", "set_F.x", "Rprec_mult.0.201,0.202", "G.x=3", "relstring.5,3"):
        with pytest.raises(MeasureError):
            parse_requests([bad])
    config = spec_from_config({"Rprec_mult": [1.0, 0.5], "utility": [2, -1, 0, 0], "set_F": 0.5})
    assert (config.Rprec_mult, config.utility, config.set_F) == ((0.5, 1.0), "2,-1,0,0", "0.5")


def test_trec_text_prints_like_trec_eval(tmp_path, capsys):
    (tmp_path / "q").write_text(QRELS.replace("    ", ""))
    (tmp_path / "r").write_text(RUN.replace("    ", ""))
    args = ["-m", "gm_bpref", "-m", "num_nonrel_judged_ret", "-m", "Rprec_mult.0.5"]
    assert cli.main(["evaluate", "-q", *args, str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # gm_bpref only in the summary; the count as an integer; the multiple as %3.2f
    assert not [line for line in lines if line.startswith("gm_bpref") and "\tall\t" not in line]
    assert "num_nonrel_judged_ret \t1\t2" in lines
    assert "num_nonrel_judged_ret \tall\t4" in lines
    assert "Rprec_mult_0.50       \t1\t0.5000" in lines  # (long)(0.5 * 4 + 0.9) = 2: 1/2


@pytest.mark.parametrize(
    "lengths",
    [[5, 0, 3, 400, 1, 1], [1] * 40 + [6000]],  # a padded matrix; one segment at a time
    ids=["matrix", "loop"],
)
def test_running_sums_are_added_left_to_right_per_topic(lengths):
    # trec_eval adds each topic's terms one by one from 0.0; a cumsum over all topics
    # minus the earlier topics' total differs in the last bits (enough to move map_cut
    # across a 4-decimal boundary on Cranfield's bim run)
    rng = np.random.default_rng(7)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    values = rng.random(starts[-1]) * 10.0 ** rng.integers(-8, 4, starts[-1])
    expected = []
    for a, b in itertools.pairwise(starts):
        total = 0.0
        for value in values[a:b]:
            total += value
            expected.append(total)
    assert np.array_equal(segment_cumsum(values, starts), np.array(expected))


def test_max_to_segment_end_stops_at_each_segment():
    """Interpolated precision's running maximum, from each entry to its topic's end."""
    values = np.array([0.2, 0.5, 0.1, 0.3, 0.9, 0.4, 0.4, 0.7, 0.0])
    segment = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2])
    # topic 0: max(.2,.5,.1,.3) = .5, max(.5,.1,.3) = .5, max(.1,.3) = .3, .3
    # topic 1: max(.9,.4) = .9, .4 (not topic 2's .7); topic 2: .7, .7, 0
    expected = [0.5, 0.5, 0.3, 0.3, 0.9, 0.4, 0.7, 0.7, 0.0]
    assert max_to_segment_end(values, segment).tolist() == expected
    assert max_to_segment_end(np.array([]), np.array([], dtype=np.int64)).tolist() == []
