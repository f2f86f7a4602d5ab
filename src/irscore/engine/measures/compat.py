"""Compatibility (Clarke, Vtyurina and Smucker, TOIS 2021), as ir_measures' compat provider
computes it (ir_measures/providers/compat_provider.py, from github.com/claclark/Compatibility):
the rank-biased overlap of the run with an ideal ranking, divided by the ideal ranking's
own when `normalize`.

The ideal ranking holds the documents of grade > 0, by grade, then by the run's score
(0.0 for a document not retrieved). RBO to depth D = max(retrieved, ideal) is the sum
over d = 1..D of p^(d-1) |ideal[:d] & run[:d]| / d, over the sum of p^(d-1). A retrieved
document of the ideal ranking is in both prefixes from depth max(its rank, its ideal
position), so the overlap at d counts those maxima up to d.
"""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import Context, Ranking

PERSISTENCE = 0.95  # ir_measures' default p


def params_of(text: str | None) -> tuple[float, bool]:
    """(p, normalize) of `-m compat.p=0.9,normalize=0`; 0.95 and normalised by default."""
    given = dict(item.split("=") for item in text.split(",")) if text else {}
    return float(given.get("p", PERSISTENCE)), float(given.get("normalize", 1)) != 0


def _rbo(overlap: np.ndarray, p: float) -> float:
    """RBO from the overlap at depths 1..D, the weights p^(d-1) formed as the provider
    forms them (one multiplication a depth)."""
    depth = len(overlap)
    weight = np.cumprod(np.r_[1.0, np.full(depth - 1, p)])[:depth]
    return float(np.sum(weight * overlap / np.arange(1, depth + 1)) / np.sum(weight))


def ideal_positions(r: Ranking, topic: int, rows: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The position in the ideal ranking of each of the topic's relevant retrieved rows
    (`rows`, in rank order, `score` their scores): after every higher grade, then after
    the retrieved documents of its grade with a higher score, and after the documents of
    its grade not retrieved when its score is below 0 (theirs is 0.0)."""
    ideal = r.ideal_grade[r.ideal_starts[topic] : r.ideal_starts[topic + 1]]
    grade = r.grade[rows]
    out = np.empty(len(rows), dtype=np.int64)
    for i, (g, s) in enumerate(zip(grade, score, strict=True)):
        same = grade == g
        above = np.count_nonzero(ideal > g)
        ahead = np.count_nonzero(same[:i])  # same grade, ranked above: a higher or tied score
        not_retrieved = np.count_nonzero(ideal == g) - np.count_nonzero(same)
        out[i] = above + ahead + (not_retrieved if s < 0.0 else 0) + 1
    return out


def compat(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """Compat(p, normalize) of each topic (see the module docstring)."""
    p, normalize = params_of(text)
    whole = r.whole or r
    scores = whole.tie_score[np.flatnonzero(whole.pool)] if whole is not r else r.tie_score
    values = np.zeros(len(r.topics))
    for t in range(len(r.topics)):
        lo, hi = r.starts[t], r.starts[t + 1]
        rows = lo + np.flatnonzero(r.grade[lo:hi] > 0)
        size = int(r.ideal_starts[t + 1] - r.ideal_starts[t])
        depth = max(int(r.lengths[t]), size)
        if not size or not depth:
            continue
        position = ideal_positions(r, t, rows, scores[rows])
        meets = np.maximum(r.rank[rows], position)
        overlap = np.cumsum(np.bincount(meets, minlength=depth + 1)[1:])
        value = _rbo(overlap, p)
        if normalize:
            value /= _rbo(np.minimum(np.arange(1, depth + 1), size), p)
        values[t] = value
    return {parameter_name("compat", text): values}
