"""Benchmark: irscore's sign-flip randomisation test against numpy and scipy peers, one run.

225 topics of seeded per-topic values (the size of Cranfield), 100,000 random
sign patterns for every implementation, timed in this process, best of 5 rounds
that each run every implementation in turn (so all meet the same machine load):

- irscore: stats.randomization (random bits unpacked in chunks, one matrix-vector
  product per chunk);
- numpy: the vectorised version a researcher would write, a (B x n) matrix of
  random +-1 signs times the differences;
- scipy: scipy.stats.permutation_test with permutation_type="samples" and a
  vectorised statistic, the library route.

The three draw different patterns, so their p-values agree only to Monte-Carlo
error; the last line feeds irscore's own patterns to the numpy computation and
checks that the p-values are then identical.

Run: .venv/bin/python benchmarks/stats_randomization.py
"""

from __future__ import annotations

import time

import numpy as np
import scipy.stats

from irscore.analysis import stats

TOPICS = 225
PATTERNS = 100_000
SEED = 0
REPEATS = 5


def per_topic_values(seed: int = 20240601) -> tuple[np.ndarray, np.ndarray]:
    """Two runs' per-topic scores in [0, 1]; run B is a little better on average."""
    rng = np.random.default_rng(seed)
    a = rng.beta(2.0, 3.0, TOPICS)
    b = np.clip(a + rng.normal(0.01, 0.08, TOPICS), 0.0, 1.0)
    return a, b


def numpy_p(d: np.ndarray, B: int, seed: int) -> float:
    """(c + 1) / (B + 1) from a (B x n) matrix of random signs, one matrix product."""
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(B, d.size))
    means = signs @ d / d.size
    return (np.count_nonzero(np.abs(means) >= abs(d.mean())) + 1) / (B + 1)


def scipy_p(d: np.ndarray, B: int, seed: int) -> float:
    """scipy.stats.permutation_test on the paired differences (sign flips), two-sided."""
    result = scipy.stats.permutation_test(
        (d,),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        n_resamples=B,
        vectorized=True,
        alternative="two-sided",
        random_state=seed,
    )
    return float(result.pvalue)


def best_of_rounds(rounds: int, runs: dict) -> dict[str, tuple[float, object]]:
    """Per implementation: fastest wall time over `rounds` rounds of all in turn, last result."""
    best = {name: (float("inf"), None) for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            result = run()
            best[name] = (min(best[name][0], time.perf_counter() - start), result)
    return best


def main() -> None:
    a, b = per_topic_values()
    d = b - a
    runs = {
        "irscore stats.randomization": lambda: stats.randomization(a, b, B=PATTERNS, seed=SEED).p,
        "numpy (B x n) sign matrix": lambda: numpy_p(d, PATTERNS, SEED),
        "scipy.stats.permutation_test": lambda: scipy_p(d, PATTERNS, SEED),
    }
    timed = best_of_rounds(REPEATS, runs)
    ours = timed["irscore stats.randomization"][0]
    print(f"sign-flip randomisation test, {TOPICS} topics, {PATTERNS:,} patterns each, seed {SEED}")
    print(f"observed mean difference (B - A): {d.mean():+.6f}; best of {REPEATS}, in one process")
    print(f"{'implementation':<32}{'seconds':>10}{'/ irscore':>11}{'p':>11}")
    for name, (seconds, p) in timed.items():
        print(f"{name:<32}{seconds:>10.4f}{seconds / ours:>10.2f}x{p:>11.5f}")
    flips = np.concatenate(list(stats._random_flip_patterns(TOPICS, PATTERNS, SEED)))
    means = (1.0 - 2.0 * flips) @ d / TOPICS  # bit 1 flips a topic's sign
    same = (np.count_nonzero(np.abs(means) >= abs(d.mean())) + 1) / (PATTERNS + 1)
    equal = "yes" if same == timed["irscore stats.randomization"][1] else "NO"
    print(
        f"numpy on irscore's own {PATTERNS:,} patterns: p = {same:.6f}, equal to irscore's: {equal}"
    )


if __name__ == "__main__":
    main()
