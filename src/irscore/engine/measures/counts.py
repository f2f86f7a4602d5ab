"""Counts per topic that are not precision: judged documents retrieved."""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.ranking import (
    Context,
    Ranking,
    at_cutoff,
    per_ranking,
    per_topic_sum,
    topic_cumsum,
)


@per_ranking
def nonrel_judged_retrieved(r: Ranking) -> np.ndarray:
    """Judged non-relevant documents retrieved, per topic."""
    return per_topic_sum(r, (r.judged & ~r.rel).astype(np.float64))


@per_ranking
def judged_cumulative(r: Ranking) -> np.ndarray:
    """Judged documents at or above each row's rank, within its topic."""
    return topic_cumsum(r, r.judged.astype(np.float64))


def num_q(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_q": np.ones(len(r.topics))}


def num_ret(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_ret": r.lengths.astype(np.float64)}


def num_rel(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_rel": r.num_rel.astype(np.float64)}


def num_rel_ret(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_rel_ret": r.num_rel_ret}


def num_nonrel_judged_ret(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_nonrel_judged_ret": nonrel_judged_retrieved(r)}


def unjudged(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """trec_eval 10's unj@k: documents without a judgment (no qrels line, or a negative
    grade) in the top k, over k; ranks beyond the ranking count as judged."""
    running = judged_cumulative(r)
    return {f"unj_{k}": (np.minimum(k, r.lengths) - at_cutoff(r, running, k)) / k for k in cutoffs}


def judged(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """judged@k: the fraction of the top k that is judged (k, not the ranking's length)."""
    running = judged_cumulative(r)
    return {f"judged_{k}": at_cutoff(r, running, k) / k for k in cutoffs}
