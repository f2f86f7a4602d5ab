"""The discounted-gain family: DCG and nDCG with their ideal rankings, trec_eval's
ndcg_rel, Rndcg, binG and G, and ERR."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import (
    Context,
    Ranking,
    Running,
    at_cutoff,
    count_above,
    lookup,
    per_ranking,
    per_topic_sum,
    safe_divide,
    segment_cumsum,
    topic_sum,
)


def gains_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """nDCG gain of each grade: the grade (linear) or 2^g - 1 (exponential); 0 for g <= 0."""
    g = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    return np.exp2(g) - 1.0 if gain == "exponential" else g


@per_ranking
def discounted_gain(r: Ranking, gain: str) -> np.ndarray:
    """gain / log2(rank + 1) of each row, 0 for unjudged rows and grades <= 0."""
    rows = np.flatnonzero(r.judged & (r.grade > 0))
    values = np.zeros(len(r.grade))
    values[rows] = gains_of(r.grade[rows], gain) / np.log2(r.rank[rows] + 1.0)
    return values


def ideal_cumulative(r: Ranking, gain: str) -> tuple[np.ndarray, np.ndarray]:
    """Running DCG of each topic's ideal ranking, and its per-topic offsets."""
    return ideal_running(r, gain), r.ideal_starts


@per_ranking
def ideal_terms(r: Ranking, gain: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The terms every ideal DCG sums: per ideal position, its topic index, its rank in
    the topic (from 1) and its discounted gain, gain / log2(rank + 1)."""
    counts = np.diff(r.ideal_starts)
    topic = np.repeat(np.arange(len(r.topics)), counts)
    rank = np.arange(len(r.ideal_grade)) - r.ideal_starts[:-1][topic] + 1
    return topic, rank, gains_of(r.ideal_grade, gain) / np.log2(rank + 1.0)


@per_ranking
def ideal_running(r: Ranking, gain: str) -> np.ndarray:
    return segment_cumsum(ideal_terms(r, gain)[2], r.ideal_starts)


@per_ranking
def dcg(r: Ranking, gain: str) -> np.ndarray:
    """Discounted cumulative gain of the ranking: sum of gain / log2(rank + 1)."""
    values = discounted_gain(r, gain)
    return per_topic_sum(r, values, values > 0)


@per_ranking
def ideal_dcg(r: Ranking, gain: str) -> np.ndarray:
    """DCG of the ideal ranking: every judged positive grade, sorted by gain."""
    topic, _, values = ideal_terms(r, gain)
    return np.bincount(topic, weights=values, minlength=len(r.topics)).astype(np.float64)


@per_ranking
def running_dcg(r: Ranking, gain: str) -> Running:
    """DCG at each rank within its topic (ndcg_cut, ndcg_rel, Rndcg share it)."""
    values = discounted_gain(r, gain)
    return Running.of(r, values, values > 0)


def ideal_of(r: Ranking, from_run: bool) -> Ranking:
    """The ranking whose ideal grades nDCG divides by: `r` itself, or (the mistake
    of building the ideal only from the retrieved documents) a copy with those."""
    return ideal_from_run_ranking(r) if from_run else r


@per_ranking
def ideal_from_run_ranking(r: Ranking) -> Ranking:
    """The mistake of building nDCG's ideal only from the retrieved documents."""
    grade = np.where(r.judged & (r.grade > 0), r.grade, 0)
    order = np.lexsort((-grade, r.topic_of_row))
    sorted_grade = grade[order]
    keep = sorted_grade > 0
    counts = np.bincount(r.topic_of_row[order][keep], minlength=len(r.topics))
    return replace(
        r,
        ideal_grade=sorted_grade[keep],
        ideal_starts=np.concatenate(([0], np.cumsum(counts))),
        cache={},
    )


@per_ranking
def ndcg_over_relevant(r: Ranking, gain: str, ideal_from_run: bool) -> np.ndarray:
    """trec_eval's ndcg_rel: nDCG averaged over the P documents of positive gain.

    A retrieved document of positive gain at rank k contributes DCG@k / IDCG@min(k, P);
    each of the others contributes DCG@end / IDCG (the whole ranking's nDCG).
    """
    ideal = ideal_of(r, ideal_from_run)
    running = running_dcg(r, gain)
    ideal_running, ideal_starts = ideal_cumulative(ideal, gain)
    ideal_len = np.diff(ideal_starts)
    rows = running.rows  # the rows of positive gain
    topic = r.topic_of_row[rows]
    within = np.minimum(r.rank[rows], ideal_len[topic])
    term = running.sums / lookup(ideal_running, ideal_starts, topic, within)
    total = topic_sum(topic, term, len(r.topics))
    found = np.bincount(topic, minlength=len(r.topics))
    has = ideal_len > 0
    dcg_end = running.at_cutoff(r, r.lengths)
    ideal_end = at_cutoff(r, ideal_running, ideal_len, ideal_starts)
    total[has] += (ideal_len - found)[has].astype(np.float64) * dcg_end[has] / ideal_end[has]
    return np.where(total > 0, safe_divide(total, ideal_len), 0.0)


@per_ranking
def ndcg_at_r_levels(r: Ranking, gain: str, ideal_from_run: bool) -> np.ndarray:
    """trec_eval's Rndcg: the mean of nDCG at each rank where the ideal gain changes.

    The ideal ranking's gain changes after each run of equal grades (the last
    change: to gain 0 after its P documents); there nDCG@c = DCG@min(c, n) / IDCG@c.
    When more than P + 1 documents are retrieved, trec_eval adds nDCG at the end
    of the ranking (DCG@n / IDCG) as one more point (not when exactly P + 1 are).
    0 for a topic with no relevant document; NaN (0/0) when there is no point.
    """
    ideal = ideal_of(r, ideal_from_run)
    running = running_dcg(r, gain)
    ideal_running, ideal_starts = ideal_cumulative(ideal, gain)
    ideal_len = np.diff(ideal_starts)
    grades = ideal.ideal_grade
    last_of_level = np.ones(len(grades), dtype=bool)
    last_of_level[:-1] = grades[1:] != grades[:-1]
    last_of_level[ideal_starts[1:][ideal_len > 0] - 1] = True
    points = np.flatnonzero(last_of_level)
    topic = np.repeat(np.arange(len(r.topics)), ideal_len)[points]
    at = points - ideal_starts[topic] + 1
    depth = np.minimum(at, r.lengths[topic])
    term = running.at(r, topic, depth) / ideal_running[points]
    total = topic_sum(topic, term, len(r.topics))
    count = np.bincount(topic, minlength=len(r.topics)).astype(np.float64)
    end = (r.lengths > ideal_len + 1) & (ideal_len > 0)
    dcg_end = running.at_cutoff(r, r.lengths)
    ideal_end = at_cutoff(r, ideal_running, ideal_len, ideal_starts)
    total[end] += dcg_end[end] / ideal_end[end]
    count[end] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = total / count
    return np.where(r.num_rel == 0, 0.0, value)


@per_ranking
def binary_g(r: Ranking) -> np.ndarray:
    """trec_eval's binG: 1/log2(2 + non-relevant above) over the relevant rows, / R."""
    rows = r.rel_rows
    nonrel_above = r.rank[rows] - r.cumrel[rows]
    term = 1.0 / np.log2(2.0 + nonrel_above)
    total = topic_sum(r.topic_of_row[rows], term, len(r.topics))
    return safe_divide(total, r.num_rel)


@per_ranking
def normalised_gain(r: Ranking) -> np.ndarray:
    """trec_eval's G with its default gains (gain = grade; unjudged and negative grades 0).

    A row at rank k with gain g > 0 adds g / log2(2 + cost(k) - gained(k)), where
    gained(k) is the gain of the top k and cost(k) the ideal ranking's gain of its
    top k, each position beyond the ideal ranking costing 1; the sum is divided
    by the ideal ranking's total gain (0 when there is none).
    """
    gain = np.where(r.judged, np.maximum(r.grade, 0), 0)
    ideal_len = np.diff(r.ideal_starts)
    ideal_topic = np.repeat(np.arange(len(r.topics)), ideal_len)
    ideal_gain = r.ideal_grade.astype(np.float64)
    ideal_running = np.cumsum(ideal_gain)
    before = np.concatenate(([0.0], ideal_running))[r.ideal_starts[:-1]]
    ideal_running = ideal_running - before[ideal_topic]  # sums of integers: exact
    rows = np.flatnonzero(gain != 0)
    topic = r.topic_of_row[rows]
    rank = r.rank[rows]
    gained = (count_above(r, gain, rows) + gain[rows]).astype(np.float64)  # integers: exact
    within = np.minimum(rank, ideal_len[topic])
    cost = lookup(ideal_running, r.ideal_starts, topic, within) + (rank - within)
    term = gain[rows] / np.log2(2.0 + cost - gained)
    total = topic_sum(topic, term, len(r.topics))
    ideal_total = topic_sum(ideal_topic, ideal_gain, len(r.topics))
    return safe_divide(total, ideal_total)


@per_ranking
def err(r: Ranking, cutoff: int, gmax: int) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009), R = (2^g - 1) / 2^gmax, 0 for unjudged or g <= 0."""
    grade = np.where(r.judged, np.maximum(r.grade, 0), 0).astype(np.float64)
    stop = (np.exp2(grade) - 1.0) / 2.0**gmax
    rank = r.rank
    keep = rank <= cutoff
    stop = np.minimum(stop, 1.0)
    import pandas as pd  # loaded only when this measure is asked for

    go_on = pd.Series(1.0 - stop).groupby(r.topic_of_row, sort=False).cumprod().to_numpy()
    first = np.arange(len(rank)) == r.starts[r.topic_of_row]  # rows between add stop 0
    continue_before = np.where(first, 1.0, np.roll(go_on, 1))
    return per_topic_sum(r, stop * continue_before / rank, keep)


def _prefix(gain: str) -> str:
    """nDCG lines are named ndcg_exp... under exponential gain."""
    return "ndcg_exp" if gain == "exponential" else "ndcg"


def _ndcg(r: Ranking, ctx: Context, gain: str) -> dict[str, np.ndarray]:
    ideal = ideal_of(r, ctx.mistake == "ideal_from_run")
    return {_prefix(gain): safe_divide(dcg(r, gain), ideal_dcg(ideal, gain))}


def _ndcg_cut(r: Ranking, ctx: Context, gain: str, cutoffs: tuple[int, ...]):
    ideal = ideal_of(r, ctx.mistake == "ideal_from_run")
    running = running_dcg(r, gain)
    ideal_running, ideal_starts = ideal_cumulative(ideal, gain)
    return {
        f"{_prefix(gain)}_cut_{k}": safe_divide(
            running.at_cutoff(r, k), at_cutoff(r, ideal_running, k, ideal_starts)
        )
        for k in cutoffs
    }


def _mapped(r: Ranking, ctx: Context, family: str, text: str, gain: str) -> np.ndarray:
    """`family` under a `level=gain` map; levels the map leaves out keep the convention's
    gain (G's: the grade)."""
    from irscore.engine.measures import gain_maps  # loaded only when a map is given

    ideal = ideal_of(r, ctx.mistake == "ideal_from_run")
    return gain_maps.per_topic(r, family, text, lambda g: float(gains_of(g, gain)), ideal)


def ndcg(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    if gains is not None:
        return {f"{_prefix(ctx.gain)}_{gains}": _mapped(r, ctx, "ndcg", gains, ctx.gain)}
    return _ndcg(r, ctx, ctx.gain)


def split_cut_gains(text: str) -> tuple[str, tuple[int, ...]]:
    """The gain map and the cut-offs of ndcg_cut_gains' parameter `0=0,1=1,2=3@5,10`."""
    gains, _, cutoffs = text.rpartition("@")
    return gains, tuple(int(k) for k in cutoffs.split(","))


def ndcg_cut_gains(r: Ranking, ctx: Context, text: str) -> dict[str, np.ndarray]:
    """nDCG@k under a `level=gain` map (ir_measures' nDCG(gains={...})@k): the ranking and
    the ideal cut at k, each level's gain from the map, the others their grade."""
    from irscore.engine.measures import gain_maps  # loaded only when a map is given

    gains, cutoffs = split_cut_gains(text)
    ideal = ideal_of(r, ctx.mistake == "ideal_from_run")

    def level_gain(grade: int) -> float:
        return float(gains_of(grade, ctx.gain))

    return {
        f"ndcg_cut_gains_{gains}@{k}": gain_maps.per_topic(r, "ndcg", gains, level_gain, ideal, k)
        for k in cutoffs
    }


def dcg_of(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    """trec_eval 10's dcg: the DCG that nDCG divides (m_ndcg.c)."""
    if gains is not None:
        return {f"dcg_{gains}": _mapped(r, ctx, "dcg", gains, ctx.gain)}
    return {"dcg": dcg(r, ctx.gain)}


def ideal_dcg_of(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    """trec_eval 10's ideal_dcg: the DCG of the ideal ranking that nDCG divides by."""
    if gains is not None:
        return {f"ideal_dcg_{gains}": _mapped(r, ctx, "ideal_dcg", gains, ctx.gain)}
    ideal = ideal_of(r, ctx.mistake == "ideal_from_run")
    return {"ideal_dcg": ideal_dcg(ideal, ctx.gain)}


def ndcg_exp(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return _ndcg(r, ctx, "exponential")


def ndcg_cut(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return _ndcg_cut(r, ctx, ctx.gain, cutoffs)


def ndcg_exp_cut(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return _ndcg_cut(r, ctx, "exponential", cutoffs)


def ndcg_rel(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    if gains is not None:
        return {f"ndcg_rel_{gains}": _mapped(r, ctx, "ndcg_rel", gains, ctx.gain)}
    return {"ndcg_rel": ndcg_over_relevant(r, ctx.gain, ctx.mistake == "ideal_from_run")}


def rndcg(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    if gains is not None:
        return {f"Rndcg_{gains}": _mapped(r, ctx, "Rndcg", gains, ctx.gain)}
    return {"Rndcg": ndcg_at_r_levels(r, ctx.gain, ctx.mistake == "ideal_from_run")}


def bin_g(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"binG": binary_g(r)}


def g(r: Ranking, ctx: Context, gains: str | None) -> dict[str, np.ndarray]:
    if gains is not None:
        return {f"G_{gains}": _mapped(r, ctx, "G", gains, "linear")}
    return {"G": normalised_gain(r)}


RBP_PERSISTENCE = 0.9  # trec_eval 10's default p


def rbp_persistence(text: str | None) -> float:
    """p of `-m rbp.p=0.8` (trec_eval 10's parameter syntax); 0.9 without one."""
    return RBP_PERSISTENCE if text is None else float(text.partition("=")[2])


@per_ranking
def _powers(r: Ranking, p: float) -> np.ndarray:
    """p^0, p^1, ..., p^n as trec_eval 10 forms them: one multiplication by p per rank."""
    length = int(r.lengths.max(initial=0)) + 1
    return np.cumprod(np.r_[1.0, np.full(length, p)])


def rbp(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """trec_eval 10's rank-biased precision (Moffat & Zobel 2008), m_rbp.c:
    (1 - p) * sum of gain * p^(rank - 1), with the grade as gain, divided by the topic's
    largest grade when that exceeds 1 (gains normalised to [0, 1]); unjudged: gain 0."""
    p = rbp_persistence(text)
    scale = np.ones(len(r.topics))
    has = np.diff(r.ideal_starts) > 0
    scale[has] = np.maximum(r.ideal_grade[r.ideal_starts[:-1][has]], 1)  # sorted descending
    rows = np.flatnonzero(r.judged & (r.grade > 0))
    topic = r.topic_of_row[rows]
    gain = r.grade[rows] / scale[topic]
    total = topic_sum(topic, gain * _powers(r, p)[r.rank[rows] - 1], len(r.topics))
    return {parameter_name("rbp", text): (1.0 - p) * total}


def rbp_binary(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """Binary RBP (ir_measures' RBP(rel=1), from cwl_eval): (1 - p) * the sum of p^(rank - 1)
    over the relevant documents (grade at least the relevance level); p 0.9 without one."""
    p = rbp_persistence(text)
    rows = r.rel_rows
    total = topic_sum(r.topic_of_row[rows], _powers(r, p)[r.rank[rows] - 1], len(r.topics))
    return {parameter_name("rbp_bin", text): (1.0 - p) * total}


def rbp_residual(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """trec_eval 10's rbp_resid (m_rbp_resid.c): how much RBP could still rise if every
    unjudged retrieved document had gain 1, plus the weight beyond the ranking,
    p^n + (1 - p) * sum of p^(rank - 1) over the unjudged; 0 when all are judged."""
    p = rbp_persistence(text)
    whole = r.whole or r
    rows = np.flatnonzero(~whole.judged)
    topic = whole.topic_of_row[rows]
    powers = _powers(whole, p)
    total = topic_sum(topic, powers[whole.rank[rows] - 1], len(whole.topics))
    value = powers[whole.lengths] + (1.0 - p) * total
    unjudged = np.bincount(topic, minlength=len(whole.topics)) > 0
    return {parameter_name("rbp_resid", text): np.where(unjudged, value, 0.0)}


def err_at(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"err_{k}": err(r, k, ctx.gmax) for k in cutoffs}


def _dcg_cut(r: Ranking, gain: str, prefix: str, cutoffs: tuple[int, ...]):
    running = running_dcg(r, gain)
    return {f"{prefix}_{k}": running.at_cutoff(r, k) for k in cutoffs}


def dcg_cut(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """DCG@k (ranx's dcg@k, Järvelin's): the grade over log2(rank + 1), ranks 1..k."""
    return _dcg_cut(r, ctx.gain, "dcg_cut", cutoffs)


def dcg_exp(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """DCG with gain 2^g - 1 (ranx's dcg_burges), over the whole ranking."""
    return {"dcg_exp": dcg(r, "exponential")}


def dcg_exp_cut(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    """DCG@k with gain 2^g - 1 (ranx's dcg_burges@k)."""
    return _dcg_cut(r, "exponential", "dcg_exp_cut", cutoffs)


def rbp_grade(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """ranx's rbp: (1 - p) * the sum of grade * p^(rank - 1) over the relevant documents
    (grade at least the relevance level), the grade not scaled; p 0.9 without one."""
    p = rbp_persistence(text)
    rows = r.rel_rows
    weights = r.grade[rows] * _powers(r, p)[r.rank[rows] - 1]
    total = topic_sum(r.topic_of_row[rows], weights, len(r.topics))
    return {parameter_name("rbp_grade", text): (1.0 - p) * total}
