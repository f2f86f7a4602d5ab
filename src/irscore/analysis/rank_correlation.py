"""How much two orders of the same systems agree: Kendall's tau and tau_AP.

The convention audit says whether runs swap places under a convention; these
say how much. tau counts discordant pairs anywhere in the order; tau_AP
(Yilmaz, Aslam & Robertson 2008) weighs a swap near the top more than one
near the bottom, as a leaderboard reader does.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def order(means: Mapping[str, float]) -> list[str]:
    """Systems from best to worst by mean (NaN last, equal means by name)."""
    return sorted(means, key=lambda s: (np.isnan(means[s]), -np.nan_to_num(means[s]), s))


def kendall_tau(reference: Mapping[str, float], other: Mapping[str, float]) -> float:
    """Kendall's tau-b between the systems' means under two conventions (NaN: undefined)."""
    import scipy.stats  # here: only the audit needs it

    systems = sorted(set(reference) & set(other))
    x = np.array([reference[s] for s in systems])
    y = np.array([other[s] for s in systems])
    keep = ~np.isnan(x) & ~np.isnan(y)
    if keep.sum() < 2:
        return np.nan
    return float(scipy.stats.kendalltau(x[keep], y[keep]).statistic)


def tau_ap(reference: Mapping[str, float], other: Mapping[str, float]) -> float:
    """tau_AP of the order under `other` against the true order under `reference`.

    tau_AP = 2/(n-1) * sum over i = 2..n of C(i)/(i-1) - 1, with the systems in
    `other`'s order and C(i) the number of the i-1 systems above the i-th there
    that the reference also ranks above it. 1 for the same order, -1 reversed.
    """
    systems = [s for s in order(other) if s in reference and not np.isnan(other[s])]
    systems = [s for s in systems if not np.isnan(reference[s])]
    n = len(systems)
    if n < 2:
        return np.nan
    true_position = {s: i for i, s in enumerate(order({s: reference[s] for s in systems}))}
    total = 0.0
    for i in range(1, n):
        above = sum(true_position[s] < true_position[systems[i]] for s in systems[:i])
        total += above / i
    return 2.0 * total / (n - 1) - 1.0
