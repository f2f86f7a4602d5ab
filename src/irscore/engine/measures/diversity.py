"""The diversity measures of ndeval (NIST's evaluator for the TREC Web track's diversity
task, ndeval.c 4.5): alpha-nDCG@k, ERR-IA@k, NRBP, P-IA@k and subtopic recall@k.

A topic's ranking is read as a matrix `covers[rank, subtopic]`: True where the document
at that rank is relevant (grade >= the relevance level) to that subtopic, over the
topic's N subtopics that have a relevant document (ndeval ignores the others). The
novelty gain at a rank adds, over the subtopics its document covers, (1 - alpha) to the
power of the number of documents above it that covered the subtopic too (Clarke et
al., SIGIR 2008). Every measure is 0 for a topic with N = 0, and for an empty ranking.
The arithmetic follows ndeval's order of operations (running products and sums).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from irscore.engine.measures.ranking import Context

ALPHA = 0.5  # ndeval's default redundancy intolerance (the cut-off families' alpha)
BETA = 0.5  # ndeval's default patience (NRBP's)
CUTOFFS = (5, 10, 20)  # the cut-offs ndeval prints


@dataclass(frozen=True)
class Coverage:
    """What the diversity measures read, per evaluated topic: the run's `covers` matrix
    (ranked documents x the topic's subtopics), and `judged`, the same matrix over every
    document the qrels judge for the topic, in byte order of docno (the ideal ranking is
    built from it); `cache` holds the ideal rankings already built."""

    topics: np.ndarray
    covers: list[np.ndarray]
    judged: list[np.ndarray]
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def ideal_gains(self, alpha: float, depth: int) -> list[np.ndarray]:
        """Each topic's novelty gains at ranks 1..depth of ndeval's greedy ideal ranking."""
        key = (alpha, depth)
        if key not in self.cache:
            self.cache[key] = [greedy_ideal_gains(j, alpha, depth) for j in self.judged]
        return self.cache[key]


def _powers(base: float, n: int) -> np.ndarray:
    """base^0 .. base^(n-1), one multiplication a step, as ndeval's running products."""
    return np.cumprod(np.r_[1.0, np.full(max(n - 1, 0), base)])[:n]


def novelty_gains(covers: np.ndarray, alpha: float) -> np.ndarray:
    """The gain at each rank: over the subtopics covered, (1 - alpha)^(coverings above),
    added subtopic by subtopic."""
    if covers.size == 0:
        return np.zeros(len(covers))
    above = np.cumsum(covers, axis=0) - covers
    weight = _powers(1.0 - alpha, len(covers) + 1)[above]
    return np.cumsum(np.where(covers, weight, 0.0), axis=1)[:, -1]


def greedy_ideal_gains(judged: np.ndarray, alpha: float, depth: int) -> np.ndarray:
    """The gains of ndeval's ideal ranking (its idealResult) at ranks 1..depth: at each
    rank the document of highest gain given the ranks above, ties to the greatest docno
    (the rows of `judged` are in docno order); 0 past the judged documents."""
    n, subtopics = judged.shape
    gains = np.zeros(depth)
    weight = np.ones(subtopics)
    left = np.ones(n, dtype=bool)
    if not subtopics:
        return gains
    for rank in range(min(n, depth)):
        scores = np.cumsum(np.where(judged, weight, 0.0), axis=1)[:, -1]
        scores[~left] = -1.0
        best = int(np.flatnonzero(scores == scores.max())[-1])
        gains[rank] = scores[best]
        left[best] = False
        weight = np.where(judged[best], weight * (1.0 - alpha), weight)
    return gains


def _at(values: np.ndarray, k: int) -> float:
    """The running total `values` at rank k (the last one when the ranking is shorter)."""
    return float(values[min(k, len(values)) - 1]) if len(values) else 0.0


def _discounts(n: int) -> np.ndarray:
    """ndeval's discount of ranks 1..n: log(2) / log(rank + 1)."""
    return np.log(2.0) / np.log(np.arange(n) + 2.0)


def alpha_ndcg(cov: Coverage, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """alpha-nDCG@k (alpha 0.5): the run's alpha-DCG@k over the greedy ideal's, 0 when the
    run's is 0 (ndeval's alpha-nDCG, collection-dependent normalisation)."""
    depth = max(cutoffs)
    ideals = cov.ideal_gains(ALPHA, depth)
    out = {f"alpha_ndcg_{k}": np.zeros(len(cov.topics)) for k in cutoffs}
    for t, (covers, ideal) in enumerate(zip(cov.covers, ideals, strict=True)):
        if not covers.shape[1]:
            continue
        run = np.cumsum(novelty_gains(covers[:depth], ALPHA) * _discounts(min(len(covers), depth)))
        best = np.cumsum(ideal * _discounts(depth))
        for k in cutoffs:
            value = _at(run, k)
            out[f"alpha_ndcg_{k}"][t] = value / best[k - 1] if value else 0.0
    return out


def err_ia(cov: Coverage, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """ERR-IA@k (alpha 0.5): the sum over ranks r <= k of gain / r, over the same sum for a
    ranking whose every document covers all N subtopics (ndeval's collection-independent
    normalisation; ndeval leaves k = 1 unnormalised, irscore does not)."""
    depth = max(cutoffs)
    out = {f"err_ia_{k}": np.zeros(len(cov.topics)) for k in cutoffs}
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    for t, covers in enumerate(cov.covers):
        n = covers.shape[1]
        if not n:
            continue
        run = np.cumsum(novelty_gains(covers[:depth], ALPHA) / ranks[: min(len(covers), depth)])
        ideal = np.cumsum(n * _powers(1.0 - ALPHA, depth) / ranks)
        for k in cutoffs:
            out[f"err_ia_{k}"][t] = _at(run, k) / ideal[k - 1]
    return out


def nrbp_params(text: str | None) -> tuple[float, float]:
    """(alpha, beta) of `-m nrbp.alpha=0.5,beta=0.8`; ndeval's 0.5 and 0.5 by default."""
    given = dict(item.split("=") for item in text.split(",")) if text else {}
    return float(given.get("alpha", ALPHA)), float(given.get("beta", BETA))


def nrbp(cov: Coverage, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """NRBP (Clarke et al., ICTIR 2009): (1 - (1 - alpha) beta) / N times the sum over the
    whole ranking of gain * beta^(rank - 1) (ndeval's, collection-independent)."""
    alpha, beta = nrbp_params(text)
    values = np.zeros(len(cov.topics))
    for t, covers in enumerate(cov.covers):
        n = covers.shape[1]
        if n and len(covers):
            total = np.cumsum(novelty_gains(covers, alpha) * _powers(beta, len(covers)))[-1]
            values[t] = total * ((1.0 - (1.0 - alpha) * beta) / n)
    return {"nrbp" if text is None else f"nrbp_{text}": values}


def p_ia(cov: Coverage, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """P-IA@k (Agrawal et al., WSDM 2009, as ndeval has it): the (document, subtopic)
    coverings in the top k over k * N; k divides even when fewer were retrieved."""
    out = {f"p_ia_{k}": np.zeros(len(cov.topics)) for k in cutoffs}
    for t, covers in enumerate(cov.covers):
        n = covers.shape[1]
        if n:
            for k in cutoffs:
                out[f"p_ia_{k}"][t] = float(np.count_nonzero(covers[:k])) / (k * n)
    return out


def strec(cov: Coverage, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Subtopic recall@k (ndeval's strec): the subtopics covered in the top k over N."""
    out = {f"strec_{k}": np.zeros(len(cov.topics)) for k in cutoffs}
    for t, covers in enumerate(cov.covers):
        n = covers.shape[1]
        if n:
            for k in cutoffs:
                out[f"strec_{k}"][t] = float(np.count_nonzero(covers[:k].any(axis=0))) / n
    return out


def nerr_ia(cov: Coverage, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """nERR-IA@k (alpha 0.5): the run's sum of novelty gain / rank to k over the same sum
    for ndeval's greedy ideal ranking (collection-dependent normalisation)."""
    depth = max(cutoffs)
    ideals = cov.ideal_gains(ALPHA, depth)
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    out = {f"nerr_ia_{k}": np.zeros(len(cov.topics)) for k in cutoffs}
    for t, (covers, ideal) in enumerate(zip(cov.covers, ideals, strict=True)):
        if not covers.shape[1]:
            continue
        run = np.cumsum(novelty_gains(covers[:depth], ALPHA) / ranks[: min(len(covers), depth)])
        best = np.cumsum(ideal / ranks)
        for k in cutoffs:
            value = _at(run, k)
            out[f"nerr_ia_{k}"][t] = value / best[k - 1] if value else 0.0
    return out


def nnrbp(cov: Coverage, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """nNRBP: NRBP over the NRBP of ndeval's greedy ideal ranking (every judged document)."""
    alpha, beta = nrbp_params(text)
    values = np.zeros(len(cov.topics))
    depth = max((len(j) for j in cov.judged), default=0)
    ideals = cov.ideal_gains(alpha, depth) if depth else [np.zeros(0)] * len(cov.topics)
    for t, (covers, ideal) in enumerate(zip(cov.covers, ideals, strict=True)):
        if covers.shape[1] and len(covers) and len(ideal):
            run = np.cumsum(novelty_gains(covers, alpha) * _powers(beta, len(covers)))[-1]
            best = np.cumsum(ideal * _powers(beta, len(ideal)))[-1]
            values[t] = run / best if best else 0.0
    return {"nnrbp" if text is None else f"nnrbp_{text}": values}


def ap_ia(cov: Coverage, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """MAP-IA (ndeval's): the mean over the N subtopics of the run's average precision
    for each, a document relevant when it covers the subtopic."""
    values = np.zeros(len(cov.topics))
    for t, (covers, judged) in enumerate(zip(cov.covers, cov.judged, strict=True)):
        if covers.shape[1] and len(covers):
            ranks = np.arange(1, len(covers) + 1, dtype=np.float64)[:, None]
            precision = np.cumsum(covers, axis=0) / ranks
            per_subtopic = np.where(covers, precision, 0.0).sum(axis=0) / judged.sum(axis=0)
            values[t] = per_subtopic.mean()
    return {"ap_ia": values}
