"""Tukey's honestly significant difference over many systems (as ranx offers it).

Per measure, the per-topic values of every system on the topics all of them
answer are the groups of scipy's `tukey_hsd` (Tukey-Kramer; the systems are
treated as independent groups, not paired by topic). Its p-values hold for
every pair of systems of that measure at once, so no further correction is
applied; its confidence intervals (level 1 - alpha) are those of mean B - mean A.
The rows have the columns of `audit.paired_comparisons`, for the systems table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irscore.analysis.audit import COMPARISON_COLUMNS, _by_key, concluded
from irscore.engine.ranking.conventions import Convention

TEST = "tukey"


def comparisons(
    table: pd.DataFrame,
    systems: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    measures: Sequence[str],
    convention: Convention,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Tukey's HSD of each pair (run B against run A) for each measure, over all `systems`."""
    from scipy.stats import tukey_hsd

    values = _by_key(table, measures, [convention])
    rows = []
    for measure in measures:
        found = [values.get((convention.name, measure, s)) for s in systems]
        if any(f is None for f in found):
            continue
        shared = found[0].topics
        for f in found[1:]:
            shared = np.intersect1d(shared, f.topics)
        groups = [f.values[np.searchsorted(f.topics, shared)] for f in found]
        if len(shared) < 2:
            result, low, high = None, None, None
        else:
            result = tukey_hsd(*groups)
            interval = result.confidence_interval(1 - alpha)
            low, high = interval.low, interval.high
        index = {s: i for i, s in enumerate(systems)}
        left_out = sum(len(f.topics) for f in found) - len(systems) * len(shared)
        note = f"{len(shared)} topics every system answers" + (
            f" ({left_out} values of topics some system lacks left out)" if left_out else ""
        )
        for run_a, run_b in pairs:
            a, b = index[run_a], index[run_b]
            mean_a, mean_b = float(groups[a].mean()), float(groups[b].mean())
            rows.append(
                {
                    "convention": convention.name,
                    "measure": measure,
                    "run_a": run_a,
                    "run_b": run_b,
                    "test": TEST,
                    "n": len(shared),
                    "mean_a": mean_a,
                    "mean_b": mean_b,
                    "diff": mean_b - mean_a,
                    "effect_size": np.nan,
                    "statistic": np.nan if result is None else float(result.statistic[b, a]),
                    "p": 1.0 if result is None else float(result.pvalue[b, a]),
                    "ci_low": -np.inf if low is None else float(low[b, a]),
                    "ci_high": np.inf if high is None else float(high[b, a]),
                    "notes": note,
                }
            )
    if not rows:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    frame = pd.DataFrame(rows)
    frame["p_adjusted"] = frame["p"]  # the HSD adjusts for every pair of the measure
    return concluded(frame, alpha)


def scope(systems: int, measures: int) -> str:
    """What the HSD's p-values adjust for, in words, for the table's footnote."""
    return (
        f"Tukey's HSD over the {systems} systems, each of the {measures} "
        f"measure{'s' * (measures != 1)} on its own (scipy.stats.tukey_hsd on the per-topic "
        "values, systems as independent groups; its p-values hold for every pair at once, "
        "no further correction)"
    )
