"""trec_eval's `all` value of each measure from its per-topic values (meas_avg.c and the
measures' own averages): the values added one at a time in trec_eval's topic order, so
the means agree to the last bit, and addable chunk by chunk (`added`, `finished`) so a
run scored a block of topics at a time gives the same bits as all at once.
"""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.registry import MIN_GEO_MEAN, family_of


def aggregate(
    name: str, values: np.ndarray, missing: int = 0, num_rel_all_qrels: float | None = None
) -> float:
    """trec_eval's `all` value of measure `name`, to the last bit, from the per-topic values
    of the evaluated topics in trec_eval's topic order (qid as byte strings).

    Means are trec_eval's arithmetic: the values added one at a time in that order
    (float64 `+=`, not numpy's pairwise sum), then divided by the number of topics.
    `missing` topics (-c: judged, not retrieved) score 0 and count in the divisor;
    for a geometric mean trec_eval adds their log(0.00001) at the end, as one
    product (m_gm_map.c, meas_avg.c). `num_rel_all_qrels` is -c's `all` num_rel: the
    grade > 0 judgments of every qrels topic, whatever the relevance level.
    """
    return finished(name, added(name, None, values), missing, num_rel_all_qrels)


Partial = tuple[int, float | None]  # topics added so far, and their running sum (or None)


def added(name: str, partial: Partial | None, values: np.ndarray) -> Partial:
    """`partial` (of the topics before, or None) with the next topics' values added in
    order: what `aggregate` needs of them, so a run's topics can be added chunk by chunk
    and give the same bits as all at once."""
    count, total = partial or (0, None)
    if family_of(name).aggregate == "geometric":
        values = np.log(np.maximum(values, MIN_GEO_MEAN))
    if family_of(name).aggregate == "mean_defined":  # the topics with a value only
        values = values[~np.isnan(values)]
    if len(values):
        head = values if total is None else np.concatenate(([total], values))
        total = float(np.cumsum(head, dtype=np.float64)[-1])  # left to right, as `+=`
    return count + len(values), total


def finished(
    name: str, partial: Partial | None, missing: int = 0, num_rel_all_qrels: float | None = None
) -> float:
    """`aggregate`'s value from the `added` topics (`missing` and `num_rel_all_qrels` as
    there)."""
    count, total = partial or (0, None)
    how = family_of(name).aggregate
    n = count + (missing if how != "mean_defined" else 0)
    total = 0.0 if total is None else total
    if how == "count":
        return float(n)
    if how == "relevant" and num_rel_all_qrels is not None:
        return num_rel_all_qrels
    if how in ("sum", "relevant"):
        return total
    if n == 0:  # no topic: 0, as trec_eval; no topic with a value: none
        return float("nan") if how == "mean_defined" else 0.0
    if how == "geometric":
        return float(np.exp((total + missing * np.log(MIN_GEO_MEAN)) / n))
    return total / n
