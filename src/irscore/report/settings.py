"""The report's settings that no config gives (`irscore audit`'s), and the checks of
config's `plots:` section that the schema cannot state, run before any job.

The Snakefile imports this module while it builds the DAG, so it imports
nothing heavy (no pandas, no matplotlib).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# The headline measures of `irscore audit`: the same as the workflow's default config
# (tests/test_report_own_runs.py checks config.yaml against it).
HEADLINE = {
    "P@10": "P_10",
    "R@100": "recall_100",
    "MRR": "recip_rank",
    "MAP": "map",
    "R-prec": "Rprec",
    "nDCG@10": "ndcg_cut_10",
    "nDCG@10 (exp)": "ndcg_exp_cut_10",
    "11pt_avg": "11pt_avg",
}
# The measures `irscore audit` computes: the workflow's default config's (checked there
# too), so that every headline measure exists under the reference convention.
MEASURES = {
    "P": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "recall": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "ndcg_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "ndcg_exp_cut": [5, 10, 20],
    "map_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "success": [1, 5, 10],
    "err": [10, 20],
    "judged": [10, 100],
}
DPI = 150


def check_plots(plots: Mapping[str, Any], runs: Sequence[str]) -> None:
    """Fail when `plots:` names a run that is not configured, or pairs a run with itself."""
    named = [plots["example"]["run"], *(run for pair in plots["pairs"] for run in pair)]
    unknown = sorted(set(named) - set(runs))
    if unknown:
        raise ValueError(f"plots: unknown run(s) {', '.join(unknown)}; runs: {', '.join(runs)}")
    same = [pair for pair in plots["pairs"] if pair[0] == pair[1]]
    if same:
        raise ValueError(f"plots: a pair compares a run with itself: {same[0]}")
