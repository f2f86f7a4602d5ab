"""trec_eval 9's measures of `-m official` and `-m all_trec` for one topic, in plain
Python, for inputs small enough that importing numpy would cost more than scoring
them (`irscore.engine.small.plain_evaluate`).

Each value is computed as trec_eval's C computes it (m_*.c at v9.0.8): the same
double operations in the same order, so the bits agree with trec_eval and with
the vectorised measures of `irscore.engine.measures`, which the tests compare
them with. A loop over every rank is kept only where a measure reads every
rank (G, Rndcg); the others read the relevant or judged ranks alone.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate, chain, compress, count, repeat
from operator import truediv

NONPOOL = -1  # a retrieved document the qrels do not judge (trec_eval's RELVALUE_NONPOOL)
UNJUDGED = -2  # judged with a negative grade: in the pool, unjudged (RELVALUE_UNJUDGED)
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
SUCCESS = (1, 5, 10)
RELSTRING_LENGTH = 10

_LOG2: list[float] = []  # math.log2(i + 2) for each 0-based rank i seen so far


def log2_of_rank(n: int) -> list[float]:
    """log2(i + 2) for ranks i below `n` (trec_eval's discount), computed once."""
    while len(_LOG2) < n:
        _LOG2.append(math.log2(len(_LOG2) + 2))
    return _LOG2


class Topic:
    """One topic's ranked relevance values (`rels`: a grade >= 0, NONPOOL or UNJUDGED,
    after -M) and its judgments per grade (`levels[g]`: grade g >= 0), as trec_eval's
    form_res_rels.c makes them, with what several measures share."""

    def __init__(self, rels: list[int], levels: list[int], rel_level: int, collection: int):
        self.rels, self.levels, self.level, self.collection = rels, levels, rel_level, collection
        self.num_ret = len(rels)
        self.num_rel = sum(levels[rel_level:])
        ranks = range(self.num_ret)  # the ranks below are 0-based, found in C (compress)
        self.relevant = list(compress(ranks, map(rel_level.__le__, rels)))
        self.num_rel_ret = len(self.relevant)
        self.num_nonpool = rels.count(NONPOOL)
        self.num_unjudged = rels.count(UNJUDGED)
        judged_at = list(compress(ranks, map(NONPOOL.__ne__, rels)))
        self.judged = list(zip(judged_at, map(rels.__getitem__, judged_at), strict=True))
        ap_terms = map(truediv, count(1), map((1).__add__, self.relevant))  # k / (rank + 1)
        self.ap_sums = [0.0, *accumulate(ap_terms)]  # sequential, as the C loop adds them
        # the ideal ranking's gains (each grade > 0 as often as judged, highest first)
        grades = range(len(levels) - 1, 0, -1)
        self.ideal = list(chain.from_iterable(repeat(g, levels[g]) for g in grades))
        log2 = log2_of_rank(max(self.num_ret, len(self.ideal)))
        self.ideal_dcg = list(accumulate(map(truediv, self.ideal, log2)))
        # the ranks with a gain (grade > 0): the relevant ones, unless -l sets a higher level
        gains = compress(ranks, map((0).__lt__, rels))
        self.gain_ranks = self.relevant if rel_level == 1 else list(gains)
        self.gain_values = list(map(rels.__getitem__, self.gain_ranks))
        discounts = map(log2.__getitem__, self.gain_ranks)
        self.dcg = list(accumulate(map(truediv, self.gain_values, discounts)))
        self.at_cutoffs = list(map(bisect_left, repeat(self.relevant), CUTOFFS))  # found(k)
        self._bpref: float | None = None
        self._iprec: list[float] | None = None

    def found(self, k: int) -> int:
        """The relevant documents among the first `k` ranks."""
        return bisect_left(self.relevant, k)

    def dcg_before(self, k: int) -> float:
        """The run's DCG over its first `k` ranks (trec_eval's gains: the grades)."""
        n = bisect_left(self.gain_ranks, k)
        return self.dcg[n - 1] if n else 0.0


def _ap(t: Topic) -> float:
    """m_map.c's value before the mean (0 when nothing relevant is retrieved)."""
    return t.ap_sums[-1] / t.num_rel if t.num_rel_ret else 0.0


def _bpref(t: Topic) -> float:
    """m_bpref.c: judged ranks only; each relevant one scores the share of the first R
    judged nonrelevant documents ranked below it (kept for gm_bpref)."""
    if t._bpref is not None:
        return t._bpref
    num_nonrel = sum(t.levels[: t.level])
    nonrel, value = 0, 0.0
    for _, r in t.judged:
        if r == UNJUDGED:
            continue
        if r < t.level:
            nonrel += 1
        elif nonrel > 0:
            value += 1.0 - min(nonrel, t.num_rel) / min(num_nonrel, t.num_rel)
        else:
            value += 1.0
    t._bpref = value / t.num_rel if t.num_rel else value
    return t._bpref


def _infap(t: Topic) -> float:
    """m_infap.c: the expected precision at each relevant rank from the judged sample."""
    nonrel = rel = unjudged = 0
    value = 0.0
    for j, r in t.judged:
        if r == UNJUDGED:
            unjudged += 1
            continue
        if r < t.level:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            value += 1.0
        else:
            fj = float(j)
            value += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON)
            )
    return value / t.num_rel if t.num_rel else value


def _iprec(t: Topic, points: tuple[float, ...]) -> list[float]:
    """m_iprec_at_recall.c: the highest precision at or after each recall point. The
    precision between two relevant ranks falls, so only relevant ranks can raise it."""
    cutoffs = [int(p * t.num_rel + 0.9) for p in points]
    values = [0.0] * len(points)
    cut = len(points) - 1
    while cut >= 0 and cutoffs[cut] > t.num_rel_ret:
        cut -= 1
    best = t.num_rel_ret / t.num_ret
    for k in range(t.num_rel_ret, 0, -1):
        precision = k / (t.relevant[k - 1] + 1)
        if best < precision:
            best = precision
        while cut >= 0 and k == cutoffs[cut]:
            values[cut] = best
            cut -= 1
    while cut >= 0:
        values[cut] = best
        cut -= 1
    return values


def _iprec_at_recall(t: Topic) -> list[float]:
    """`_iprec` at the 11 recall points, kept for 11pt_avg."""
    if t._iprec is None:
        t._iprec = _iprec(t, RECALL_POINTS)
    return t._iprec


def _rprec_mult(t: Topic) -> list[float]:
    """m_Rprec_mult.c: precision at each multiple of R documents (0 at a cutoff of 0)."""
    values = []
    for m in R_MULTIPLES:
        cutoff = int(m * t.num_rel + 0.9)
        values.append(t.found(min(cutoff, t.num_ret)) / cutoff if cutoff else 0.0)
    return values


def _ndcg_rel(t: Topic) -> float:
    """m_ndcg_rel.c: the nDCG at each relevant rank, averaged over the ideal's."""
    if not t.ideal:
        return 0.0
    total, last = 0.0, len(t.ideal) - 1
    for i, dcg in zip(t.gain_ranks, t.dcg, strict=True):
        total += dcg / t.ideal_dcg[min(i, last)]
    total += (len(t.ideal) - len(t.gain_ranks)) * (t.dcg[-1] if t.dcg else 0.0) / t.ideal_dcg[-1]
    return total / len(t.ideal) if total > 0.0 else 0.0


def _rndcg(t: Topic) -> float:
    """m_Rndcg.c: the nDCG at each rank where the ideal gain changes, averaged. Its
    ideal gain at rank i is the ideal ranking's (0 past its end); its loops run while
    the previous rank's ideal gain was above 0, the run's gains only within the run."""
    if t.num_rel == 0:
        return 0.0
    ideal, rels = t.ideal, t.rels
    log2 = log2_of_rank(t.num_ret + len(ideal) + 1)
    old = previous = float(ideal[0]) if ideal else 0.0  # the top grade's gain
    changed, total, dcg, ideal_dcg, i = 0, 0.0, 0.0, 0.0, 0
    while previous > 0.0:
        gain = float(ideal[i]) if i < len(ideal) else 0.0
        if old != gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changed += 1
            old = gain
        if i < t.num_ret and rels[i] > 0:
            dcg += rels[i] / log2[i]
        if gain > 0.0:
            ideal_dcg += gain / log2[i]
        previous, i = gain, i + 1
    if i < t.num_ret:  # the rest of the run's gains, in rank order, then one more nDCG
        dcg = t.dcg[-1] if t.dcg else 0.0
        if ideal_dcg > 0.0:
            total += dcg / ideal_dcg
            changed += 1
    return total / changed


def _g(t: Topic) -> float:
    """m_G.c, as written: gain over the cost of the documents ranked so far, over the
    ideal's gains (whole numbers: their sum is exact in any order)."""
    rels, levels = t.rels, t.levels
    level = len(levels) - 1
    ideal_gain = float(level) if level >= 0 else 0.0
    value = sum_results = sum_cost = 0.0
    at_level, i = 0, 0
    while i < t.num_ret and ideal_gain > 0.0:
        gain = float(rels[i]) if rels[i] > 0 else 0.0
        sum_results += gain
        at_level += 1
        while level >= 0 and at_level > levels[level]:
            at_level, level = 1, level - 1
            ideal_gain = float(level) if level >= 0 else 0.0
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if gain != 0:
            value += gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    # Past the ideal's end each rank costs 1; every sum is a whole number (exact), so
    # the ranks without a gain are skipped and their cost added at the next gain.
    base_cost, first = sum_cost, i
    n = bisect_left(t.gain_ranks, i)
    for j, r in zip(t.gain_ranks[n:], t.gain_values[n:], strict=True):
        sum_results += r
        sum_cost = base_cost + (j - first + 1)
        value += r / math.log2(2 + sum_cost - sum_results)
    sum_ideal = float(sum(t.ideal))
    return value / sum_ideal if sum_ideal > 0.0 else 0.0


def _bin_g(t: Topic) -> float:
    """m_binG.c: each relevant document discounted by the nonrelevant ones above it."""
    total = 0.0
    for k, i in enumerate(t.relevant, 1):
        total += 1.0 / math.log2(float(3 + i - k))
    return total / t.num_rel if t.num_rel_ret else 0.0


def _ndcg_cut(t: Topic) -> list[float]:
    """m_ndcg_cut.c: DCG of the first k ranks over the ideal's first k."""
    values = []
    for k in CUTOFFS:
        dcg = t.dcg_before(k)
        ideal = t.ideal_dcg[min(k, len(t.ideal)) - 1] if t.ideal else 0.0
        values.append(dcg / ideal if ideal > 0.0 else dcg)
    return values


def _relstring(t: Topic) -> str:
    """m_relstring.c: a character per rank of the first ten."""
    return "".join(
        ">" if r > 9 else str(r) if r >= 0 else "-" if r == NONPOOL else "."
        for r in t.rels[:RELSTRING_LENGTH]
    )


def _set_f(t: Topic) -> float:
    """m_set_F.c with beta 1."""
    if not t.num_rel_ret:
        return 0.0
    p, r, x = t.num_rel_ret / t.num_ret, t.num_rel_ret / t.num_rel, 1.0
    return (x + 1.0) * p * r / (x * p + r)


def _names(family: str, params: tuple) -> list[str]:
    """trec_eval's printed names of a cutoff family (`P_5`, `iprec_at_recall_0.00`)."""
    if isinstance(params[0], float):
        return [f"{family}_{p:.2f}" for p in params]
    return [f"{family}_{p}" for p in params]


def _utility(t: Topic) -> float:
    """m_utility.c with its default coefficients 1, -1, 0, 0."""
    a, b, c, d = 1.0, -1.0, 0.0, 0.0
    return (
        a * t.num_rel_ret
        + b * (t.num_ret - t.num_rel_ret)
        + c * (t.num_rel - t.num_rel_ret)
        + d * (t.collection + t.num_rel_ret - t.num_ret - t.num_rel)
    )


# (family, the names it prints, its per-topic values) in trec_eval's table order; the
# values of num_q and the geometric means (only an `all` line) are the engine's too.
Family = tuple[str, list[str], Callable[[Topic], list]]
FAMILIES: list[Family] = [
    ("num_q", ["num_q"], lambda t: [1.0]),
    ("num_ret", ["num_ret"], lambda t: [float(t.num_ret)]),
    ("num_rel", ["num_rel"], lambda t: [float(t.num_rel)]),
    ("num_rel_ret", ["num_rel_ret"], lambda t: [float(t.num_rel_ret)]),
    ("map", ["map"], lambda t: [_ap(t)]),
    ("gm_map", ["gm_map"], lambda t: [math.log(max(_ap(t), MIN_GEO_MEAN))]),
    ("Rprec", ["Rprec"], lambda t: [_rprec(t)]),
    ("bpref", ["bpref"], lambda t: [_bpref(t)]),
    ("recip_rank", ["recip_rank"], lambda t: [1.0 / (t.relevant[0] + 1) if t.relevant else 0.0]),
    (
        "iprec_at_recall",
        _names("iprec_at_recall", RECALL_POINTS),
        _iprec_at_recall,
    ),
    ("P", _names("P", CUTOFFS), lambda t: list(map(truediv, t.at_cutoffs, CUTOFFS))),
    ("relstring", ["relstring"], lambda t: [_relstring(t)]),
    (
        "recall",
        _names("recall", CUTOFFS),
        lambda t: [f / t.num_rel if t.num_rel else 0.0 for f in t.at_cutoffs],
    ),
    ("infAP", ["infAP"], lambda t: [_infap(t)]),
    ("gm_bpref", ["gm_bpref"], lambda t: [math.log(max(_bpref(t), MIN_GEO_MEAN))]),
    ("Rprec_mult", _names("Rprec_mult", R_MULTIPLES), _rprec_mult),
    ("utility", ["utility"], lambda t: [_utility(t)]),
    ("11pt_avg", ["11pt_avg"], lambda t: [_eleven_point(t)]),
    ("binG", ["binG"], lambda t: [_bin_g(t)]),
    ("G", ["G"], lambda t: [_g(t)]),
    ("ndcg", ["ndcg"], lambda t: [_ndcg(t)]),
    ("ndcg_rel", ["ndcg_rel"], lambda t: [_ndcg_rel(t)]),
    ("Rndcg", ["Rndcg"], lambda t: [_rndcg(t)]),
    ("ndcg_cut", _names("ndcg_cut", CUTOFFS), _ndcg_cut),
    (
        "map_cut",
        _names("map_cut", CUTOFFS),
        lambda t: [t.ap_sums[f] / t.num_rel if t.num_rel else 0.0 for f in t.at_cutoffs],
    ),
    (
        "relative_P",
        _names("relative_P", CUTOFFS),
        lambda t: [
            f / min(k, t.num_rel) if t.num_rel else 0.0
            for f, k in zip(t.at_cutoffs, CUTOFFS, strict=True)
        ],
    ),
    (
        "success",
        _names("success", SUCCESS),
        lambda t: [1.0 if t.found(k) else 0.0 for k in SUCCESS],
    ),
    ("set_P", ["set_P"], lambda t: [t.num_rel_ret / t.num_ret]),
    (
        "set_relative_P",
        ["set_relative_P"],
        lambda t: [t.num_rel_ret / min(t.num_ret, t.num_rel) if t.num_rel else 0.0],
    ),
    ("set_recall", ["set_recall"], lambda t: [t.num_rel_ret / t.num_rel if t.num_rel else 0.0]),
    (
        "set_map",
        ["set_map"],
        lambda t: [(t.num_rel_ret * t.num_rel_ret) / (t.num_ret * t.num_rel) if t.num_rel else 0.0],
    ),
    ("set_F", ["set_F"], lambda t: [_set_f(t)]),
    (
        "num_nonrel_judged_ret",
        ["num_nonrel_judged_ret"],
        lambda t: [float(t.num_ret - t.num_nonpool - t.num_unjudged - t.num_rel_ret)],
    ),
]
GEOMETRIC = frozenset({"gm_map", "gm_bpref"})  # an `all` line only: exp of the mean log
SUMMARY_ONLY = frozenset({"num_q", *GEOMETRIC})
TEXT = frozenset({"relstring"})  # per-topic lines only
INTEGER = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})

OFFICIAL = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
ALL_TREC = tuple(family for family, _, _ in FAMILIES)


def _rprec(t: Topic) -> float:
    """m_Rprec.c: precision at R (0 when nothing is retrieved or relevant)."""
    n = min(t.num_ret, t.num_rel)
    return t.found(n) / t.num_rel if n else 0.0


def _eleven_point(t: Topic) -> float:
    """m_11pt_avg.c: the interpolated precisions at the 11 recall points, added from the
    last point to the first as its loop adds them."""
    total = 0.0
    for value in reversed(_iprec_at_recall(t)):
        total += value
    return total / len(RECALL_POINTS)


def _ndcg(t: Topic) -> float:
    """m_ndcg.c with trec_eval's gains (the grades): the run's DCG over the ideal's."""
    if not t.ideal:
        return 0.0
    return (t.dcg[-1] if t.dcg else 0.0) / t.ideal_dcg[-1]
