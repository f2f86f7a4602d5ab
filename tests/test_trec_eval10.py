"""trec_eval 10.0's measures (rbp, rbp_resid, unj) and `--compat trec_eval10`, by hand.

tests/test_golden.py diffs whole outputs against trec_eval 10.0's; here each
value is worked out from m_rbp.c, m_rbp_resid.c, m_unjudged.c and trec_eval.c.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from irscore.cli import main
from irscore.engine.evaluate import evaluate
from irscore.engine.measures import MeasureError, MeasureSpec, parse_requests
from irscore.engine.ranking.conventions import Convention, ConventionError

# topic 1: a (grade 3) b (1) c (0) d (no qrels line) e (-1: in the pool, unjudged)
QRELS = pd.DataFrame(
    {"topic": ["1"] * 4 + ["2"], "docno": ["a", "b", "c", "e", "x"], "grade": [3, 1, 0, -1, 1]}
)
RUN = pd.DataFrame(
    {
        "topic": ["1"] * 5 + ["2"] * 2,
        "docno": ["a", "b", "c", "d", "e", "y", "x"],
        "rank": [1, 2, 3, 4, 5, 1, 2],
        "score": [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
        "tag": ["t"] * 7,
    }
)


def scores(spec: MeasureSpec, qrels=QRELS, run=RUN, **changes) -> dict:
    table = evaluate(qrels, run, [Convention.from_changes("c", changes)], spec)
    rows = zip(table["topic"], table["measure"], table["value"], strict=True)
    return {(t, m): v for t, m, v in rows}


def test_rbp_normalises_gains_by_the_largest_grade():
    values = scores(MeasureSpec(families={"rbp"}))
    # topic 1: grades over the largest, 3: a 1, b 1/3; (1 - p) * (1 * p^0 + 1/3 * p^1)
    assert values[("1", "rbp")] == pytest.approx(0.1 * (1 + 0.9 / 3))
    # topic 2: largest grade 1, no normalisation: x at rank 2
    assert values[("2", "rbp")] == pytest.approx(0.1 * 0.9)
    assert values[("all", "rbp")] == pytest.approx((0.13 + 0.09) / 2)
    half = scores(MeasureSpec(families={"rbp"}, rbp="p=0.5"))
    assert half[("1", "rbp_p=0.5")] == pytest.approx(0.5 * (1 + 0.5 / 3))


def test_rbp_residual_counts_unjudged_and_the_tail():
    values = scores(MeasureSpec(families={"rbp_resid"}))
    # topic 1: d (rank 4) and e (rank 5) unjudged: p^5 + (1 - p) * (p^3 + p^4)
    assert values[("1", "rbp_resid")] == pytest.approx(0.9**5 + 0.1 * (0.9**3 + 0.9**4))
    assert values[("1", "rbp_resid")] == pytest.approx(0.729)
    # topic 2: y has no qrels line: p^2 + (1 - p) * p^0
    assert values[("2", "rbp_resid")] == pytest.approx(0.81 + 0.1)
    half = scores(MeasureSpec(families={"rbp_resid"}, rbp_resid="p=0.5"))
    assert half[("1", "rbp_resid_p=0.5")] == pytest.approx(0.5**5 + 0.5 * (0.5**3 + 0.5**4))
    # -J leaves no unjudged document: 0, not the tail p^n
    assert (
        scores(MeasureSpec(families={"rbp_resid"}), unjudged="removed")[("1", "rbp_resid")] == 0.0
    )


def test_unj_is_the_unjudged_fraction_of_the_top_k():
    values = scores(MeasureSpec(families={"unj"}))
    # topic 1: d and e in the top 5; beyond the ranking counts as judged
    assert [values[("1", f"unj_{k}")] for k in (5, 10, 20)] == [2 / 5, 2 / 10, 2 / 20]
    assert values[("2", "unj_5")] == 1 / 5  # y
    small = scores(MeasureSpec(families={"unj"}, unj=(1, 4)))
    assert (small[("1", "unj_1")], small[("1", "unj_4")]) == (0.0, 1 / 4)
    assert scores(MeasureSpec(families={"unj"}), unjudged="removed")[("1", "unj_5")] == 0.0


def test_parameters_and_all_trec_of_each_version():
    assert parse_requests(["rbp.p=0.8"])[0].rbp == "p=0.8"
    for bad in ("rbp.q=0.8", "rbp.p=x", "rbp.p=0.5,p=0.6", "rbp.0.8", "rbp_resid.2=1"):
        with pytest.raises(MeasureError):
            parse_requests([bad])
    ten = parse_requests(["all_trec"], trec_eval=10)[0].families
    nine = parse_requests(["all_trec"])[0].families
    assert ten - nine == {"rbp", "rbp_resid", "unj"}


def test_compat_preset_and_its_fields():
    c = Convention.from_changes("x", {"compat": "trec_eval10"})
    assert (c.interpolation, c.score_precision, c.missing_topics) == (
        "trec_eval10",
        "float64",
        "evaluated",
    )
    assert c.description == "compat=trec_eval10"
    kept = Convention.from_changes("x", {"compat": "trec_eval10", "interpolation": "textbook"})
    assert kept.interpolation == "textbook"  # a field given beside the preset wins
    with pytest.raises(ConventionError):
        Convention.from_changes("x", {"compat": "trec_eval11"})


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(list(argv)) == 0, err.getvalue()
    return out.getvalue()


def test_compat_prints_minus_c_topics_without_results(tmp_path):
    """trec_eval 10 scores a judged topic the run lacks as a ranking of one unjudged
    stand-in document (-J removes it), and prints its lines; trec_eval 9 does not."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n")
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    args = ["evaluate", "-q", "-c", "-m", "num_ret", "-m", "num_rel", "-m", "P.5"]
    nine = _cli(*args, "-m", "iprec_at_recall", str(qrels), str(run))
    assert "\t2\t" not in nine
    ten = _cli(*args, "--compat", "trec_eval10", str(qrels), str(run)).splitlines()
    assert "num_ret               \t2\t0" in ten  # the stand-in is not counted
    assert "num_rel               \t2\t2" in ten
    assert "P_5                   \t2\t0.0000" in ten
    assert "P_5                   \tall\t0.1000" in ten  # (1/5 + 0) / 2
    # under -J the stand-in is removed: precision at recall 0 is 0/0 (glibc prints -nan)
    minus_j = _cli(
        "evaluate",
        "-q",
        "-c",
        "-J",
        "--compat",
        "trec_eval10",
        "-m",
        "iprec_at_recall",
        str(qrels),
        str(run),
    ).splitlines()
    assert "iprec_at_recall_0.00  \t2\t  -nan" in minus_j
    # R = 2: lround(0.1 * 2) = 0 relevant asked for: also 0/0; lround(0.3 * 2) = 1: none, 0
    assert "iprec_at_recall_0.10  \t2\t  -nan" in minus_j
    assert "iprec_at_recall_0.30  \t2\t0.0000" in minus_j
    assert "iprec_at_recall_0.00  \tall\t  -nan" in minus_j  # and so is its mean


def test_the_conventions_spec_example():
    """../shared/docs/conventions.md: qrels a relevant, b not; run a, c."""
    qrels = pd.DataFrame({"topic": ["1", "1"], "docno": ["a", "b"], "grade": [1, 0]})
    run = pd.DataFrame(
        {"topic": ["1", "1"], "docno": ["a", "c"], "rank": [1, 2], "score": [2.0, 1.0]}
    ).assign(tag="t")
    values = scores(MeasureSpec(families={"rbp", "rbp_resid", "unj"}), qrels, run)
    shown = {
        m: f"{values[('1', m)]:.4f}" for m in ("rbp", "rbp_resid", "unj_5", "unj_10", "unj_20")
    }
    # rbp 0.1 * 1; rbp_resid 0.9^2 + 0.1 * 0.9 (c at rank 2); unj 1/5, 1/10, 1/20
    assert shown == {
        "rbp": "0.1000",
        "rbp_resid": "0.9000",
        "unj_5": "0.2000",
        "unj_10": "0.1000",
        "unj_20": "0.0500",
    }
