"""Accuracy as ir_measures' accuracy provider computes it (ir_measures/providers/
accuracy_provider.py): the chance that a relevant document is ranked above a
non-relevant one, over the top k retrieved (all of them without k).

Of the top k, each relevant document (grade at least the relevance level) has the
non-relevant documents above it (unjudged ones count as non-relevant): the value is 1
minus their mean over the relevant documents, divided by every non-relevant one of the
top k. A topic without a relevant document in its top k has no value (NaN), and the mean
is over the topics that have one (`Family.aggregate == "mean_defined"`).
"""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import Context, Ranking


def cutoff_of(text: str | None) -> int | None:
    """k of `-m accuracy.k=10`; None (the whole ranking) without one."""
    return None if text is None else int(float(text.partition("=")[2]))


def accuracy(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """Accuracy of each topic (see the module docstring); 1 when no non-relevant document
    is in the top k (ir_measures divides 0 by 0 there and raises ZeroDivisionError)."""
    k = cutoff_of(text)
    rows = r.rel_rows
    depth = r.lengths if k is None else np.minimum(r.lengths, k)
    topic = r.topic_of_row[rows]
    inside = r.rank[rows] <= depth[topic]
    rows, topic = rows[inside], topic[inside]
    relevant = np.bincount(topic, minlength=len(r.topics))
    # the relevant rows come in rank order: the j-th of its topic has rank - j non-relevant above
    first = np.concatenate(([0], np.cumsum(relevant)))[topic]
    order = np.arange(len(rows)) - first + 1
    above = np.bincount(topic, weights=r.rank[rows] - order, minlength=len(r.topics))
    nonrelevant = depth - relevant
    values = np.full(len(r.topics), np.nan)
    has = relevant > 0
    share = np.divide(
        above, nonrelevant * relevant, out=np.zeros(len(r.topics)), where=has & (nonrelevant > 0)
    )
    values[has] = 1.0 - share[has]
    return {parameter_name("accuracy", text): values}
