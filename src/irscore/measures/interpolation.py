"""Interpolated precision at the 11 recall levels, under each rule of how many relevant
documents a recall level asks for.
"""

from __future__ import annotations

import numpy as np

from irscore.measures.ranking import Context, Ranking, max_to_segment_end, per_ranking

RECALL_LEVELS = tuple(j / 10 for j in range(11))


def interpolation_counts(level_tenths: int, num_rel: np.ndarray, rule: str) -> np.ndarray:
    """How many relevant documents recall level j/10 asks for, under each rule.

    trec_eval9: (long)(r * R + 0.9) in double precision (so 0.7 * 3 gives 2);
    trec_eval10: lround(r * R); textbook: the smallest count whose recall is >= r,
    ceil(j * R / 10) in exact integer arithmetic.
    """
    num_rel = np.asarray(num_rel, dtype=np.int64)
    if rule == "textbook":
        return (level_tenths * num_rel + 9) // 10
    product = RECALL_LEVELS[level_tenths] * num_rel.astype(np.float64)
    if rule == "trec_eval9":
        return np.trunc(product + 0.9).astype(np.int64)
    floor = np.floor(product)
    return np.where(product - floor >= 0.5, floor + 1, floor).astype(np.int64)


@per_ranking
def interpolated_precision(r: Ranking, rule: str) -> tuple[np.ndarray, ...]:
    """Interpolated precision at the 11 recall levels, one array over topics per level.

    The value is the maximum precision at any rank at or below the rank of the
    c-th relevant retrieved document (c = 0: over the whole ranking), 0 when
    fewer than c relevant documents were retrieved. Like trec_eval, a topic
    with nothing retrieved (possible under -J) gets NaN where c = 0.
    """
    rel_rows = r.rel_rows
    # Precision falls between relevant ranks, so the maximum at or below a
    # relevant rank is reached at a relevant rank: only those rows matter.
    precision = r.cumrel[rel_rows] / r.rank[rel_rows]
    topic = r.topic_of_row[rel_rows]
    best_below = max_to_segment_end(precision, topic)
    num_rel_ret = np.bincount(topic, minlength=len(r.topics))
    rel_before = np.concatenate(([0], np.cumsum(num_rel_ret)))[:-1]
    # trec_eval starts from num_rel_ret / num_ret: 0/0 is NaN for an empty ranking (-J)
    whole = np.where(r.lengths > 0, 0.0, np.nan)
    found = num_rel_ret > 0
    whole[found] = best_below[rel_before[found]]
    levels = []
    for j in range(len(RECALL_LEVELS)):
        count = interpolation_counts(j, r.num_rel, rule)
        value = np.where(count == 0, whole, 0.0)
        reached = (count > 0) & (count <= num_rel_ret)
        value[reached] = best_below[rel_before[reached] + count[reached] - 1]
        levels.append(value)
    return tuple(levels)


def iprec_at_recall(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    levels = interpolated_precision(r, ctx.interpolation)
    return {
        f"iprec_at_recall_{level:.2f}": values
        for level, values in zip(RECALL_LEVELS, levels, strict=True)
    }


def eleven_point_average(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """The 11 interpolated precisions added one level at a time, then divided, as
    m_11pt_avg.c does (np.mean would sum one topic's 11 values pairwise)."""
    levels = interpolated_precision(r, ctx.interpolation)
    total = np.zeros(len(levels[0]))
    for values in levels:
        total += values
    return {"11pt_avg": total / len(levels)}
