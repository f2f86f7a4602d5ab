"""Benchmark: vectorised sign-flip randomisation test versus a per-pattern Python loop.

225 topics of seeded per-topic values (the size of Cranfield), 100,000 random sign
patterns. The naive reference loops over patterns and topics in pure Python; it runs
on the first 2,000 patterns and its time is extrapolated linearly to 100,000. The
equality check feeds both the same 2,000 patterns (the ones `randomization` draws
for that seed) and compares the p-values.

Run: .venv/bin/python benchmarks/stats_randomization.py
"""

from __future__ import annotations

import time

import numpy as np

from irscore import stats

TOPICS = 225
PATTERNS = 100_000
NAIVE_PATTERNS = 2_000
SEED = 0
REPEATS = 5


def per_topic_values(seed: int = 20240601) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' per-topic scores in [0, 1]; run B is a little better on average."""
    rng = np.random.default_rng(seed)
    a = rng.beta(2.0, 3.0, TOPICS)
    b = np.clip(a + rng.normal(0.01, 0.08, TOPICS), 0.0, 1.0)
    return a, b


def naive_p(d: list[float], patterns: list[list[int]]) -> float:
    """(c + 1) / (B + 1) with one Python loop per pattern and per topic (bit 1 flips a topic)."""
    n = len(d)
    observed = abs(sum(d) / n)
    tolerance = stats._TIE_RTOL * sum(abs(x) for x in d) / n
    count = 0
    for flips in patterns:
        total = 0.0
        for x, flip in zip(d, flips, strict=True):
            total += -x if flip else x
        if abs(total / n) >= observed - tolerance:
            count += 1
    return (count + 1) / (len(patterns) + 1)


def best_of(repeats: int, run) -> tuple[float, object]:
    """Fastest wall time of `repeats` calls, with the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    a, b = per_topic_values()
    d = b - a
    vector_time, result = best_of(REPEATS, lambda: stats.randomization(a, b, B=PATTERNS, seed=SEED))

    patterns = np.concatenate(list(stats._random_flip_patterns(TOPICS, NAIVE_PATTERNS, SEED)))
    pattern_rows, d_list = patterns.tolist(), d.tolist()
    naive_time, naive = best_of(1, lambda: naive_p(d_list, pattern_rows))
    naive_extrapolated = naive_time * PATTERNS / NAIVE_PATTERNS
    vector_same = stats.randomization(a, b, B=NAIVE_PATTERNS, seed=SEED).p

    print(f"sign-flip randomisation test, {TOPICS} topics, seed {SEED}")
    print(f"observed mean difference (B - A): {result.diff:+.6f}, p = {result.p:.6f}")
    print(f"{'implementation':<34}{'patterns':>10}{'seconds':>12}")
    print(f"{'vectorised (best of ' + str(REPEATS) + ')':<34}{PATTERNS:>10,}{vector_time:>12.4f}")
    print(f"{'naive Python loop, measured':<34}{NAIVE_PATTERNS:>10,}{naive_time:>12.4f}")
    print(f"{'naive Python loop, extrapolated':<34}{PATTERNS:>10,}{naive_extrapolated:>12.4f}")
    print(f"speed-up at {PATTERNS:,} patterns: {naive_extrapolated / vector_time:,.0f}x")
    print("(naive time is linear extrapolation from the measured patterns; it excludes drawing")
    print(" the patterns, which the vectorised time includes)")
    same = "yes" if naive == vector_same else "NO"
    print(
        f"same {NAIVE_PATTERNS:,} patterns: vectorised p = {vector_same:.6f}, "
        f"naive p = {naive:.6f}, equal: {same}"
    )


if __name__ == "__main__":
    main()
