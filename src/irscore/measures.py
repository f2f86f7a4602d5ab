"""Per-topic retrieval measures, vectorised over one sorted array of ranked documents.

Every evaluated topic's ranking is a contiguous slice of the row arrays of a
`Ranking`; measures are computed for all topics at once with cumulative sums
and `np.bincount`, never with a Python loop over documents. The arithmetic
follows trec_eval 9.0.x (m_*.c), including its order of operations, so that
the reference convention agrees with pytrec_eval to the last bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

RECALL_LEVELS = tuple(j / 10 for j in range(11))
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class Ranking:
    """The ranked documents of every evaluated topic, concatenated topic by topic.

    Row arrays hold one entry per ranked document; topic arrays one per topic.
    `grade` is the judged grade, or -1 for a document that counts as unjudged
    (not in the qrels, or a negative grade). `ideal_grade` holds, per topic,
    the grades of all judged documents with a positive grade, sorted
    descending (the ideal ranking); `gain` is the gain of the `ndcg` family.
    """

    topics: np.ndarray
    starts: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    num_rel: np.ndarray
    num_nonrel: np.ndarray
    ideal_grade: np.ndarray
    ideal_starts: np.ndarray
    rel_level: int = 1
    gain: str = "linear"
    tie_group: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    @cached_property
    def topic_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.topics)), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each row within its topic."""
        return np.arange(len(self.grade)) - self.starts[self.topic_of_row] + 1

    @cached_property
    def rel(self) -> np.ndarray:
        return self.judged & (self.grade >= self.rel_level)

    @cached_property
    def cumrel(self) -> np.ndarray:
        """Relevant documents at or above each row's rank, within its topic."""
        return _cumulative(self, self.rel)

    @cached_property
    def precision_at_rel(self) -> np.ndarray:
        """Precision at each relevant row's rank; 0 on the other rows (AP's summands)."""
        return np.where(self.rel, self.cumrel / self.rank, 0.0)

    def discounted_gain(self, gain: str) -> np.ndarray:
        """gain / log2(rank + 1) of each row, 0 for unjudged rows and grades <= 0."""
        key = ("discounted", gain)
        if key not in self.cache:
            values = np.where(self.judged, gains_of(self.grade, gain), 0.0)
            self.cache[key] = values / np.log2(self.rank + 1.0)
        return self.cache[key]


@dataclass(frozen=True)
class MeasureSpec:
    """Which measures to compute, and their cut-offs (trec_eval's defaults)."""

    P: tuple[int, ...] = DEFAULT_CUTOFFS
    recall: tuple[int, ...] = DEFAULT_CUTOFFS
    ndcg_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    ndcg_exp_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    map_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    success: tuple[int, ...] = SUCCESS_CUTOFFS
    judged: tuple[int, ...] = (10,)
    err: tuple[int, ...] = (20,)
    families: frozenset[str] = field(
        default_factory=lambda: frozenset(
            {
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
                "11pt_avg",
                "P",
                "recall",
                "ndcg",
                "ndcg_cut",
                "map_cut",
                "success",
            }
        )
    )


def spec_from_config(config: dict) -> MeasureSpec:
    """A MeasureSpec from config: `families` (default: all irscore computes) and cut-offs."""
    config = dict(config)
    known = {f for f in MeasureSpec.__dataclass_fields__ if f != "families"}
    unknown = sorted(set(config) - known - {"families"})
    if unknown:
        raise MeasureError(f"measures: unknown key(s) {', '.join(unknown)}")
    families = frozenset(config.pop("families", ALL_FAMILIES))
    bad = sorted(families - IMPLEMENTED)
    if bad:
        raise MeasureError(f"measures: unknown or unimplemented famil(ies) {', '.join(bad)}")
    cutoffs = {key: tuple(_parse_cutoffs(key, ",".join(map(str, v)))) for key, v in config.items()}
    return MeasureSpec(families=families, **cutoffs)


def gains_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """nDCG gain of each grade: the grade (linear) or 2^g - 1 (exponential); 0 for g <= 0."""
    g = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    return np.exp2(g) - 1.0 if gain == "exponential" else g


def _per_topic_sum(r: Ranking, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of `weights` over each topic's rows (optionally only where `mask`), in rank order."""
    topic = r.topic_of_row
    if mask is not None:
        topic, weights = topic[mask], weights[mask]
    return np.bincount(topic, weights=weights, minlength=len(r.topics)).astype(np.float64)


def _cumulative(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Running sum of `values` within each topic (inclusive of the row)."""
    total = np.cumsum(values, dtype=np.float64)
    before = np.concatenate(([0.0], total))[r.starts[:-1]]
    return total - before[r.topic_of_row]


def _at_cutoff(
    r: Ranking, cumulative: np.ndarray, k: np.ndarray | int, starts: np.ndarray | None = None
) -> np.ndarray:
    """Each topic's cumulative value at rank min(k, length); 0 where that is rank 0.

    `starts` gives other per-topic offsets than the ranking's (the ideal ranking's).
    """
    starts = r.starts if starts is None else starts
    depth = np.minimum(np.asarray(k, dtype=np.int64), np.diff(starts))
    out = np.zeros(len(r.topics), dtype=np.float64)
    has = depth > 0
    out[has] = cumulative[(starts[:-1] + depth - 1)[has]]
    return out


def _ideal_cumulative(r: Ranking, gain: str) -> tuple[np.ndarray, np.ndarray]:
    """Running DCG of each topic's ideal ranking, and its per-topic offsets."""
    counts = np.diff(r.ideal_starts)
    topic = np.repeat(np.arange(len(r.topics)), counts)
    rank = np.arange(len(r.ideal_grade)) - r.ideal_starts[:-1][topic] + 1
    values = gains_of(r.ideal_grade, gain) / np.log2(rank + 1.0)
    total = np.cumsum(values)
    before = np.concatenate(([0.0], total))[r.ideal_starts[:-1]]
    return total - before[topic], r.ideal_starts


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's convention)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


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


def interpolated_precision(r: Ranking, rule: str) -> list[np.ndarray]:
    """Interpolated precision at the 11 recall levels, one array over topics per level.

    The value is the maximum precision at any rank at or below the rank of the
    c-th relevant retrieved document (c = 0: over the whole ranking), 0 when
    fewer than c relevant documents were retrieved. Like trec_eval, a topic
    with nothing retrieved (possible under -J) gets NaN where c = 0.
    """
    rel_rows = np.flatnonzero(r.rel)
    # Precision falls between relevant ranks, so the maximum at or below a
    # relevant rank is reached at a relevant rank: only those rows matter.
    precision = r.cumrel[rel_rows] / r.rank[rel_rows]
    topic = r.topic_of_row[rel_rows]
    best_below = (
        pd.Series(precision[::-1]).groupby(topic[::-1], sort=False).cummax().to_numpy()[::-1]
    )
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
    return levels


def average_precision(r: Ranking, over_retrieved: bool = False) -> np.ndarray:
    """AP: precision at each relevant retrieved rank, summed, over the number relevant.

    `over_retrieved` divides by the relevant documents retrieved instead (a known mistake).
    """
    total = _per_topic_sum(r, r.precision_at_rel, r.rel)
    if over_retrieved:
        return _safe_divide(total, _per_topic_sum(r, r.rel.astype(np.float64)))
    return _safe_divide(total, r.num_rel)


def bpref(r: Ranking) -> np.ndarray:
    """trec_eval's bpref: judged non-relevant above each relevant, capped at R."""
    rel = r.rel
    before = _cumulative(r, r.judged & ~rel)[rel]
    topic = r.topic_of_row[rel]
    num_rel = r.num_rel[topic].astype(np.float64)
    cap = np.minimum(r.num_nonrel[topic], r.num_rel[topic]).astype(np.float64)
    penalty = _safe_divide(np.minimum(before, num_rel), cap)
    contribution = np.where(before > 0, 1.0 - penalty, 1.0)
    total = np.bincount(topic, weights=contribution, minlength=len(r.topics))
    return _safe_divide(total, r.num_rel)


def dcg(r: Ranking, gain: str) -> np.ndarray:
    """Discounted cumulative gain of the ranking: sum of gain / log2(rank + 1)."""
    values = r.discounted_gain(gain)
    return _per_topic_sum(r, values, values > 0)


def ideal_dcg(r: Ranking, gain: str) -> np.ndarray:
    """DCG of the ideal ranking: every judged positive grade, sorted by gain."""
    counts = np.diff(r.ideal_starts)
    topic = np.repeat(np.arange(len(r.topics)), counts)
    rank = np.arange(len(r.ideal_grade)) - r.ideal_starts[:-1][topic] + 1
    values = gains_of(r.ideal_grade, gain) / np.log2(rank + 1.0)
    return np.bincount(topic, weights=values, minlength=len(r.topics)).astype(np.float64)


def err(r: Ranking, cutoff: int, gmax: int) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009), R = (2^g - 1) / 2^gmax, 0 for unjudged or g <= 0."""
    grade = np.where(r.judged, np.maximum(r.grade, 0), 0).astype(np.float64)
    stop = (np.exp2(grade) - 1.0) / 2.0**gmax
    rank = r.rank
    keep = rank <= cutoff
    stop = np.minimum(stop, 1.0)
    go_on = pd.Series(1.0 - stop).groupby(r.topic_of_row, sort=False).cumprod().to_numpy()
    continue_before = np.where(rank == 1, 1.0, np.roll(go_on, 1))
    return _per_topic_sum(r, stop * continue_before / rank, keep)


def compute(r: Ranking, spec: MeasureSpec, rule: str, mistake: str | None, gmax: int):
    """Every measure of `spec` for every topic of the ranking: {name: array over topics}."""
    fam = spec.families
    rel = r.rel.astype(np.float64)
    cumrel = r.cumrel
    num_ret = r.lengths.astype(np.float64)
    num_rel_ret = _per_topic_sum(r, rel)
    out: dict[str, np.ndarray] = {}
    if "num_q" in fam:
        out["num_q"] = np.ones(len(r.topics))
    if "num_ret" in fam:
        out["num_ret"] = num_ret
    if "num_rel" in fam:
        out["num_rel"] = r.num_rel.astype(np.float64)
    if "num_rel_ret" in fam:
        out["num_rel_ret"] = num_rel_ret
    ap = average_precision(r, mistake == "ap_over_retrieved")
    if "map" in fam:
        out["map"] = ap
    if "gm_map" in fam:
        out["gm_map"] = ap
    if "Rprec" in fam:
        out["Rprec"] = _safe_divide(_at_cutoff(r, cumrel, r.num_rel), r.num_rel)
    if "bpref" in fam:
        out["bpref"] = bpref(r)
    if "recip_rank" in fam:
        out["recip_rank"] = reciprocal_rank(r)
    levels = interpolated_precision(r, rule) if fam & {"iprec_at_recall", "11pt_avg"} else []
    if "iprec_at_recall" in fam:
        for level, values in zip(RECALL_LEVELS, levels, strict=True):
            out[f"iprec_at_recall_{level:.2f}"] = values
    for k in spec.P if "P" in fam else ():
        out[f"P_{k}"] = _at_cutoff(r, cumrel, k) / k
    for k in spec.recall if "recall" in fam else ():
        out[f"recall_{k}"] = _safe_divide(_at_cutoff(r, cumrel, k), r.num_rel)
    if "11pt_avg" in fam:
        out["11pt_avg"] = np.mean(levels, axis=0)
    ideal = _ideal_from_run(r) if mistake == "ideal_from_run" else r
    for family, gain in (("ndcg", r.gain), ("ndcg_exp", "exponential")):
        prefix = "ndcg_exp" if gain == "exponential" else "ndcg"
        if family in fam:
            out[prefix] = _safe_divide(dcg(r, gain), ideal_dcg(ideal, gain))
        cutoffs = getattr(spec, f"{family}_cut") if f"{family}_cut" in fam else ()
        if cutoffs:
            running = _cumulative(r, r.discounted_gain(gain))
            ideal_running, ideal_starts = _ideal_cumulative(ideal, gain)
        for k in cutoffs:
            best = _at_cutoff(r, ideal_running, k, ideal_starts)
            out[f"{prefix}_cut_{k}"] = _safe_divide(_at_cutoff(r, running, k), best)
    if "map_cut" in fam and spec.map_cut:
        running = _cumulative(r, r.precision_at_rel)
        for k in spec.map_cut:
            denominator = _at_cutoff(r, cumrel, k) if mistake == "ap_over_retrieved" else r.num_rel
            out[f"map_cut_{k}"] = _safe_divide(_at_cutoff(r, running, k), denominator)
    for k in spec.success if "success" in fam else ():
        out[f"success_{k}"] = (_at_cutoff(r, cumrel, k) > 0).astype(np.float64)
    for k in spec.err if "err" in fam else ():
        out[f"err_{k}"] = err(r, k, gmax)
    for k in spec.judged if "judged" in fam else ():
        out[f"judged_{k}"] = _at_cutoff(r, _cumulative(r, r.judged.astype(np.float64)), k) / k
    return out


def reciprocal_rank(r: Ranking) -> np.ndarray:
    """1 / rank of the first relevant retrieved document, 0 when there is none."""
    rel_rows = np.flatnonzero(r.rel)
    topics, first = np.unique(r.topic_of_row[rel_rows], return_index=True)
    out = np.zeros(len(r.topics))
    out[topics] = 1.0 / r.rank[rel_rows[first]]
    return out


def _ideal_from_run(r: Ranking) -> Ranking:
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


def aggregate(name: str, values: np.ndarray, num_rel_all_qrels: float | None = None) -> float:
    """trec_eval's `all` value: sums for counts, exp-mean-log for gm_map, else the mean.

    `num_rel_all_qrels` reproduces trec_eval -c, whose `all` num_rel counts the
    grade > 0 judgments of every qrels topic, whatever the relevance level.
    """
    if name == "num_q":
        return float(len(values))
    if name in ("num_ret", "num_rel_ret"):
        return float(np.sum(values))
    if name == "num_rel":
        return float(np.sum(values)) if num_rel_all_qrels is None else num_rel_all_qrels
    if len(values) == 0:
        return 0.0
    if name == "gm_map":
        return float(np.exp(np.mean(np.log(np.maximum(values, MIN_GEO_MEAN)))))
    return float(np.sum(values) / len(values))


class MeasureError(ValueError):
    """A measure request that irscore does not know or cannot compute."""


# trec_eval's measure families in its print order (measures.c), and its nicknames.
TREC_ORDER = [
    "runid",
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
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
OFFICIAL = TREC_ORDER[: TREC_ORDER.index("P") + 1]
ALL_TREC = tuple(TREC_ORDER)
EXTRA = ("ndcg_exp", "ndcg_exp_cut", "err", "judged")
IMPLEMENTED = frozenset(MeasureSpec().families) | {"runid", *EXTRA}
ALL_FAMILIES = IMPLEMENTED - {"runid"}
CUTOFF_FAMILIES = ("P", "recall", "ndcg_cut", "ndcg_exp_cut", "map_cut", "success", "err", "judged")
INTEGER_MEASURES = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret"})


def parse_requests(requests: Sequence[str]) -> tuple[MeasureSpec, list[str]]:
    """trec_eval's -m requests (`map`, `P.5,10`, `all_trec`, ...) as a MeasureSpec.

    Returns the spec and the requested families irscore does not compute yet
    (from a nickname such as all_trec), so the caller can say so; naming one
    of those explicitly is an error, like an unknown name.
    """
    families: set[str] = set()
    cutoffs: dict[str, tuple[int, ...]] = {}
    missing: list[str] = []
    for request in requests or ["official"]:
        name, _, params = request.partition(".")
        if name in ("official", "all_trec"):
            group = OFFICIAL if name == "official" else ALL_TREC
            families |= {m for m in group if m in IMPLEMENTED}
            missing += [m for m in group if m not in IMPLEMENTED and m not in missing]
            continue
        if name not in IMPLEMENTED:
            known = "unknown measure" if name not in TREC_ORDER else "measure not implemented"
            raise MeasureError(f"{known}: {name!r} (in -m {request})")
        families.add(name)
        if params:
            if name not in CUTOFF_FAMILIES:
                raise MeasureError(f"measure {name} takes no parameters (in -m {request})")
            cutoffs[name] = _parse_cutoffs(name, params)
    return MeasureSpec(families=frozenset(families), **cutoffs), missing


def _parse_cutoffs(name: str, params: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in params.split(","))
    except ValueError:
        raise MeasureError(f"cut-offs of {name} must be positive integers: {params!r}") from None
    if any(v < 1 for v in values) or len(set(values)) != len(values):
        raise MeasureError(f"cut-offs of {name} must be positive and distinct: {params!r}")
    return values
