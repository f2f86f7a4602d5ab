"""The average-precision family: AP and its cut-offs, bpref and inferred AP."""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.ranking import (
    Context,
    Ranking,
    Running,
    at_cutoff,
    count_above,
    per_ranking,
    per_topic_sum,
    safe_divide,
    topic_sum,
)

INFAP_EPSILON = 0.00001


@per_ranking
def average_precision(r: Ranking, over_retrieved: bool = False) -> np.ndarray:
    """AP: precision at each relevant retrieved rank, summed, over the number relevant.

    `over_retrieved` divides by the relevant documents retrieved instead (a known mistake).
    """
    total = per_topic_sum(r, r.precision_at_rel, r.rel_rows)
    if over_retrieved:
        return safe_divide(total, r.num_rel_ret)
    return safe_divide(total, r.num_rel)


@per_ranking
def ap_running(r: Ranking) -> Running:
    """AP's running sum of precision at the relevant rows (map_cut's numerators)."""
    return Running.of(r, r.precision_at_rel, r.rel)


@per_ranking
def bpref(r: Ranking) -> np.ndarray:
    """trec_eval's bpref: judged non-relevant above each relevant, capped at R."""
    rel = r.rel
    before = count_above(r, r.judged & ~rel, np.flatnonzero(rel)).astype(np.float64)
    topic = r.topic_of_row[rel]
    num_rel = r.num_rel[topic].astype(np.float64)
    cap = np.minimum(r.num_nonrel[topic], r.num_rel[topic]).astype(np.float64)
    penalty = safe_divide(np.minimum(before, num_rel), cap)
    contribution = np.where(before > 0, 1.0 - penalty, 1.0)
    total = np.bincount(topic, weights=contribution, minlength=len(r.topics))
    return safe_divide(total, r.num_rel)


@per_ranking
def inferred_ap(r: Ranking) -> np.ndarray:
    """trec_eval's infAP (m_infap.c) with ordinary qrels (Yilmaz & Aslam, CIKM 2006).

    At the relevant row of 0-based index j > 0, with rel, nonrel and unjudged
    counting the rows above it (unjudged: a negative grade, in the pool but
    not judged; documents without a qrels line count in j only):
    1/(j+1) + (j/(j+1)) * ((rel + nonrel + unjudged)/j) * ((rel + e)/(rel + nonrel + 2e)),
    e = 0.00001; 1 at j = 0. The sum is divided by the number relevant.
    """
    rows = r.rel_rows
    rel_above = r.cumrel[rows] - 1.0
    judged_above = count_above(r, r.judged, rows)
    nonrel_above = judged_above - rel_above
    unjudged_above = (count_above(r, r.pool, rows) - judged_above).astype(np.float64)
    j = (r.rank[rows] - 1).astype(np.float64)
    safe_j = np.where(j > 0, j, 1.0)
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
        (rel_above + nonrel_above + unjudged_above) / safe_j
    ) * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    total = topic_sum(r.topic_of_row[rows], term, len(r.topics))
    return np.where(r.num_rel > 0, safe_divide(total, r.num_rel), total)


def _ap(r: Ranking, ctx: Context) -> np.ndarray:
    return average_precision(r, ctx.mistake == "ap_over_retrieved")


def map_(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"map": _ap(r, ctx)}


def gm_map(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """AP per topic; the geometric mean is taken over topics (registry's `geometric`)."""
    return {"gm_map": _ap(r, ctx)}


def map_cut(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    running = ap_running(r)
    out = {}
    for k in cutoffs:
        over = at_cutoff(r, r.cumrel, k) if ctx.mistake == "ap_over_retrieved" else r.num_rel
        out[f"map_cut_{k}"] = safe_divide(running.at_cutoff(r, k), over)
    return out


def bpref_(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"bpref": bpref(r)}


def gm_bpref(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"gm_bpref": bpref(r)}


def infap(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"infAP": inferred_ap(r)}


def yaap(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """trec_eval 10's yaap (m_yaap.c, Robertson, ECIR 2012): log((1 + S) / (1 + R - S)),
    S the sum of the precisions at the relevant retrieved ranks (AP's numerator)."""
    total = per_topic_sum(r, r.precision_at_rel, r.rel_rows)
    with np.errstate(divide="ignore", invalid="ignore"):  # as C's log
        return {"yaap": np.log((1.0 + total) / (1.0 + r.num_rel.astype(np.float64) - total))}
