"""Paired significance tests for comparing two runs topic by topic.

Every test takes two aligned 1-D arrays `a` and `b` (one measure's per-topic
values for run A and run B, same topics in the same order; the caller aligns
them) and works on the differences d = b - a ("B minus A"): a positive mean
difference means B scores higher. Each test returns a `TestResult` row that
carries the effect size (Cohen's d_z) next to its p-value, so a list of rows
from `compare` becomes a table with `pandas.DataFrame(rows)`; `corrections`
adjusts the p-values of one such table for multiple comparisons.

Resampling tests are seeded (numpy `Generator(PCG64(seed))`): the same inputs,
B and seed give the same numbers. Sampled p-values are (c + 1) / (B + 1), with
c the number of resamples at least as extreme as the observed data; that counts
the observed data as one of the resamples, so the p-value is never 0 and is
valid (never anti-conservative). "At least as extreme" allows for rounding:
|stat*| >= |observed| - 1e-10 * mean(|d|), so sign patterns whose means are
mathematically equal to the observed one count as ties however float
summation orders them.

Degenerate inputs have defined results rather than NaN p-values or warnings:

- `a`, `b` not 1-D, of different lengths or with NaN/inf values: ValueError.
- n = 0 topics: p = 1.0 for every test; means, diff, effect size and the test
  statistic are NaN; confidence intervals are (-inf, inf).
- n = 1 topic: p = 1.0 for every test (one topic says nothing about
  topic-to-topic variability); t and effect size are NaN; CIs (-inf, inf).
- All differences 0 (n >= 2): p = 1.0 everywhere; t = 0, effect size 0 and the
  t and bootstrap CIs are [0, 0].
- All differences equal to c != 0 (n >= 2): zero variance, so t = ±inf,
  p = 0.0 and the t CI is [c, c] (the zero-variance limit of the t-test);
  effect size ±inf; the bootstrap CI is [c, c] and its p is 1 / (B + 1); the
  randomisation p is the honest 2 / 2^n (exact) and the Wilcoxon test treats
  the differences as tied ranks.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomisation test",
    "bootstrap": "paired bootstrap test",
}
EXACT_MAX_N = 20  # the randomisation test enumerates all 2^n sign patterns up to this n
_TIE_RTOL = 1e-10  # "as extreme" tolerance, relative to mean(|d|)
_CHUNK_CELLS = 1 << 20  # cells of one sign / index matrix chunk: bounds memory at any B
_FEW_TOPICS = {0: "no topics", 1: "one topic: no test possible"}


@dataclass(frozen=True, slots=True)
class TestResult:
    """One test's outcome for run B versus run A; `pandas.DataFrame(list_of_rows)` makes a table.

    `n` counts topics (for Wilcoxon, the nonzero differences it ranks). `diff` is
    mean(b - a) and `effect_size` is Cohen's d_z = diff / sd(b - a, ddof=1).
    `statistic` is t for the t-test, min(R+, R-) for Wilcoxon and the observed mean
    difference for the resampling tests. Fields a test does not define are NaN.
    """

    test: str
    n: int
    mean_a: float
    mean_b: float
    diff: float
    effect_size: float
    statistic: float
    df: float
    p: float
    ci_low: float
    ci_high: float
    method: str
    notes: str = ""


@dataclass(frozen=True, slots=True)
class _Paired:
    """Validated inputs and the descriptive numbers every test reports."""

    d: np.ndarray
    mean_a: float
    mean_b: float
    diff: float
    sd: float  # NaN for n < 2; exactly 0.0 when all differences are equal
    effect_size: float

    @property
    def n(self) -> int:
        """Number of topics."""
        return int(self.d.size)

    @property
    def constant(self) -> bool:
        """True when there are at least two differences and they are all equal."""
        return self.n >= 2 and self.sd == 0.0

    def row(self, test: str, **fields: float | int | str) -> TestResult:
        """A result row: the shared descriptive fields, NaN for the rest, then `fields`."""
        base = {
            "test": test,
            "n": self.n,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "diff": self.diff,
            "effect_size": self.effect_size,
            "statistic": math.nan,
            "df": math.nan,
            "ci_low": math.nan,
            "ci_high": math.nan,
            "notes": "",
        }
        return TestResult(**(base | fields))


def paired_t(a: Sequence[float], b: Sequence[float], alpha: float = 0.05) -> TestResult:
    """Paired t-test of mean(b - a) = 0, two-sided, with the (1 - alpha) CI of the mean difference.

    t = mean(d) / (sd(d) / sqrt(n)), df = n - 1; matches scipy.stats.ttest_rel(b, a).
    """
    _check_alpha(alpha)
    pair = _paired(a, b)
    n = pair.n
    if n < 2:
        return pair.row(
            "t",
            df=float(max(n - 1, 0)),
            p=1.0,
            ci_low=-math.inf,
            ci_high=math.inf,
            method="student-t",
            notes=_FEW_TOPICS[n],
        )
    df = float(n - 1)
    if pair.constant:
        c = pair.diff
        t = 0.0 if c == 0.0 else math.copysign(math.inf, c)
        note = "all differences are zero" if c == 0.0 else "all differences equal: zero variance"
        return pair.row(
            "t",
            statistic=t,
            df=df,
            p=1.0 if c == 0.0 else 0.0,
            ci_low=c,
            ci_high=c,
            method="student-t",
            notes=note,
        )
    se = pair.sd / math.sqrt(n)
    t = pair.diff / se
    # Student's t survival function and quantile, as scipy.stats.t.sf and .ppf compute them.
    p = float(min(1.0, 2.0 * special.stdtr(df, -abs(t))))
    half_width = float(special.stdtrit(df, 1.0 - alpha / 2.0)) * se
    return pair.row(
        "t",
        statistic=t,
        df=df,
        p=p,
        ci_low=pair.diff - half_width,
        ci_high=pair.diff + half_width,
        method="student-t",
    )


def wilcoxon(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Wilcoxon signed-rank test, two-sided, exactly as scipy.stats.wilcoxon(b - a) by default.

    Zero differences are dropped (zero_method="wilcox") and `n` is the number kept.
    scipy 1.17's method="auto" picks, by the length including zeros: "exact" null
    distribution when n <= 50 with no ties and no zeros; otherwise "permutation"
    (all 2^n sign flips of the rank statistic) when n <= 13; otherwise "asymptotic"
    (normal approximation with tie correction, no continuity correction). `method`
    names the one used. scipy computes the exact and asymptotic p-values; the
    permutation one is computed here, vectorised, because scipy's takes seconds.
    `statistic` is min(R+, R-). No nonzero difference: p = 1.0.
    """
    import scipy.stats  # here: only this test needs it, and it takes a second to import

    pair = _paired(a, b)
    d = pair.d
    nonzero = d[d != 0.0]
    n_zero = d.size - nonzero.size
    notes = f"{n_zero} zero difference(s) dropped" if n_zero else ""
    if nonzero.size == 0:
        note = "no topics" if d.size == 0 else "all differences are zero"
        statistic = math.nan if d.size == 0 else 0.0  # R+ = R- = 0 once the zeros are gone
        return pair.row("wilcoxon", n=0, statistic=statistic, p=1.0, method="none", notes=note)
    ties = np.unique(np.abs(nonzero)).size < nonzero.size
    if d.size > 50:
        method = "asymptotic"
    elif not ties and n_zero == 0:
        method = "exact"
    elif d.size <= 13:
        method = "permutation"
    else:
        method = "asymptotic"
    if method == "permutation":
        statistic, p = _signed_rank_permutation(nonzero)
    else:
        result = scipy.stats.wilcoxon(d)
        statistic, p = float(result.statistic), float(result.pvalue)
    return pair.row(
        "wilcoxon", n=int(nonzero.size), statistic=statistic, p=p, method=method, notes=notes
    )


def randomization(
    a: Sequence[float], b: Sequence[float], B: int = 100_000, seed: int = 0
) -> TestResult:
    """Fisher's randomisation (sign-flip) test of the mean difference, two-sided.

    Under H0 each topic's difference is as likely to be +d_i as -d_i. n <= 20: all
    2^n sign patterns, p = c / 2^n ("exact"; B and seed unused). n > 20: B seeded
    random patterns, p = (c + 1) / (B + 1) ("sampled").
    """
    _check_B(B)
    pair = _paired(a, b)
    n = pair.n
    if n == 0:
        return pair.row("randomization", p=1.0, method="none", notes=_FEW_TOPICS[0])
    if n <= EXACT_MAX_N:
        count, patterns = _count_as_extreme(pair.d, _all_flip_patterns(n))
        p = count / patterns
        method, notes = "exact", f"all 2^{n} = {patterns} sign patterns"
    else:
        count, patterns = _count_as_extreme(pair.d, _random_flip_patterns(n, B, seed))
        p = (count + 1) / (patterns + 1)
        method, notes = "sampled", f"{B} random sign patterns, seed {seed}, p = (c + 1)/(B + 1)"
    return pair.row("randomization", statistic=pair.diff, p=p, method=method, notes=notes)


def bootstrap(
    a: Sequence[float], b: Sequence[float], B: int = 10_000, seed: int = 0, alpha: float = 0.05
) -> TestResult:
    """Paired bootstrap: percentile (1 - alpha) CI of the mean difference and shifted-bootstrap p.

    B seeded resamples of the topics with replacement (a and b move together).
    The CI is the alpha/2 and 1 - alpha/2 quantiles of the resampled means (numpy's
    linear interpolation). The p-value resamples the differences centred at zero
    (mean* - observed mean) and is (c + 1) / (B + 1), c counting |centred mean*| >=
    |observed mean|. n < 2: p = 1.0 and CI (-inf, inf).
    """
    _check_alpha(alpha)
    _check_B(B)
    pair = _paired(a, b)
    n = pair.n
    notes = f"{B} paired resamples, seed {seed}"
    if n < 2:
        return pair.row(
            "bootstrap",
            statistic=pair.diff,
            p=1.0,
            ci_low=-math.inf,
            ci_high=math.inf,
            method="percentile CI, shifted p",
            notes=_FEW_TOPICS[n],
        )
    means = _bootstrap_means(pair.d, B, seed)
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0])
    if pair.constant:
        low = high = pair.diff  # every resample mean is c; keep rounding noise out of the CI
    tolerance = _TIE_RTOL * float(np.mean(np.abs(pair.d)))
    count = int(np.count_nonzero(np.abs(means - pair.diff) >= abs(pair.diff) - tolerance))
    return pair.row(
        "bootstrap",
        statistic=pair.diff,
        p=(count + 1) / (B + 1),
        ci_low=float(low),
        ci_high=float(high),
        method="percentile CI, shifted p",
        notes=notes,
    )


def compare(
    a: Sequence[float],
    b: Sequence[float],
    tests: Sequence[str] = TESTS,
    B: int | None = None,
    seed: int = 0,
    alpha: float = 0.05,
) -> list[TestResult]:
    """Run the named tests (any of `TESTS`, in the given order) on run B versus run A.

    B is the number of resamples of the randomisation and bootstrap tests; None uses
    each one's default (100,000 sign patterns, 10,000 bootstrap resamples).
    """
    unknown = [name for name in tests if name not in TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {unknown}; choose from {list(TESTS)}")
    extra = {} if B is None else {"B": B}
    runners = {
        "t": lambda: paired_t(a, b, alpha=alpha),
        "wilcoxon": lambda: wilcoxon(a, b),
        "randomization": lambda: randomization(a, b, seed=seed, **extra),
        "bootstrap": lambda: bootstrap(a, b, seed=seed, alpha=alpha, **extra),
    }
    return [runners[name]() for name in tests]


def resampled_means(
    a: Sequence[float],
    b: Sequence[float],
    B_randomization: int = 100_000,
    B_bootstrap: int = 10_000,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The mean differences the randomisation and bootstrap tests compare with the observed
    one (the same patterns and resamples, seed for seed), for drawing their distributions."""
    pair = _paired(a, b)
    n = pair.n
    if n < 2:
        return np.array([]), np.array([])
    patterns = (
        _all_flip_patterns(n)
        if n <= EXACT_MAX_N
        else _random_flip_patterns(n, B_randomization, seed)
    )
    total = float(pair.d.sum())
    flipped = np.concatenate([(total - 2.0 * (flips @ pair.d)) / n for flips in patterns])
    return flipped, _bootstrap_means(pair.d, B_bootstrap, seed)


def _paired(a: Sequence[float], b: Sequence[float]) -> _Paired:
    """Validate a and b and compute d = b - a with its mean, sd and Cohen's d_z."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"a and b must be 1-D per-topic arrays, got shapes {a.shape}, {b.shape}")
    if a.size != b.size:
        raise ValueError(
            f"a and b must have one value per topic for the same topics, "
            f"got lengths {a.size} and {b.size}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("a and b must be finite (no NaN or inf per-topic values)")
    d = b - a
    n = d.size
    if n == 0:
        return _Paired(d, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    if n == 1:
        return _Paired(d, mean_a, mean_b, float(d[0]), math.nan, math.nan)
    if (d == d[0]).all():  # exactly constant: float summation must not invent a tiny sd
        diff, sd = float(d[0]), 0.0
    else:
        diff, sd = float(d.mean()), float(d.std(ddof=1))
    return _Paired(d, mean_a, mean_b, diff, sd, _effect_size(diff, sd))


def _effect_size(diff: float, sd: float) -> float:
    """Cohen's d_z = diff / sd; sd = 0 gives 0 when diff = 0, else ±inf.

    sd = 0 means constant differences, or differences so small (< 1e-154) that
    their squares underflow.
    """
    if sd > 0.0:
        return diff / sd
    return 0.0 if diff == 0.0 else math.copysign(math.inf, diff)


def _all_flip_patterns(n: int) -> Iterator[np.ndarray]:
    """Every one of the 2^n flip patterns as 0/1 float rows (bit j of the row index flips topic j).

    Float, because numpy's matrix product of uint8 by float64 skips BLAS and is ~5x slower.
    """
    total = 1 << n
    shifts = np.arange(n, dtype=np.int64)
    rows = _rows_per_chunk(n)
    for start in range(0, total, rows):
        index = np.arange(start, min(start + rows, total), dtype=np.int64)
        yield ((index[:, None] >> shifts) & 1).astype(np.float64)


def _signed_rank_permutation(nonzero: np.ndarray) -> tuple[float, float]:
    """min(R+, R-) and two-sided p over all 2^m sign flips of the m nonzero differences.

    The numbers of scipy.stats.wilcoxon's permutation branch (its permutation_test
    enumerates the same patterns; flipping a dropped zero changes nothing), computed
    with one matrix product: scipy's takes about 3 s at n = 13. Rank sums are
    multiples of 0.5, so the comparisons are exact.
    """
    import scipy.stats  # here: only the Wilcoxon test needs it

    ranks = scipy.stats.rankdata(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    null = np.concatenate([flips @ ranks for flips in _all_flip_patterns(nonzero.size)])
    extreme = min(np.count_nonzero(null <= r_plus), np.count_nonzero(null >= r_plus))
    return min(r_plus, float(ranks.sum()) - r_plus), min(1.0, 2.0 * extreme / null.size)


def _random_flip_patterns(n: int, B: int, seed: int) -> Iterator[np.ndarray]:
    """B seeded random flip patterns as 0/1 float rows, each bit a fair coin (8 per random byte)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    nbytes = (n + 7) // 8
    rows = _rows_per_chunk(n)
    for start in range(0, B, rows):
        draw = rng.integers(0, 256, size=(min(rows, B - start), nbytes), dtype=np.uint8)
        yield np.unpackbits(draw, axis=1, count=n).astype(np.float64)


def _count_as_extreme(d: np.ndarray, patterns: Iterator[np.ndarray]) -> tuple[int, int]:
    """(number of patterns whose |mean| >= observed |mean| - tolerance, number of patterns).

    Works on sums: flipping the topics in F gives sum(d) - 2 * sum(d[F]), one
    matrix-vector product per chunk of patterns.
    """
    total = float(d.sum())
    threshold = abs(total) - _TIE_RTOL * float(np.abs(d).sum())
    count = seen = 0
    for flips in patterns:
        sums = total - 2.0 * (flips @ d)
        count += int(np.count_nonzero(np.abs(sums) >= threshold))
        seen += flips.shape[0]
    return count, seen


def _bootstrap_means(d: np.ndarray, B: int, seed: int) -> np.ndarray:
    """Means of B seeded resamples of d with replacement, drawn in chunks."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = d.size
    rows = _rows_per_chunk(n)
    means = np.empty(B, dtype=np.float64)
    for start in range(0, B, rows):
        stop = min(start + rows, B)
        means[start:stop] = d[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return means


def _rows_per_chunk(n: int) -> int:
    """Rows per chunk so a (rows x n) matrix stays near _CHUNK_CELLS cells; fixed for a given n."""
    return max(1, _CHUNK_CELLS // max(n, 1))


def _check_alpha(alpha: float) -> None:
    """Reject a significance level outside (0, 1)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def _check_B(B: int) -> None:
    """Reject a resample count that is not a positive integer."""
    if isinstance(B, bool) or not isinstance(B, int | np.integer) or B < 1:
        raise ValueError(f"B must be a positive integer, got {B!r}")
