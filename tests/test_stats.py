"""Tests for analysis.stats: scipy cross-checks, hand-worked values, enumeration references."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore.analysis import corrections, stats

# Our functions must not leak numpy/scipy warnings, degenerate inputs included.
pytestmark = pytest.mark.filterwarnings("error")

TOL = 1e-12


def grid_pair(seed: int, n: int, step: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic values on a coarse grid (k / step), so ties and zero differences are common."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, step + 1, n) / step
    b = np.clip(a + rng.integers(-3, 5, n) / step, 0.0, 1.0)
    return a, b


def exact_sign_flip_p(k: list[int]) -> float:
    """Exact two-sided sign-flip p for integer differences, by counting subset sums (no floats).

    The number of sign patterns giving each sum is built one topic at a time:
    counts'(s) = counts(s - k_i) + counts(s + k_i).
    """
    counts = Counter({0: 1})
    for k_i in k:
        nxt: Counter[int] = Counter()
        for s, c in counts.items():
            nxt[s + k_i] += c
            nxt[s - k_i] += c
        counts = nxt
    observed = abs(sum(k))
    return sum(c for s, c in counts.items() if abs(s) >= observed) / 2 ** len(k)


# --- paired t-test ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 3, 10, 50, 225])
def test_paired_t_matches_scipy_ttest_rel(seed, n):
    a, b = grid_pair(seed, n) if seed % 2 else (np.random.default_rng(seed).random((2, n)))
    if np.all(b - a == (b - a)[0]):
        pytest.skip("constant differences: scipy has no defined answer")
    ours = stats.paired_t(a, b, alpha=0.1)
    ref = scipy.stats.ttest_rel(b, a)  # B minus A
    ci = ref.confidence_interval(confidence_level=0.9)
    assert ours.statistic == pytest.approx(ref.statistic, rel=TOL, abs=TOL)
    assert ours.p == pytest.approx(ref.pvalue, rel=TOL, abs=TOL)
    assert ours.df == ref.df == n - 1
    assert ours.ci_low == pytest.approx(ci.low, rel=TOL, abs=TOL)
    assert ours.ci_high == pytest.approx(ci.high, rel=TOL, abs=TOL)
    assert ours.diff == pytest.approx(np.mean(b - a), rel=TOL, abs=TOL)


def test_paired_t_hand_worked():
    # d = b - a = [1, 2, 3]: mean 2; sd = sqrt(((1-2)^2 + 0^2 + (3-2)^2) / 2) = 1;
    # se = 1 / sqrt(3); t = 2 * sqrt(3) = 3.4641016...; df = 2.
    # df = 2 has closed forms: two-sided p = 1 - |t| / sqrt(2 + t^2) = 1 - sqrt(12/14);
    # quantile t_q = (2q - 1) / sqrt(2 q (1 - q)), q = 0.975: 0.95 / sqrt(0.04875) = 4.30265...
    r = stats.paired_t([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    assert r.diff == 2.0
    assert r.effect_size == 2.0  # d_z = 2 / 1
    assert r.statistic == pytest.approx(2 * math.sqrt(3), rel=TOL)
    assert r.statistic == pytest.approx(3.4641016151377544, rel=TOL)
    assert r.df == 2.0
    assert r.p == pytest.approx(1 - math.sqrt(12 / 14), rel=1e-10)
    assert r.p == pytest.approx(0.0741799, abs=1e-7)
    t_q = 0.95 / math.sqrt(2 * 0.975 * 0.025)
    assert r.ci_low == pytest.approx(2 - t_q / math.sqrt(3), rel=1e-10)  # -0.48414
    assert r.ci_high == pytest.approx(2 + t_q / math.sqrt(3), rel=1e-10)  # 4.48414
    assert (r.ci_low, r.ci_high) == pytest.approx((-0.4841377, 4.4841377), abs=1e-7)
    assert (r.test, r.n, r.mean_a, r.mean_b) == ("t", 3, 0.0, 2.0)


def test_paired_t_direction_is_b_minus_a():
    forward = stats.paired_t([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    backward = stats.paired_t([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert backward.statistic == -forward.statistic
    assert backward.diff == -2.0 and backward.effect_size == -2.0
    assert backward.p == forward.p
    assert (backward.ci_low, backward.ci_high) == (-forward.ci_high, -forward.ci_low)


# --- Wilcoxon signed-rank --------------------------------------------------------------------


def check_wilcoxon_against_scipy(a: np.ndarray, b: np.ndarray) -> str:
    """Assert stats.wilcoxon equals scipy.stats.wilcoxon's default; return the method used."""
    ours = stats.wilcoxon(a, b)
    ref = scipy.stats.wilcoxon(a, b)
    assert ours.statistic == pytest.approx(ref.statistic, rel=TOL, abs=TOL)
    assert ours.p == pytest.approx(ref.pvalue, rel=TOL, abs=TOL)
    assert ours.n == np.count_nonzero(b - a)
    if ours.method != "permutation":
        # The reported method is the one scipy's "auto" picked: forcing it gives the same p.
        forced = scipy.stats.wilcoxon(a, b, method=ours.method)
        assert forced.pvalue == pytest.approx(ref.pvalue, rel=TOL, abs=TOL)
    return ours.method


@pytest.mark.parametrize("n", [1, 2, 5, 8, 14, 30, 50, 51, 120])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("grid", [True, False])
def test_wilcoxon_matches_scipy(n, seed, grid):
    a, b = grid_pair(seed, n) if grid else np.random.default_rng(seed).random((2, n))
    if not (b - a).any():
        pytest.skip("no nonzero difference: scipy's answer is not defined for every n")
    method = check_wilcoxon_against_scipy(a, b)
    if not grid:  # continuous values: no ties, no zeros
        assert method == ("exact" if n <= 50 else "asymptotic")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=1, max_size=8))
def test_wilcoxon_small_samples_match_scipy(pairs):
    # Values k / 10: ties and zeros galore, so mostly scipy's permutation branch.
    a = np.array([ka / 10 for ka, _ in pairs])
    b = np.array([kb / 10 for _, kb in pairs])
    if not (b - a).any():
        assert stats.wilcoxon(a, b).p == 1.0
    else:
        check_wilcoxon_against_scipy(a, b)


@pytest.mark.parametrize(("n", "seed"), [(10, 1), (13, 2)])
def test_wilcoxon_permutation_branch_matches_scipy(n, seed):
    # Ties and zeros with n <= 13: scipy enumerates 2^n sign flips (about 3 s at n = 13).
    a, b = grid_pair(seed, n)
    assert check_wilcoxon_against_scipy(a, b) == "permutation"


def test_wilcoxon_reports_each_method():
    exact = stats.wilcoxon(np.zeros(5), [0.1, -0.2, 0.3, 0.4, 0.5])  # no ties, no zeros
    permutation = stats.wilcoxon(np.zeros(5), [0.1, -0.1, 0.3, 0.4, 0.0])  # a tie and a zero
    asymptotic = stats.wilcoxon(np.zeros(14), [0.1] * 14)  # ties, n > 13
    large = stats.wilcoxon(np.zeros(51), np.arange(1, 52) / 100)  # no ties, n > 50
    assert [r.method for r in (exact, permutation, asymptotic, large)] == [
        "exact",
        "permutation",
        "asymptotic",
        "asymptotic",
    ]
    assert permutation.n == 4 and "1 zero difference(s) dropped" in permutation.notes


def test_wilcoxon_hand_worked():
    # d = [1, -2, 3]: |d| ranks 1, 2, 3; R+ = 1 + 3 = 4, R- = 2; statistic min = 2.
    # Null: the 8 sign patterns give R+ in {0, 1, 2, 3, 3, 4, 5, 6} (sums of subsets of {1,2,3}).
    # P(R+ >= 4) = 3/8 ({4, 5, 6}); P(R+ <= 4) = 6/8; two-sided p = 2 * min = 6/8 = 0.75.
    r = stats.wilcoxon([0.0, 0.0, 0.0], [1.0, -2.0, 3.0])
    assert (r.statistic, r.p, r.n, r.method) == (2.0, 0.75, 3, "exact")
    # A zero difference is dropped: same R+ and the same 8 patterns (its sign changes
    # nothing), but scipy switches to the permutation method because a zero is present.
    z = stats.wilcoxon([0.0, 0.0, 0.0, 0.0], [1.0, -2.0, 3.0, 0.0])
    assert (z.statistic, z.n, z.method) == (2.0, 3, "permutation")
    assert z.p == pytest.approx(0.75, rel=TOL)


@pytest.mark.parametrize("n", [0, 3, 60])
def test_wilcoxon_no_nonzero_difference(n):
    r = stats.wilcoxon(np.full(n, 0.5), np.full(n, 0.5))
    assert (r.n, r.p, r.method) == (0, 1.0, "none")
    assert r.statistic == 0.0 if n else math.isnan(r.statistic)


# --- randomisation (sign-flip) test ------------------------------------------------------------


def test_randomization_hand_worked():
    # d = [0.1, 0.2, 0.3], observed sum 0.6. The 8 sums ±0.1 ±0.2 ±0.3 are
    # 0.6, 0.0, 0.2, -0.4, 0.4, -0.2, 0.0, -0.6; |sum| >= 0.6 for 2 of them: p = 2/8.
    # Two of the sums are 0 only up to rounding (0.1 + 0.2 - 0.3 = 5.6e-17 in floats).
    r = stats.randomization([0.0, 0.0, 0.0], [0.1, 0.2, 0.3])
    assert (r.p, r.method, r.n) == (0.25, "exact", 3)
    assert r.statistic == pytest.approx(0.2)
    # Observed mean 0 up to rounding: every pattern is as extreme, p = 1.
    assert stats.randomization([0.0, 0.0, 0.0], [0.3, -0.1, -0.2]).p == 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), max_size=10))
def test_randomization_exact_equals_enumeration(pairs):
    # Values k / 100 like IR scores; the reference enumerates all 2^n sign patterns
    # with itertools.product on the integer differences, so it is free of rounding.
    a = np.array([ka / 100 for ka, _ in pairs])
    b = np.array([kb / 100 for _, kb in pairs])
    k = [kb - ka for ka, kb in pairs]
    observed = abs(sum(k))
    extreme = [
        abs(sum(s * k_i for s, k_i in zip(signs, k, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(k))
    ]
    r = stats.randomization(a, b)
    assert r.p == sum(extreme) / len(extreme)
    assert r.method == ("none" if not pairs else "exact")


@pytest.mark.parametrize("seed", [2, 3, 5])
@pytest.mark.parametrize("n", [20, 22])
def test_randomization_against_exact_counts(seed, n):
    # n = 20 is the largest exact case; n = 22 is sampled (100,000 patterns) and must
    # land near the exact p: its standard error is at most sqrt(0.25 / 1e5) = 0.0016.
    rng = np.random.default_rng(seed)
    ka = rng.integers(0, 101, n)
    kb = np.clip(ka + rng.integers(-15, 21, n), 0, 100)
    expected = exact_sign_flip_p([int(x) for x in kb - ka])
    r = stats.randomization(ka / 100, kb / 100)
    if n <= stats.EXACT_MAX_N:
        assert (r.method, r.p) == ("exact", expected)
    else:
        assert r.method == "sampled"
        assert r.p == pytest.approx(expected, abs=0.005)


def test_randomization_seeded():
    a, b = grid_pair(11, 40)
    first = stats.randomization(a, b, B=20_000, seed=7)
    assert stats.randomization(a, b, B=20_000, seed=7) == first
    others = {stats.randomization(a, b, B=20_000, seed=s).p for s in (8, 9, 10)}
    assert first.p not in others
    assert max(others | {first.p}) - min(others | {first.p}) < 0.02
    # Exact enumeration does not use the seed or B.
    small = grid_pair(11, 12)
    assert stats.randomization(*small, seed=1) == stats.randomization(*small, B=5, seed=2)


def test_randomization_sampled_p_convention():
    # All 30 differences equal 0.1: only the all-plus and all-minus patterns reach
    # |mean| = 0.1, which random draws practically never hit: p = (0 + 1) / (B + 1).
    r = stats.randomization(np.zeros(30), np.full(30, 0.1), B=999)
    assert r.p == 1 / 1000
    # Exact enumeration of a constant difference: 2 / 2^n.
    assert stats.randomization(np.zeros(10), np.full(10, 0.1)).p == 2 / 2**10


# --- paired bootstrap --------------------------------------------------------------------------


def test_bootstrap_seeded_and_ci_contains_observed():
    a, b = grid_pair(4, 60)
    r = stats.bootstrap(a, b, B=5_000, seed=3)
    assert stats.bootstrap(a, b, B=5_000, seed=3) == r
    assert stats.bootstrap(a, b, B=5_000, seed=4).p != r.p
    assert r.ci_low < r.diff < r.ci_high
    assert 0.0 < r.p <= 1.0
    assert r.statistic == r.diff == pytest.approx(np.mean(b - a))


def test_bootstrap_hand_worked():
    # d = [0, 1]: a resample's mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4.
    # 2.5% and 97.5% quantiles fall inside the 0 and 1 masses: CI [0, 1].
    # Centred at the observed 0.5: -0.5, 0, 0.5; |.| >= 0.5 with probability 1/2, so p ~ 0.5
    # (binomial standard error sqrt(0.25 / 10,000) = 0.005).
    r = stats.bootstrap([0.0, 0.0], [0.0, 1.0], B=10_000, seed=0)
    assert (r.ci_low, r.ci_high) == (0.0, 1.0)
    assert r.p == pytest.approx(0.5, abs=0.02)
    # alpha = 0.6: quantiles 0.3 and 0.7 fall inside the 0.5 mass.
    mid = stats.bootstrap([0.0, 0.0], [0.0, 1.0], B=10_000, seed=0, alpha=0.6)
    assert (mid.ci_low, mid.ci_high) == (0.5, 0.5)


def test_bootstrap_p_convention():
    # Constant difference 0.25 (exact in binary): every resample mean is 0.25, centred 0,
    # and |0| >= 0.25 never holds: c = 0, p = 1 / (99 + 1).
    r = stats.bootstrap([0.125, 0.25, 0.5], [0.375, 0.5, 0.75], B=99)
    assert r.p == 1 / 100
    assert (r.ci_low, r.ci_high) == (0.25, 0.25) == (r.diff, r.diff)


# --- multiple comparisons ----------------------------------------------------------------------


def test_bonferroni_and_holm_hand_worked():
    p = [0.01, 0.04, 0.03]
    # Bonferroni: m = 3, each p times 3: [0.03, 0.12, 0.09].
    assert corrections.bonferroni(p) == pytest.approx([0.03, 0.12, 0.09], rel=TOL)
    # Holm: sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04;
    # running max 0.03, 0.06, 0.06; back in input order [0.03, 0.06, 0.06].
    assert corrections.holm(p) == pytest.approx([0.03, 0.06, 0.06], rel=TOL)


def test_bonferroni_and_holm_cap_ties_and_empty():
    p = [0.5, 0.2, 0.2, 0.001]
    # Bonferroni: 4p = [2.0, 0.8, 0.8, 0.004] capped at 1.
    assert corrections.bonferroni(p) == pytest.approx([1.0, 0.8, 0.8, 0.004], rel=TOL)
    # Holm: sorted 0.001, 0.2, 0.2, 0.5 times 4, 3, 2, 1 = 0.004, 0.6, 0.4, 0.5;
    # running max 0.004, 0.6, 0.6, 0.6; input order [0.6, 0.6, 0.6, 0.004].
    assert corrections.holm(p) == pytest.approx([0.6, 0.6, 0.6, 0.004], rel=TOL)
    # Capping: [0.3, 0.6] -> sorted times 2, 1 = 0.6, 0.6; Bonferroni 0.6, 1.2 -> 1.0.
    assert corrections.holm([0.6, 0.3]) == pytest.approx([0.6, 0.6], rel=TOL)
    assert corrections.bonferroni([0.6, 0.3]) == pytest.approx([1.0, 0.6], rel=TOL)
    assert corrections.holm([0.9, 0.8]).tolist() == [1.0, 1.0]  # 0.8 * 2 = 1.6 -> 1
    assert corrections.holm([]).size == 0 and corrections.bonferroni([]).size == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), max_size=12))
def test_holm_between_raw_and_bonferroni(p):
    holm, bonf = corrections.holm(p), corrections.bonferroni(p)
    assert np.all(np.asarray(p) <= holm) and np.all(holm <= bonf) and np.all(holm <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(holm[order]) >= 0)  # monotone in the order of the raw p-values


@pytest.mark.parametrize("bad", [[0.1, 1.5], [-0.1], [math.nan], [[0.1, 0.2]]])
def test_adjustments_reject_invalid_pvalues(bad):
    for adjust in (corrections.holm, corrections.bonferroni):
        with pytest.raises(ValueError, match="p-values must"):
            adjust(bad)


# --- compare and degenerate inputs ---------------------------------------------------------------


def test_compare_rows_and_table():
    a, b = grid_pair(1, 30)
    rows = stats.compare(a, b, B=2_000, seed=5, alpha=0.1)
    assert [r.test for r in rows] == list(stats.TESTS)
    assert rows[0] == stats.paired_t(a, b, alpha=0.1)
    assert rows[1] == stats.wilcoxon(a, b)
    assert rows[2] == stats.randomization(a, b, B=2_000, seed=5)
    assert rows[3] == stats.bootstrap(a, b, B=2_000, seed=5, alpha=0.1)
    assert len({r.effect_size for r in rows}) == 1
    table = pd.DataFrame(rows)
    assert list(table.columns[:6]) == ["test", "n", "mean_a", "mean_b", "diff", "effect_size"]
    assert table["p"].between(0, 1).all()
    only = stats.compare(a, b, tests=("bootstrap", "t"))
    assert [r.test for r in only] == ["bootstrap", "t"]
    assert only[0] == stats.bootstrap(a, b)  # B=None: each test's default
    with pytest.raises(ValueError, match=r"unknown test\(s\) \['sign'\]"):
        stats.compare(a, b, tests=("t", "sign"))


def test_length_mismatch_and_bad_input_raise():
    with pytest.raises(ValueError, match="got lengths 3 and 2"):
        stats.paired_t([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="got lengths 2 and 1"):
        stats.compare([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="1-D"):
        stats.wilcoxon([[0.1, 0.2]], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="finite"):
        stats.randomization([0.1, math.nan], [0.1, 0.2])
    with pytest.raises(ValueError, match="alpha"):
        stats.paired_t([0.1, 0.2], [0.2, 0.3], alpha=1.0)
    with pytest.raises(ValueError, match="B must be a positive integer"):
        stats.bootstrap([0.1, 0.2], [0.2, 0.3], B=0)
    with pytest.raises(ValueError, match="B must be a positive integer"):
        stats.randomization([0.1, 0.2], [0.2, 0.3], B=10.5)


def test_no_topics():
    for r in stats.compare([], []):
        assert (r.n, r.p) == (0, 1.0)
        assert all(math.isnan(x) for x in (r.mean_a, r.mean_b, r.diff, r.effect_size))
        assert math.isnan(r.statistic)
    t, _, _, boot = stats.compare([], [])
    assert (t.ci_low, t.ci_high) == (boot.ci_low, boot.ci_high) == (-math.inf, math.inf)


def test_one_topic():
    rows = stats.compare([0.2], [0.5])
    assert [r.p for r in rows] == [1.0, 1.0, 1.0, 1.0]
    t, wilcoxon, randomization, boot = rows
    assert math.isnan(t.statistic) and math.isnan(t.effect_size) and t.df == 0.0
    assert (t.ci_low, t.ci_high) == (boot.ci_low, boot.ci_high) == (-math.inf, math.inf)
    assert t.diff == pytest.approx(0.3)
    assert (wilcoxon.n, wilcoxon.method) == (1, "exact")
    assert randomization.method == "exact"  # ±0.3 are equally extreme: p = 2/2


def test_all_differences_zero():
    a = [0.1, 0.4, 0.7, 0.7]
    for r in stats.compare(a, a, B=500):
        assert (r.p, r.diff, r.effect_size) == (1.0, 0.0, 0.0)
    t, _, _, boot = stats.compare(a, a, B=500)
    assert t.statistic == 0.0
    assert (t.ci_low, t.ci_high) == (boot.ci_low, boot.ci_high) == (0.0, 0.0)


def test_all_differences_equal_nonzero():
    # b - a = 0.25 on every topic (exact in binary): zero variance.
    a = np.array([0.0, 0.25, 0.5, 0.5])
    t, wilcoxon, randomization, boot = stats.compare(a, a + 0.25, B=999)
    assert (t.statistic, t.p, t.ci_low, t.ci_high) == (math.inf, 0.0, 0.25, 0.25)
    assert t.effect_size == math.inf and t.diff == 0.25
    assert randomization.p == 2 / 2**4  # only all-plus and all-minus reach |mean| 0.25
    # All four |d| tie at rank 2.5, R- = 0: only the all-plus and all-minus of the 16
    # patterns are as extreme, p = 2/16.
    assert (wilcoxon.statistic, wilcoxon.method) == (0.0, "permutation")
    assert wilcoxon.p == pytest.approx(2 / 16, rel=TOL)
    assert (boot.p, boot.ci_low, boot.ci_high) == (1 / 1000, 0.25, 0.25)
    down = stats.paired_t(a + 0.25, a)
    assert (down.statistic, down.effect_size, down.p) == (-math.inf, -math.inf, 0.0)


# --- Wilcoxon against oracles that share nothing with scipy ------------------------------------


def wilcoxon_by_enumeration(d: list[float]) -> tuple[float, float]:
    """min(R+, R-) and the two-sided p, by listing all 2^n sign patterns in integers.

    Zero differences are dropped. |d| is ranked with tied values sharing their mean
    rank; ranks are doubled so that every rank is an integer (values tied at sorted
    positions i..j get i + j). Under H0 each sign is a fair coin: R+ of a pattern is
    the sum of the ranks it makes positive, and
    p = min(1, 2 * min(#patterns with R+ <= observed, #patterns with R+ >= observed) / 2^n).
    """
    nonzero = [x for x in d if x != 0]
    ordered = sorted(abs(x) for x in nonzero)

    def doubled_rank(value: float) -> int:
        first = ordered.index(value) + 1
        last = len(ordered) - ordered[::-1].index(value)
        return first + last

    ranks = [doubled_rank(abs(x)) for x in nonzero]
    observed = sum(r for r, x in zip(ranks, nonzero, strict=True) if x > 0)
    null = [
        sum(r for r, plus in zip(ranks, signs, strict=True) if plus)
        for signs in itertools.product((False, True), repeat=len(ranks))
    ]
    below = sum(v <= observed for v in null)
    above = sum(v >= observed for v in null)
    return min(observed, sum(ranks) - observed) / 2, min(1.0, 2 * min(below, above) / len(null))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-6, 6), min_size=1, max_size=11).filter(any),
    st.sampled_from([8.0, 7.3]),
)
def test_wilcoxon_equals_enumeration_of_sign_patterns(steps, scale):
    # d = k / 8 (exact binary fractions: zeros and ties stay exact) or k / 7.3; n <= 11,
    # so scipy's exact branch or the permutation branch, never the normal approximation
    d = [k / scale for k in steps]
    statistic, p = wilcoxon_by_enumeration(d)
    ours = stats.wilcoxon(np.zeros(len(d)), d)
    assert ours.method in ("exact", "permutation")
    assert ours.statistic == statistic
    assert ours.p == pytest.approx(p, rel=1e-12, abs=1e-15)


def test_wilcoxon_exact_p_from_enumeration_distinct_values():
    # no ties, no zeros: scipy's exact branch; d = +-i/10 with minus on i = 2, 5, 6
    d = [0.1, -0.2, 0.3, 0.4, -0.5, -0.6, 0.7, 0.8, 0.9]
    ours = stats.wilcoxon(np.zeros(9), d)
    assert ours.method == "exact"
    # R- = 2 + 5 + 6 = 13, R+ = 45 - 13 = 32
    statistic, p = wilcoxon_by_enumeration(d)
    assert (statistic, ours.statistic) == (13.0, 13.0)
    assert ours.p == pytest.approx(p, rel=1e-12)


def test_wilcoxon_normal_approximation_written_out():
    # n = 51 > 50: the normal approximation. d_i = i / 100, negative for i = 20..35.
    # |d| ranks are i; R- = 20 + ... + 35 = 16 * 55 / 2 = 440; R+ = 51 * 52 / 2 - 440 = 886.
    # T = min(R+, R-) = 440; E[T] = n(n+1)/4 = 663; Var = n(n+1)(2n+1)/24 = 273156/24;
    # z = (440 - 663) / sqrt(11381.5) = -2.0903; p = 2 * (1 - Phi(|z|)) = erfc(|z| / sqrt 2).
    d = [(-i if 20 <= i <= 35 else i) / 100 for i in range(1, 52)]
    z = (440 - 51 * 52 / 4) / math.sqrt(51 * 52 * 103 / 24)
    ours = stats.wilcoxon(np.zeros(51), d)
    assert (ours.method, ours.statistic) == ("asymptotic", 440.0)
    assert ours.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)
    assert ours.p == pytest.approx(0.0366, abs=5e-5)


def test_wilcoxon_normal_approximation_with_tie_correction():
    # 14 equal differences (ties, n > 13: normal approximation). Every rank is 7.5:
    # R+ = 14 * 7.5 = 105, R- = 0, T = 0; E[T] = 14 * 15 / 4 = 52.5;
    # Var = 14 * 15 * 29 / 24 - (14^3 - 14) / 48 = 253.75 - 56.875 = 196.875 (one tie group
    # of t = 14 removes (t^3 - t) / 48); z = -52.5 / sqrt(196.875) = -3.7417.
    ours = stats.wilcoxon(np.zeros(14), [0.1] * 14)
    z = (0 - 52.5) / math.sqrt(14 * 15 * 29 / 24 - (14**3 - 14) / 48)
    assert (ours.method, ours.statistic) == ("asymptotic", 0.0)
    assert ours.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)
