"""Tie-aware `expected` measures: the mean over every order of each group of tied scores.

Closed forms after McSherry & Najork (ECIR 2008), never sampling. A tied group
of m documents with r relevant occupies ranks s+1 .. s+m in every order; under
a uniformly random order each of its positions holds a relevant document with
probability r/m and has the group's mean gain in expectation, so measures that
are sums over positions (P@k, recall@k, R-prec, DCG/nDCG, judged@k) take the
expected relevance per position. AP, reciprocal rank and success@k are not
linear, and have their own closed forms below.

The registry names each family's form here; a family without one (gm_map,
bpref, iprec_at_recall, 11pt_avg, ERR, trec_eval's set-based and other extra
measures) is left out of an `expected` evaluation with a note, never approximated.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from irscore.engine.measures.dcg import gains_of, ideal_dcg, ideal_terms
from irscore.engine.measures.ranking import Context, Ranking, segment_cumsum


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


class Groups:
    """Per-row facts about the tied group each row belongs to (the full, uncut ranking)."""

    def __init__(self, r: Ranking):
        group = r.tie_group
        self.size = np.bincount(group)[group]
        first_row = np.concatenate(([0], np.flatnonzero(np.diff(group)) + 1))
        self.position = np.arange(len(group)) - first_row[group] + 1
        self.start = r.rank - self.position  # ranks before the group: s
        rel = r.rel.astype(np.float64)
        self.relevant = np.bincount(group, weights=rel)[group]
        self.rel_fraction = self.relevant / self.size
        topic = r.topic_of_row
        cumrel = np.cumsum(rel)
        group_total_before = np.concatenate(([0.0], cumrel))[first_row][group]
        topic_total_before = np.concatenate(([0.0], cumrel))[r.starts[:-1]][topic]
        self.rel_before = group_total_before - topic_total_before
        self.group = group
        self.first_row = first_row

    def mean(self, values: np.ndarray) -> np.ndarray:
        """The mean of `values` over each row's group."""
        return np.bincount(self.group, weights=values)[self.group] / self.size


class Tied:
    """A whole sorted ranking (before any -M cut) with its tied groups, and the pieces the
    expected forms share; `depth` keeps the first N positions, as trec_eval's -M does."""

    def __init__(self, r: Ranking, depth: int | None):
        self.r = r
        self.depth = depth

    @cached_property
    def g(self) -> Groups:
        return Groups(self.r)

    @cached_property
    def kept(self) -> np.ndarray:
        rank = self.r.rank
        return np.ones(len(rank), dtype=bool) if self.depth is None else rank <= self.depth

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.bincount(self.r.topic_of_row[self.kept], minlength=len(self.r.topics))

    def running(self, values: np.ndarray) -> np.ndarray:
        """Within-topic running sum over kept rows (kept rows are a prefix of each topic),
        added topic by topic, so a topic's values do not depend on the topics before it."""
        return segment_cumsum(np.where(self.kept, values, 0.0), self.r.starts)

    def at(self, cumulative: np.ndarray, k) -> np.ndarray:
        """Each topic's running value at rank min(k, kept length); 0 at rank 0."""
        r = self.r
        reach = np.minimum(np.asarray(k, dtype=np.int64), self.lengths)
        out = np.zeros(len(r.topics))
        has = reach > 0
        out[has] = cumulative[(r.starts[:-1] + reach - 1)[has]]
        return out

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        """Sum of `values` over each topic's kept rows."""
        topic = self.r.topic_of_row[self.kept]
        return np.bincount(topic, weights=values[self.kept], minlength=len(self.r.topics))

    @cached_property
    def expected_rel(self) -> np.ndarray:
        return self.running(self.g.rel_fraction)

    @cached_property
    def ap_terms(self) -> np.ndarray:
        return _ap_terms(self.g, self.r.rank)

    def discounted(self, gain: str) -> np.ndarray:
        """Running expected DCG: each position has its group's mean gain."""
        r = self.r
        row_gain = np.where(r.judged, gains_of(r.grade, gain), 0.0)
        return self.running(self.g.mean(row_gain) / np.log2(r.rank + 1.0))


def num_q(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_q": np.ones(len(t.r.topics))}


def num_ret(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_ret": t.lengths.astype(np.float64)}


def num_rel(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_rel": t.r.num_rel.astype(np.float64)}


def num_rel_ret(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"num_rel_ret": t.at(t.expected_rel, t.lengths)}


def map_(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"map": _divide(t.per_topic(t.ap_terms), t.r.num_rel)}


def rprec(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"Rprec": _divide(t.at(t.expected_rel, t.r.num_rel), t.r.num_rel)}


def recip_rank(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"recip_rank": _reciprocal_rank(t.r, t.g, t.depth)}


def precision_at(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"P_{k}": t.at(t.expected_rel, k) / k for k in cutoffs}


def recall_at(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"recall_{k}": _divide(t.at(t.expected_rel, k), t.r.num_rel) for k in cutoffs}


def _prefix(gain: str) -> str:
    return "ndcg_exp" if gain == "exponential" else "ndcg"


def _ndcg(t: Tied, gain: str) -> dict[str, np.ndarray]:
    return {_prefix(gain): _divide(t.at(t.discounted(gain), t.lengths), ideal_dcg(t.r, gain))}


def _ndcg_cut(t: Tied, gain: str, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    discounted = t.discounted(gain)
    return {
        f"{_prefix(gain)}_cut_{k}": _divide(t.at(discounted, k), _ideal_at(t.r, gain, k))
        for k in cutoffs
    }


def ndcg(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return _ndcg(t, ctx.gain)


def ndcg_exp(t: Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return _ndcg(t, "exponential")


def ndcg_cut(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return _ndcg_cut(t, ctx.gain, cutoffs)


def ndcg_exp_cut(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return _ndcg_cut(t, "exponential", cutoffs)


def map_cut(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    ap_running = t.running(t.ap_terms)
    return {f"map_cut_{k}": _divide(t.at(ap_running, k), t.r.num_rel) for k in cutoffs}


def success(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"success_{k}": _success(t.r, t.g, np.minimum(k, t.lengths)) for k in cutoffs}


def judged(t: Tied, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    running = t.running(t.g.mean(t.r.judged.astype(np.float64)))
    return {f"judged_{k}": t.at(running, k) / k for k in cutoffs}


def _ap_terms(g: Groups, rank: np.ndarray) -> np.ndarray:
    """E[rel_i * relevant-at-or-above_i] / i for each position i (McSherry & Najork).

    At position j of a group of m with r relevant and R_before relevant above:
    (r/m) * (R_before + 1 + (j - 1)(r - 1)/(m - 1)) / i.
    """
    others = _divide((g.position - 1) * (g.relevant - 1), g.size - 1)
    return g.rel_fraction * (g.rel_before + 1.0 + others) / rank


def _first_relevant_group(r: Ranking, g: Groups) -> tuple[np.ndarray, np.ndarray]:
    """Per topic: whether a relevant document was retrieved, and the first row of its group."""
    rel_rows = np.flatnonzero(r.rel)
    topics, first = np.unique(r.topic_of_row[rel_rows], return_index=True)
    found = np.zeros(len(r.topics), dtype=bool)
    found[topics] = True
    row = np.zeros(len(r.topics), dtype=np.int64)
    row[topics] = g.first_row[g.group[rel_rows[first]]]
    return found, row


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k) for whole numbers 0 <= k <= n, from a table of log i! (math.lgamma):
    n is at most a tie group's size, and scipy.special takes a third of a second to import."""
    n, k = np.asarray(n, dtype=np.int64), np.asarray(k, dtype=np.int64)
    log_factorial = np.array([math.lgamma(i + 1.0) for i in range(int(n.max(initial=0)) + 1)])
    return log_factorial[n] - log_factorial[k] - log_factorial[n - k]


def _reciprocal_rank(r: Ranking, g: Groups, depth: int | None) -> np.ndarray:
    """E[1/rank of the first relevant]: within the first group holding one (m docs, r relevant),
    the first relevant is at position j with probability C(m - j, r - 1) / C(m, r)."""
    found, row = _first_relevant_group(r, g)
    topics = np.flatnonzero(found)
    m = g.size[row[topics]].astype(np.int64)
    rel = g.relevant[row[topics]].astype(np.int64)
    s = g.start[row[topics]]
    spans = m - rel + 1
    owner = np.repeat(np.arange(len(topics)), spans)
    j = np.arange(spans.sum()) - np.repeat(np.cumsum(spans) - spans, spans) + 1
    mm, rr = m[owner], rel[owner]
    probability = np.exp(_log_choose(mm - j, rr - 1) - _log_choose(mm, rr))
    position = s[owner] + j
    if depth is not None:
        probability = np.where(position <= depth, probability, 0.0)
    out = np.zeros(len(r.topics))
    out[topics] = np.bincount(owner, weights=probability / position, minlength=len(topics))
    return out


def _success(r: Ranking, g: Groups, k: np.ndarray) -> np.ndarray:
    """P(a relevant document in the top k): 1 - C(m - r, n) / C(m, n) when the first group
    holding a relevant document has n of its m positions inside the top k."""
    found, row = _first_relevant_group(r, g)
    out = np.zeros(len(r.topics))
    topics = np.flatnonzero(found)
    m = g.size[row[topics]]
    rel = g.relevant[row[topics]]
    inside = np.clip(k[topics] - g.start[row[topics]], 0, m)
    possible = m - rel >= inside  # else some relevant document must fall inside
    safe = np.where(possible, inside, 0)
    none = np.where(possible, np.exp(_log_choose(m - rel, safe) - _log_choose(m, safe)), 0.0)
    out[topics] = np.where(inside > 0, 1.0 - none, 0.0)
    return out


def _ideal_at(r: Ranking, gain: str, k: int) -> np.ndarray:
    """The ideal DCG over the first k ideal ranks."""
    topic, rank, values = ideal_terms(r, gain)
    keep = rank <= k
    return np.bincount(topic[keep], weights=values[keep], minlength=len(r.topics))
