"""Corrections for multiple comparisons: the p-values of a table of paired tests (every
pair, measure and convention compared at once) adjusted together, by name
(`CORRECTIONS`: holm, bonferroni, bh, none)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def bonferroni(pvalues: Sequence[float]) -> np.ndarray:
    """Bonferroni-adjusted p-values: min(1, m * p) for m tests; controls the family-wise error."""
    p = _check_pvalues(pvalues)
    return np.minimum(1.0, p.size * p)


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm step-down adjusted p-values, in the input order; uniformly less strict than Bonferroni.

    Sorted ascending, the i-th smallest (i = 1..m) becomes max over j <= i of
    min(1, (m - j + 1) * p_(j)), which keeps the adjusted values monotone.
    """
    p = _check_pvalues(pvalues)
    order = np.argsort(p, kind="stable")
    factors = np.arange(p.size, 0, -1, dtype=np.float64)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(factors * p[order]))
    return adjusted


def benjamini_hochberg(pvalues: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (scipy's false_discovery_control); controls
    the false discovery rate rather than the family-wise error."""
    import scipy.stats  # here: only this correction needs it, and it takes a second to import

    p = _check_pvalues(pvalues)
    return scipy.stats.false_discovery_control(p, method="bh") if p.size else p


def unadjusted(pvalues: Sequence[float]) -> np.ndarray:
    """The p-values as they are (checked): the "none" correction."""
    return _check_pvalues(pvalues).copy()


CORRECTIONS = {
    "holm": holm,
    "bonferroni": bonferroni,
    "bh": benjamini_hochberg,
    "none": unadjusted,
}
CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}


def adjust(pvalues: Sequence[float], correction: str) -> np.ndarray:
    """p-values adjusted for multiple comparisons by a correction of `CORRECTIONS`."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; choose from {list(CORRECTIONS)}")
    return CORRECTIONS[correction](pvalues)


def _check_pvalues(pvalues: Sequence[float]) -> np.ndarray:
    """The p-values as a float array; ValueError unless 1-D with every value in [0, 1]."""
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p-values must be a 1-D sequence, got shape {p.shape}")
    if not ((p >= 0.0) & (p <= 1.0)).all():  # also rejects NaN
        raise ValueError("p-values must lie in [0, 1]")
    return p
