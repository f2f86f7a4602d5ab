"""The convention audit: shifts, topics changed, largest change and order flips, by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from irscore.analysis.audit import (
    conclusion_flips,
    convention_audit,
    markdown,
    paired_comparisons,
)
from irscore.engine.ranking.conventions import Convention, name_under


def _rows(run, convention, topic_values):
    rows = [(run, convention, t, "map", v) for t, v in topic_values.items()]
    mean = sum(topic_values.values()) / len(topic_values)
    return [*rows, (run, convention, "all", "map", mean)]


def _table():
    rows = []
    rows += _rows("a", "reference", {"1": 0.5, "2": 0.3})  # mean 0.4
    rows += _rows("b", "reference", {"1": 0.2, "2": 0.4})  # mean 0.3: a > b
    rows += _rows("a", "judged_only", {"1": 0.5, "2": 0.1})  # mean 0.3, topic 2 moves 0.2
    rows += _rows("b", "judged_only", {"1": 0.6, "2": 0.4})  # mean 0.5, topic 1 moves 0.4
    return pd.DataFrame(rows, columns=["run", "convention", "topic", "measure", "value"])


def test_audit_counts_shifts_and_flips():
    conventions = [Convention(), Convention.from_changes("judged_only", {"unjudged": "removed"})]
    audit = convention_audit(_table(), ["map"], conventions).set_index(["convention", "run"])
    a = audit.loc[("judged_only", "a")]
    assert math.isclose(a["difference"], 0.3 - 0.4)  # (0.5 + 0.1)/2 - (0.5 + 0.3)/2
    assert a["topics_changed"] == 1  # only topic 2: 0.3 -> 0.1
    assert math.isclose(a["largest_topic_change"], 0.2)
    b = audit.loc[("judged_only", "b")]
    assert math.isclose(b["difference"], 0.5 - 0.3)
    assert math.isclose(b["largest_topic_change"], 0.4)  # topic 1: 0.2 -> 0.6
    assert audit.loc[("reference", "a"), "run_order"] == "a > b"
    assert audit.loc[("judged_only", "a"), "run_order"] == "b > a"
    assert audit.loc[("judged_only", "a"), "order_changes"]
    assert not audit.loc[("reference", "b"), "order_changes"]
    # two runs swapped: tau = (0 concordant - 1 discordant) / 1 = -1, tau_AP = -1 too;
    # the reference against itself: 1
    assert audit.loc[("judged_only", "a"), "tau"] == pytest.approx(-1.0)
    assert audit.loc[("judged_only", "b"), "tau_ap"] == pytest.approx(-1.0)
    assert audit.loc[("reference", "a"), "tau_ap"] == 1.0
    text = markdown(audit.reset_index(), {"MAP": "map"})
    assert "**b > a**" in text and "0.3000 (-0.1000)" in text
    assert "| **b > a** | -1.00 / -1.00 |" in text
    reference = next(line for line in text.splitlines() if line.startswith("| reference |"))
    assert reference.endswith("| 0.4000 | 0.3000 | – | – | a > b | – |")  # the order, given


def test_audit_table_shows_an_unchanged_order_as_same():
    conventions = [Convention(), Convention.from_changes("asc", {"tie_break": "docno_asc"})]
    table = _table()
    table = pd.concat([table, table[table.convention == "reference"].assign(convention="asc")])
    audit = convention_audit(table, ["map"], conventions)
    lines = markdown(audit, {"MAP": "map"}).splitlines()
    asc = next(line for line in lines if line.startswith("| asc |"))
    assert asc.endswith("| same | 1.00 / 1.00 |") and "a > b" not in asc  # 0.4 > 0.3


def test_topics_only_one_side_has_count_as_changed():
    table = pd.DataFrame(
        _rows("a", "reference", {"1": 0.5}) + _rows("a", "all_qrels", {"1": 0.5, "2": 0.0}),
        columns=["run", "convention", "topic", "measure", "value"],
    )
    conventions = [Convention(), Convention.from_changes("all_qrels", {"topics": "all_qrels"})]
    audit = convention_audit(table, ["map"], conventions).set_index("convention")
    assert audit.loc["all_qrels", "topics_changed"] == 1  # topic 2 is averaged only under -c
    assert math.isclose(audit.loc["all_qrels", "difference"], 0.25 - 0.5)


def test_exponential_gain_compares_the_renamed_ndcg():
    assert name_under("ndcg_cut_10", Convention(gain="exponential")) == "ndcg_exp_cut_10"
    assert name_under("ndcg_cut_10", Convention()) == "ndcg_cut_10"
    assert name_under("map", Convention(gain="exponential")) == "map"


def test_paired_comparisons_and_flips():
    # B beats A by 0.1 on each of 4 topics under the reference (p = 0 by the
    # zero-variance t-test), and loses by 0.1 on every topic under judged_only.
    rows = []
    for topic, base in zip("1234", (0.1, 0.2, 0.3, 0.4), strict=True):
        rows += [
            ("a", "reference", topic, "map", base),
            ("b", "reference", topic, "map", base + 0.1),
            ("a", "judged_only", topic, "map", base + 0.1),
            ("b", "judged_only", topic, "map", base),
        ]
    table = pd.DataFrame(rows, columns=["run", "convention", "topic", "measure", "value"])
    conventions = [Convention(), Convention.from_changes("judged_only", {"unjudged": "removed"})]
    result = paired_comparisons(table, [("a", "b")], ["map"], conventions, tests=("t",))
    by_convention = result.set_index("convention")
    assert by_convention.loc["reference", "n"] == 4
    assert math.isclose(by_convention.loc["reference", "diff"], 0.1)
    assert by_convention.loc["reference", "conclusion"] == "b > a"
    assert by_convention.loc["judged_only", "conclusion"] == "a > b"
    flips = conclusion_flips(result)
    assert list(flips["convention"]) == ["judged_only"]
    assert flips["conclusion_reference"].item() == "b > a"


def test_comparison_p_values_are_holm_adjusted_per_convention():
    rng = np.random.default_rng(3)
    rows = []
    for topic in range(30):
        a, b, c = rng.random(3)
        rows += [(r, "reference", str(topic), "map", v) for r, v in (("a", a), ("b", b), ("c", c))]
    table = pd.DataFrame(rows, columns=["run", "convention", "topic", "measure", "value"])
    result = paired_comparisons(table, [("a", "b"), ("a", "c")], ["map"], [Convention()])
    raw = sorted(result["p"])
    # Holm with m = 2: the smaller p doubles, the larger stays (but not below the first)
    expected = sorted([min(1, 2 * raw[0]), max(min(1, 2 * raw[0]), raw[1])])
    assert sorted(result["p_adjusted"]) == pytest.approx(expected)


def test_conventions_with_the_same_values_get_the_same_tests():
    # tie_docno_asc leaves both runs' values as they are; judged_only swaps them. Each
    # distinct pair of arrays is tested once, and rows reuse the result only when equal.
    rows = []
    for topic, (x, y) in enumerate(((0.1, 0.3), (0.2, 0.25), (0.4, 0.45), (0.3, 0.2)), 1):
        for convention, (a, b) in (
            ("reference", (x, y)),
            ("tie_docno_asc", (x, y)),
            ("judged_only", (y, x)),
        ):
            rows += [
                ("a", convention, str(topic), "map", a),
                ("b", convention, str(topic), "map", b),
            ]
    table = pd.DataFrame(rows, columns=["run", "convention", "topic", "measure", "value"])
    conventions = [
        Convention(),
        Convention.from_changes("tie_docno_asc", {"tie_break": "docno_asc"}),
        Convention.from_changes("judged_only", {"unjudged": "removed"}),
    ]
    result = paired_comparisons(
        table, [("a", "b")], ["map"], conventions, tests=("t", "randomization"), B=200, seed=7
    ).set_index(["convention", "test"])
    numbers = ["mean_a", "mean_b", "diff", "statistic", "p", "ci_low", "ci_high"]
    for test in ("t", "randomization"):
        same = result.loc[("tie_docno_asc", test), numbers]
        assert same.equals(result.loc[("reference", test), numbers])
        swapped = result.loc[("judged_only", test)]
        # mean of b - a: (0.2 + 0.05 + 0.05 - 0.1) / 4 = 0.05, negated when swapped
        assert result.loc[("reference", test), "diff"] == pytest.approx(0.05)
        assert swapped["diff"] == pytest.approx(-0.05)


def test_an_undefined_measure_concludes_n_a_and_flips_nothing():
    from irscore.analysis.audit import _conclusion, conclusion_flips

    assert _conclusion("a", "b", float("nan"), False) == "n/a"
    assert _conclusion("a", "b", 0.0, False) == "a = b"
    assert _conclusion("a", "b", 0.1, True) == "b > a"
    rows = [
        ("reference", "m", "a", "b", "t", 0.01, "b > a"),
        ("undefined", "m", "a", "b", "t", float("nan"), "n/a"),
        ("swapped", "m", "a", "b", "t", 0.5, "a > b (n.s.)"),
    ]
    columns = ["convention", "measure", "run_a", "run_b", "test", "p_adjusted", "conclusion"]
    flips = conclusion_flips(pd.DataFrame(rows, columns=columns))
    assert list(flips["convention"]) == ["swapped"]
