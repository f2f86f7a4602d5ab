"""Interpolated precision at the 11 recall levels, under each rule of how many relevant
documents a recall level asks for.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import Context, Ranking, max_to_segment_end, per_ranking

RECALL_LEVELS = tuple(j / 10 for j in range(11))


def interpolation_counts(level: float, num_rel: np.ndarray, rule: str) -> np.ndarray:
    """How many relevant documents recall level `level` asks for, under each rule.

    trec_eval9: (long)(r * R + 0.9) in double precision (so 0.7 * 3 gives 2);
    trec_eval10: lround(r * R); textbook: the smallest count whose recall is >= r,
    ceil(r * R) in exact arithmetic, r read as the decimal that prints it (0.1 is 1/10).
    """
    num_rel = np.asarray(num_rel, dtype=np.int64)
    if rule == "textbook":
        exact = Fraction(repr(float(level)))
        return -((-exact.numerator * num_rel) // exact.denominator)
    product = float(level) * num_rel.astype(np.float64)
    if rule == "trec_eval9":
        return np.trunc(product + 0.9).astype(np.int64)
    floor = np.floor(product)
    return np.where(product - floor >= 0.5, floor + 1, floor).astype(np.int64)


@per_ranking
def interpolated_precision(
    r: Ranking, rule: str, levels: tuple[float, ...] = RECALL_LEVELS
) -> tuple[np.ndarray, ...]:
    """Interpolated precision at each recall level, in the order given, one array over
    topics per level, as m_iprec_at_recall.c and m_11pt_avg.c find it.

    The value is the maximum precision at any rank at or below the rank of the
    c-th relevant retrieved document, 0 when fewer than c relevant documents were
    retrieved (c: `interpolation_counts`). trec_eval walks the levels from the last
    to the first while it walks up the ranking: a level whose c is 0 or below, or
    above the c of the level after it (the levels are not sorted: 11pt_avg's are
    used as given), stops the walk, and it and every level before it take the
    maximum over the whole ranking. Like trec_eval, a topic with nothing retrieved
    (possible under -J) gets NaN there.
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
    values: list[np.ndarray] = [whole] * len(levels)
    walking = np.zeros(len(r.topics), dtype=bool)  # the walk has started and not stopped
    started = np.zeros(len(r.topics), dtype=bool)
    reached = num_rel_ret.copy()  # the count the walk has come down to
    for j in range(len(levels) - 1, -1, -1):
        count = interpolation_counts(levels[j], r.num_rel, rule)
        skipped = ~started & (count > num_rel_ret)  # never reached: 0
        starting = ~started & ~skipped
        started |= starting
        walking |= starting
        matched = walking & (count > 0) & (count <= reached)
        walking &= matched
        value = np.where(skipped, 0.0, whole)
        value[matched] = best_below[rel_before[matched] + count[matched] - 1]
        reached = np.where(matched, count, reached)
        values[j] = value
    return tuple(values)


def level_name(level: float) -> str:
    """trec_eval's name for a recall level: `%s_%3.2f` into len(name) + 10 bytes."""
    return f"iprec_at_recall_{level:3.2f}"[: len("iprec_at_recall") + 9]


def iprec_at_recall(r: Ranking, ctx: Context, levels: tuple[float, ...]) -> dict[str, np.ndarray]:
    values = interpolated_precision(r, ctx.interpolation, levels)
    return {level_name(level): v for level, v in zip(levels, values, strict=True)}


def eleven_point_average(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """The interpolated precisions at the levels (the 11 tenths, or those of
    `-m 11pt_avg.LEVELS`, unsorted) added from the last level to the first, as
    m_11pt_avg.c adds them, then divided by their number; named after the text."""
    levels = RECALL_LEVELS if text is None else tuple(float(v) for v in text.split(","))
    values = interpolated_precision(r, ctx.interpolation, levels)
    total = np.zeros(len(r.topics))
    for level_values in reversed(values):
        total += level_values
    return {parameter_name("11pt_avg", text): total / len(levels)}
