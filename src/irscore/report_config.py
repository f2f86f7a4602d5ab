"""Checks of config's `plots:` section that the schema cannot state, run before any job.

The Snakefile imports this module while it builds the DAG, so it imports
nothing heavy (no pandas, no matplotlib).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def check_plots(plots: Mapping[str, Any], runs: Sequence[str]) -> None:
    """Fail when `plots:` names a run that is not configured, or pairs a run with itself."""
    named = [plots["example"]["run"], *(run for pair in plots["pairs"] for run in pair)]
    unknown = sorted(set(named) - set(runs))
    if unknown:
        raise ValueError(f"plots: unknown run(s) {', '.join(unknown)}; runs: {', '.join(runs)}")
    same = [pair for pair in plots["pairs"] if pair[0] == pair[1]]
    if same:
        raise ValueError(f"plots: a pair compares a run with itself: {same[0]}")
