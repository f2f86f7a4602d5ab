"""Tie-aware `expected` measures: the mean over every order of each group of tied scores.

Closed forms after McSherry & Najork (ECIR 2008), never sampling. A tied group
of m documents with r relevant occupies ranks s+1 .. s+m in every order; under
a uniformly random order each of its positions holds a relevant document with
probability r/m and has the group's mean gain in expectation, so measures that
are sums over positions (P@k, recall@k, R-prec, DCG/nDCG, judged@k) take the
expected relevance per position. AP, reciprocal rank and success@k are not
linear, and have their own closed forms below.

Measures with no closed form here (gm_map, bpref, iprec_at_recall, 11pt_avg,
ERR and trec_eval's set-based and other extra measures) are left out of an
`expected` evaluation instead of being approximated: their rows are absent.
"""

from __future__ import annotations

import math

import numpy as np

from irscore.measures import MeasureSpec, Ranking, gains_of, ideal_dcg, ideal_terms

# The measure families `expected` computes; every other family is left out.
FAMILIES = frozenset(
    {
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "Rprec",
        "recip_rank",
        "P",
        "recall",
        "ndcg",
        "ndcg_cut",
        "ndcg_exp",
        "ndcg_exp_cut",
        "map_cut",
        "success",
        "judged",
    }
)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


class Groups:
    """Per-row facts about the tied group each row belongs to (the full, uncut ranking)."""

    def __init__(self, r: Ranking):
        if r.tie_group is None:
            raise ValueError("expected measures need the ranking's tie groups")
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


def compute(
    r: Ranking, spec: MeasureSpec, depth: int | None, gain: str = "linear"
) -> dict[str, np.ndarray]:
    """Expected value of every closed-form measure of `spec`, per topic, in trec_eval order.

    `r` is the whole sorted ranking (before any depth cut) with its tie
    groups; `depth` keeps the first N positions, as trec_eval's -M does.
    """
    fam = spec.families & FAMILIES
    g = Groups(r)
    n_topics = len(r.topics)
    topic = r.topic_of_row
    rank = r.rank
    kept = np.ones(len(rank), dtype=bool) if depth is None else rank <= depth
    lengths = np.bincount(topic[kept], minlength=n_topics)

    def running(values: np.ndarray) -> np.ndarray:
        """Within-topic running sum over kept rows (kept rows are a prefix of each topic)."""
        values = np.where(kept, values, 0.0)
        total = np.cumsum(values)
        before = np.concatenate(([0.0], total))[r.starts[:-1]]
        return total - before[topic]

    def at(cumulative: np.ndarray, k) -> np.ndarray:
        reach = np.minimum(np.asarray(k, dtype=np.int64), lengths)
        out = np.zeros(n_topics)
        has = reach > 0
        out[has] = cumulative[(r.starts[:-1] + reach - 1)[has]]
        return out

    def per_topic(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.bincount(topic[mask], weights=values[mask], minlength=n_topics)

    expected_rel = running(g.rel_fraction)
    out: dict[str, np.ndarray] = {}
    if "num_q" in fam:
        out["num_q"] = np.ones(n_topics)
    if "num_ret" in fam:
        out["num_ret"] = lengths.astype(np.float64)
    if "num_rel" in fam:
        out["num_rel"] = r.num_rel.astype(np.float64)
    if "num_rel_ret" in fam:
        out["num_rel_ret"] = at(expected_rel, lengths)
    ap_terms = _ap_terms(g, rank)
    if "map" in fam:
        out["map"] = _divide(per_topic(ap_terms, kept), r.num_rel)
    if "Rprec" in fam:
        out["Rprec"] = _divide(at(expected_rel, r.num_rel), r.num_rel)
    if "recip_rank" in fam:
        out["recip_rank"] = _reciprocal_rank(r, g, depth)
    for k in spec.P if "P" in fam else ():
        out[f"P_{k}"] = at(expected_rel, k) / k
    for k in spec.recall if "recall" in fam else ():
        out[f"recall_{k}"] = _divide(at(expected_rel, k), r.num_rel)
    for family, family_gain in (("ndcg", gain), ("ndcg_exp", "exponential")):
        prefix = "ndcg_exp" if family_gain == "exponential" else "ndcg"
        row_gain = np.where(r.judged, gains_of(r.grade, family_gain), 0.0)
        discounted = running(g.mean(row_gain) / np.log2(rank + 1.0))
        if family in fam:
            out[prefix] = _divide(at(discounted, lengths), ideal_dcg(r, family_gain))
        for k in getattr(spec, f"{family}_cut") if f"{family}_cut" in fam else ():
            out[f"{prefix}_cut_{k}"] = _divide(at(discounted, k), _ideal_at(r, family_gain, k))
    if "map_cut" in fam:
        ap_running = running(ap_terms)
        for k in spec.map_cut:
            out[f"map_cut_{k}"] = _divide(at(ap_running, k), r.num_rel)
    for k in spec.success if "success" in fam else ():
        out[f"success_{k}"] = _success(r, g, np.minimum(k, lengths))
    if "judged" in fam:
        judged = running(g.mean(r.judged.astype(np.float64)))
        for k in spec.judged:
            out[f"judged_{k}"] = at(judged, k) / k
    return out


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
