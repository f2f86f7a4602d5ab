"""tie_break=expected equals the brute-force mean over every order of the tied documents.

Each order is evaluated by the ordinary evaluator with tie_break=file_order on
a run whose lines are written in that order, so the check shares nothing with
the closed forms in irscore.engine.measures.expected.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscore.engine.evaluate import evaluate
from irscore.engine.measures import MeasureSpec
from irscore.engine.measures.registry import EXPECTED_FAMILIES as FAMILIES
from irscore.engine.ranking.conventions import Convention, ConventionError

pytestmark = pytest.mark.slow  # started early (tests/conftest.py)

SPEC = MeasureSpec(
    P=(1, 2, 3, 5),
    recall=(1, 3, 5),
    ndcg_cut=(1, 3, 5),
    ndcg_exp_cut=(2, 4),
    map_cut=(2, 4),
    success=(1, 2, 4),
    judged=(3,),
    families=FAMILIES,
)
MAX_ORDERS = 240
# 1.0 and 1.0 + 2^-30 are one float32 (its spacing at 1.0 is 2^-23) but two float64s:
# a tie only at the reference precision.
SCORES = (1.0, 1.0 + 2**-30, 2.0, 3.0)
# Every measure of SPEC that the brute force computes must be compared: the families of
# tie_aware.FAMILIES at every cut-off of SPEC, per topic and as means.
COMPARED = {
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "Rprec",
    "recip_rank",
    "ndcg",
    "ndcg_exp",
    *(f"P_{k}" for k in SPEC.P),
    *(f"recall_{k}" for k in SPEC.recall),
    *(f"ndcg_cut_{k}" for k in SPEC.ndcg_cut),
    *(f"ndcg_exp_cut_{k}" for k in SPEC.ndcg_exp_cut),
    *(f"map_cut_{k}" for k in SPEC.map_cut),
    *(f"success_{k}" for k in SPEC.success),
    *(f"judged_{k}" for k in SPEC.judged),
}


def _values(table: pd.DataFrame) -> pd.Series:
    return table.set_index(["topic", "measure"])["value"].astype(float)


def tie_orders(scores) -> int:
    """The number of orders of the documents tied at float32 precision."""
    sizes = pd.Series(np.asarray(scores, dtype=np.float32)).value_counts()
    return math.prod(math.factorial(int(m)) for m in sizes)


def brute_force(qrels, run, convention: Convention) -> pd.Series:
    """The mean, over every order of each tied group (equal float32 scores), of the
    file-order evaluation."""
    score32 = run["score"].astype(np.float32)
    groups = [list(g.index) for _, g in run.groupby([run["topic"], score32], sort=True)]
    total, count = None, 0
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ordered = run.loc[[i for order in orders for i in order]].reset_index(drop=True)
        fixed = Convention(
            tie_break="file_order",
            unjudged=convention.unjudged,
            depth=convention.depth,
            rel_level=convention.rel_level,
            gain=convention.gain,
        )
        values = _values(evaluate(qrels, ordered, [fixed], SPEC))
        total = values if total is None else total + values
        count += 1
    return total / count


@st.composite
def tied_collections(draw):
    """Up to 3 topics of up to 6 documents with tied scores (some tied only in float32);
    a topic's list is cut short so that all topics together have at most MAX_ORDERS
    orders of their tied documents, so every example is checked."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    budget = MAX_ORDERS
    for t in range(draw(st.integers(1, 3))):
        topic = f"t{t}"
        scores = rng.choice(SCORES, size=int(rng.integers(1, 7)))
        while tie_orders(scores) > budget:
            scores = scores[:-1]
        budget //= tie_orders(scores)
        docs = [f"d{t}{i}" for i in range(len(scores))]
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True), 1):
            run_rows.append((topic, doc, rank, float(score), "x"))
        for doc in [*docs, f"u{t}"]:  # u: judged, never retrieved
            if rng.random() < 0.75:
                qrels_rows.append((topic, doc, int(rng.choice([-1, 0, 1, 2, 3]))))
        qrels_rows.append((topic, f"r{t}", 1))  # every topic has a relevant document
    qrels = pd.DataFrame(qrels_rows, columns=["topic", "docno", "grade"])
    run = pd.DataFrame(run_rows, columns=["topic", "docno", "rank", "score", "tag"])
    return qrels, run


def _check(qrels, run, convention):
    expected = _values(evaluate(qrels, run, [convention], SPEC))
    truth = brute_force(qrels, run, convention)
    assert set(truth.index.get_level_values("measure")) >= COMPARED
    assert set(expected.index) == set(truth.index), set(truth.index) ^ set(expected.index)
    difference = (expected[truth.index] - truth).abs()
    assert difference.max() <= 1e-9, difference.sort_values().tail()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections())
def test_expected_is_the_mean_over_all_orders(data):
    qrels, run = data
    _check(qrels, run, Convention(tie_break="expected"))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tied_collections(),
    st.sampled_from(
        [
            (2, "nonrelevant", 1),
            (None, "removed", 1),
            (None, "nonrelevant", 2),
            (3, "nonrelevant", 1),
        ]
    ),
)
def test_expected_with_depth_judged_only_and_level(data, variant):
    qrels, run = data
    depth, unjudged, level = variant
    _check(
        qrels,
        run,
        Convention(tie_break="expected", depth=depth, unjudged=unjudged, rel_level=level),
    )


def test_expected_ap_of_one_tied_pair_by_hand(tmp_path):
    # one relevant (a) and one non-relevant (b) tied at the top; R = 1.
    # order a, b: AP = 1/1; order b, a: AP = 1/2; the mean is (1 + 1/2) / 2 = 0.75.
    # closed form: position j=1: (1/2)(0 + 1 + 0)/1 = 0.5; j=2: (1/2)(0 + 1 + 0)/2 = 0.25.
    qrels = pd.DataFrame({"topic": ["q", "q"], "docno": ["a", "b"], "grade": [1, 0]})
    run = pd.DataFrame(
        {
            "topic": ["q", "q"],
            "docno": ["a", "b"],
            "rank": [1, 2],
            "score": [1.0, 1.0],
            "tag": ["x", "x"],
        }
    )
    values = _values(evaluate(qrels, run, [Convention(tie_break="expected")], SPEC))
    assert values[("q", "map")] == pytest.approx(0.75)
    assert values[("q", "recip_rank")] == pytest.approx((1 / 1 + 1 / 2) / 2)
    assert values[("q", "P_1")] == pytest.approx(0.5)
    assert values[("q", "success_1")] == pytest.approx(0.5)
    # no closed form: absent, not approximated
    assert ("q", "bpref") not in values.index and ("all", "gm_map") not in values.index


def test_expected_refuses_a_mistake_and_minus_m_with_minus_j():
    with pytest.raises(ConventionError):
        Convention(tie_break="expected", mistake="ap_over_retrieved")
    with pytest.raises(ConventionError):
        Convention(tie_break="expected", depth=5, unjudged="removed")


def test_expected_under_minus_j_with_nothing_judged_retrieved():
    """-J removes the only retrieved document: an empty ranking, no tie group left."""
    qrels = pd.DataFrame({"topic": ["q", "q"], "docno": ["u", "r"], "grade": [3, 1]})
    run = pd.DataFrame({"topic": ["q"], "docno": ["d"], "rank": [1], "score": [3.0], "tag": ["x"]})
    convention = Convention(tie_break="expected", unjudged="removed")
    values = _values(evaluate(qrels, run, [convention], SPEC))
    # nothing retrieved: num_ret 0; 2 relevant, none found: AP 0 / 2 = 0, P@1 = 0 / 1
    assert values[("q", "num_ret")] == 0.0
    assert values[("q", "num_rel")] == 2.0
    assert values[("q", "map")] == 0.0
    assert values[("q", "P_1")] == 0.0


def test_expected_ties_scores_equal_only_in_float32():
    # a (relevant) scores 1 + 2^-30 and b scores 1: two float64s, one float32, so a tie
    # at the reference precision: AP is 1 (a first) or 1/2 (b first), expected 3/4.
    # With float64 scores there is no tie: a first, AP 1.
    qrels = pd.DataFrame({"topic": ["q"], "docno": ["a"], "grade": [1]})
    run = pd.DataFrame(
        {
            "topic": ["q", "q"],
            "docno": ["a", "b"],
            "rank": [1, 2],
            "score": [1.0 + 2**-30, 1.0],
            "tag": ["x", "x"],
        }
    )
    tied = _values(evaluate(qrels, run, [Convention(tie_break="expected")], SPEC))
    assert tied[("q", "map")] == (1 + 1 / 2) / 2
    untied = Convention(tie_break="expected", score_precision="float64")
    assert _values(evaluate(qrels, run, [untied], SPEC))[("q", "map")] == 1.0


def test_ties_expected_is_its_own_decision_and_tie_break_expected_its_alias():
    alias = Convention(tie_break="expected")
    assert (alias.ties, alias.tie_break) == ("expected", "docno_desc")
    assert alias == Convention(ties="expected")
    assert Convention.from_changes("x", {"tie_break": "expected"}).description == (
        "tie_break=expected"  # the configured name and description are kept
    )


def test_a_family_without_an_expected_form_is_named_on_stderr(tmp_path):
    """`--tie-break expected -m bpref` used to print nothing and exit 0."""
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    from irscore.cli import main

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    run.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n")
    for flag in (["--tie-break", "expected"], ["--ties", "expected"]):
        out, err = StringIO(), StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["evaluate", *flag, "-m", "bpref", "-m", "map", str(qrels), str(run)])
        assert status == 0
        # a and b tie: AP over a,b,c is (1/1 + 2/3) / 2; over b,a,c (1/2 + 2/3) / 2
        expected_ap = ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2
        assert out.getvalue() == f"map                   \tall\t{expected_ap:6.4f}\n"
        assert err.getvalue() == "irscore: note: bpref has no expected-value form; not computed\n"
