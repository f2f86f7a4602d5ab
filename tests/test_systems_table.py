"""Many systems in one table, corrections and rank correlations, worked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscore.analysis import corrections, rank_correlation, systems_table

PER_TOPIC = {
    "base": [0.2, 0.4, 0.6, 0.8],  # mean 0.5
    "good": [0.3, 0.5, 0.7, 0.9],  # base + 0.1 on every topic: mean 0.6, t-test p = 0
    "bad": [0.1, 0.3, 0.5, 0.7],  # base - 0.1 on every topic: mean 0.4, p = 0
    "same": [0.25, 0.35, 0.65, 0.75],  # base +-0.05: mean 0.5, mean difference 0, p = 1
}


def long_table() -> pd.DataFrame:
    rows = []
    for run, values in PER_TOPIC.items():
        for measure, scale in (("map", 1.0), ("P_10", 0.5)):
            for topic, value in zip("1234", values, strict=True):
                rows.append((run, "reference", topic, measure, value * scale))
            rows.append((run, "reference", "all", measure, float(np.mean(values)) * scale))
    return pd.DataFrame(rows, columns=["run", "convention", "topic", "measure", "value"])


def test_against_a_baseline_by_hand():
    t = systems_table.build(long_table(), list(PER_TOPIC), ["map", "P_10"], "base")
    assert t.means.loc["good", "map"] == pytest.approx(0.6)
    assert t.means.loc["bad", "P_10"] == pytest.approx(0.2)
    assert t.marks["map"].to_dict() == {"base": "", "good": "▲", "bad": "▼", "same": ""}
    text = systems_table.markdown(t)
    assert "| good | **0.6000** ▲ | **0.3000** ▲ |" in text
    assert "| base (baseline) | 0.5000 | 0.2500 |" in text
    assert "| bad | 0.4000 ▼ | 0.2000 ▼ |" in text
    # 3 runs against the baseline x 2 measures: one Holm correction over 6 p-values
    assert (
        "p adjusted: Holm over the paired t-test's 6 p-values, 3 pairs of runs x 2 measures; "
        "alpha = 0.05" in t.footnote
    )
    assert t.footnote.replace(" ", "") in text.replace("\n", "").replace(" ", "")


def test_all_pairs_letters_by_hand():
    t = systems_table.build(long_table(), list(PER_TOPIC), ["map"], None, correction="holm")
    # constant differences (good-base, base-bad, good-bad) have p = 0: significant.
    # same-bad and good-same differ by 0.05, 0.15, 0.05, 0.15: mean 0.1, sd 0.0577,
    # t = 0.1 / (0.0577 / 2) = 3.46 on 3 df, p = 0.0405; Holm's factors 3 and 2 put
    # both above 0.05 (0.12); base-same: mean difference 0, p = 1.
    assert t.marks["map"].to_dict() == {"base": "c", "good": "ac", "bad": "", "same": ""}
    p = t.tests.set_index(["run_a", "run_b"])["p"]
    assert p[("good", "same")] == pytest.approx(0.0405, abs=5e-4)
    # without a correction those two become significant too
    t = systems_table.build(long_table(), list(PER_TOPIC), ["map"], None, correction="none")
    assert t.marks["map"].to_dict() == {"base": "c", "good": "acd", "bad": "", "same": "c"}
    assert "| (b) good | **0.6000**<sup>acd</sup> |" in systems_table.markdown(t)


def test_latex_and_csv():
    t = systems_table.build(long_table(), list(PER_TOPIC), ["map", "P_10"], "base")
    tex = systems_table.latex(t)
    assert "\\toprule" in tex and "\\bottomrule" in tex
    assert (
        "good & \\textbf{0.6000}$^{\\blacktriangle}$ & \\textbf{0.3000}$^{\\blacktriangle}$" in tex
    )
    assert "P\\_10" in tex
    csv = systems_table.csv(t).splitlines()
    assert csv[0] == "system,map,map mark,P_10,P_10 mark,baseline"
    assert csv[2] == "good,0.6,▲,0.3,▲,False"


def test_same_inputs_same_bytes_with_resampling():
    args = (long_table(), list(PER_TOPIC), ["map", "P_10"], "base", "randomization")
    one = systems_table.build(*args, B=2000, seed=4)
    two = systems_table.build(*args, B=2000, seed=4)
    for render in systems_table.RENDER.values():
        assert render(one) == render(two)
    assert one.tests.equals(two.tests)


def test_unknown_baseline():
    with pytest.raises(ValueError, match="baseline 'x'"):
        systems_table.build(long_table(), list(PER_TOPIC), ["map"], "x")


def test_corrections_by_hand():
    p = [0.01, 0.04, 0.03, 0.2]
    # BH: sorted 0.01, 0.03, 0.04, 0.2 times m/i = 4/1, 4/2, 4/3, 4/4: 0.04, 0.06, 0.0533,
    # 0.2; the minimum from the top down: 0.04, 0.0533, 0.0533, 0.2
    assert corrections.adjust(p, "bh") == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.2])
    # Holm: 0.01*4, 0.03*3, 0.04*2, 0.2*1 = 0.04, 0.09, 0.08 -> 0.09 (monotone), 0.2
    assert corrections.adjust(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert corrections.adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.8])
    assert corrections.adjust(p, "none") == pytest.approx(p)
    with pytest.raises(ValueError, match="unknown correction"):
        corrections.adjust(p, "sidak")


def test_kendall_tau_and_tau_ap_by_hand():
    reference = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}
    top_swap = {"a": 0.3, "b": 0.4, "c": 0.2, "d": 0.1}  # b > a > c > d
    bottom_swap = {"a": 0.4, "b": 0.3, "c": 0.1, "d": 0.2}  # a > b > d > c
    # one discordant pair of six: tau = (5 - 1) / 6 either way
    assert rank_correlation.kendall_tau(reference, top_swap) == pytest.approx(2 / 3)
    assert rank_correlation.kendall_tau(reference, bottom_swap) == pytest.approx(2 / 3)
    # tau_AP, top swap: i=2 (a): 0 of {b} above it truly; i=3 (c): 2/2; i=4 (d): 3/3
    # -> 2/3 * (0 + 1 + 1) - 1 = 1/3
    assert rank_correlation.tau_ap(reference, top_swap) == pytest.approx(1 / 3)
    # bottom swap: i=2 (b): 1/1; i=3 (d): 2/2; i=4 (c): a, b of a, b, d -> 2/3
    # -> 2/3 * (1 + 1 + 2/3) - 1 = 7/9
    assert rank_correlation.tau_ap(reference, bottom_swap) == pytest.approx(7 / 9)
    assert rank_correlation.tau_ap(reference, reference) == 1.0
    assert rank_correlation.tau_ap(reference, {k: -v for k, v in reference.items()}) == -1.0
    assert np.isnan(rank_correlation.tau_ap({"a": 1.0}, {"a": 2.0}))
