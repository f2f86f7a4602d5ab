"""Per-topic retrieval measures, vectorised over one sorted array of ranked documents.

Every evaluated topic's ranking is a contiguous slice of the row arrays of a
`Ranking`; measures are computed for all topics at once with cumulative sums
and `np.bincount`, never with a Python loop over documents. The arithmetic
follows trec_eval 9.0.x (m_*.c), including its order of operations, so that
the reference convention agrees with pytrec_eval to the last bits.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

RECALL_LEVELS = tuple(j / 10 for j in range(11))
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
# trec_eval's default multiples of R for Rprec_mult (written as literals: 3 * 0.2 != 0.6)
RPREC_MULT_CUTOFFS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
UTILITY_DEFAULT = (1.0, -1.0, 0.0, 0.0)  # a, b, c, d weights of trec_eval's utility
SET_F_DEFAULT = 1.0  # beta of set_F
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


@dataclass(frozen=True)
class Ranking:
    """The ranked documents of every evaluated topic, concatenated topic by topic.

    Row arrays hold one entry per ranked document; topic arrays one per topic.
    `grade` is the judged grade, or -1 for a document that counts as unjudged
    (not in the qrels, or a negative grade). `in_pool` tells those two apart:
    True when the document has a qrels line, even a negative one (trec_eval's
    RELVALUE_UNJUDGED, "in the pool but not judged", which infAP counts), False
    when it has none (RELVALUE_NONPOOL); None means "same as `judged`".
    `ideal_grade` holds, per topic, the grades of all judged documents with a
    positive grade, sorted descending (the ideal ranking). `cache` holds the
    measures already computed on this ranking (see `per_ranking`).

    A ranking may hold only some of its rows (`pooled`): then `row_rank` gives
    each row's rank and `num_ret` the number of documents retrieved per topic.
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
    tie_group: np.ndarray | None = None
    in_pool: np.ndarray | None = None
    row_rank: np.ndarray | None = None
    num_ret: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Documents retrieved per topic."""
        return np.diff(self.starts) if self.num_ret is None else self.num_ret

    @cached_property
    def topic_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.topics)), np.diff(self.starts))

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each row within its topic."""
        if self.row_rank is not None:
            return self.row_rank
        return np.arange(len(self.grade)) - self.starts[self.topic_of_row] + 1

    @cached_property
    def pooled(self) -> Ranking:
        """This ranking with only its pool rows (judged, or with a qrels line).

        Documents without a qrels line add nothing to any sum and matter to the
        measures of `compute` only through the ranks of the others, which are
        kept: the same values from a fraction of the rows (1% on Cranfield).
        """
        keep = np.flatnonzero(self.pool)
        counts = np.bincount(self.topic_of_row[keep], minlength=len(self.topics))
        return replace(
            self,
            starts=np.concatenate(([0], np.cumsum(counts))),
            grade=self.grade[keep],
            judged=self.judged[keep],
            in_pool=None if self.in_pool is None else self.in_pool[keep],
            tie_group=None,
            row_rank=self.rank[keep],
            num_ret=self.lengths,
            cache={},
        )

    @cached_property
    def _rank_key(self) -> tuple[np.ndarray, int]:
        """(topic, rank) of each row as one ascending integer, and the rank's stride."""
        stride = int(self.lengths.max()) + 1 if len(self.topics) else 1
        return self.topic_of_row * stride + self.rank, stride

    def last_row(self, topic: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """Index of the last row of each `topic` ranked at or above `depth` (-1: none)."""
        depth = np.minimum(np.asarray(depth, dtype=np.int64), self.lengths[topic])
        if self.row_rank is None:
            return np.where(depth > 0, self.starts[topic] + depth - 1, -1)
        key, stride = self._rank_key
        last = np.searchsorted(key, topic * stride + np.maximum(depth, 0), side="right") - 1
        return np.where((depth > 0) & (last >= self.starts[topic]), last, -1)

    @cached_property
    def rel(self) -> np.ndarray:
        return self.judged & (self.grade >= self.rel_level)

    @cached_property
    def cumrel(self) -> np.ndarray:
        """Relevant documents at or above each row's rank, within its topic."""
        return _cumulative(self, self.rel)

    @cached_property
    def rel_rows(self) -> np.ndarray:
        """Indices of the relevant rows (most rows are not: measures work on these)."""
        return np.flatnonzero(self.rel)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Relevant documents retrieved, per topic."""
        topic = self.topic_of_row[self.rel_rows]
        return np.bincount(topic, minlength=len(self.topics)).astype(np.float64)

    @cached_property
    def pool(self) -> np.ndarray:
        """Rows with a qrels line (judged, or a negative grade: in the pool, unjudged)."""
        return self.judged if self.in_pool is None else self.in_pool | self.judged

    @cached_property
    def precision_at_rel(self) -> np.ndarray:
        """Precision at each relevant row's rank; 0 on the other rows (AP's summands)."""
        out = np.zeros(len(self.grade))
        rows = self.rel_rows
        out[rows] = self.cumrel[rows] / self.rank[rows]
        return out


def per_ranking(function: Callable) -> Callable:
    """Memoise a measure on the ranking it is computed from, keyed by its arguments.

    Conventions that differ only after ranking (gain, interpolation, the AP
    denominator, -c) share one Ranking, so each row-level computation runs once
    per grid; results are made read-only, as several conventions hold them.
    """

    @functools.wraps(function)
    def memoised(r: Ranking, *args):
        key = (function.__name__, *args)
        if key not in r.cache:
            value = function(r, *args)
            for array in value if isinstance(value, tuple) else (value,):
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
            r.cache[key] = value
        return r.cache[key]

    return memoised


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
# The trec_eval families irscore computes (all but relstring's strings): the default set.
TREC_FAMILIES = frozenset(TREC_ORDER) - {"runid", "relstring"}


@dataclass(frozen=True)
class MeasureSpec:
    """Which measures to compute, and their cut-offs and parameters (trec_eval's defaults).

    `utility` and `set_F` hold trec_eval's parameter text (`-m utility.1,-1,0,0`),
    None for its defaults: trec_eval names the measure `utility_1,-1,0,0` when the
    parameters are given and plain `utility` when they are not.
    """

    P: tuple[int, ...] = DEFAULT_CUTOFFS
    recall: tuple[int, ...] = DEFAULT_CUTOFFS
    ndcg_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    ndcg_exp_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    map_cut: tuple[int, ...] = DEFAULT_CUTOFFS
    success: tuple[int, ...] = SUCCESS_CUTOFFS
    relative_P: tuple[int, ...] = DEFAULT_CUTOFFS
    Rprec_mult: tuple[float, ...] = RPREC_MULT_CUTOFFS
    utility: str | None = None
    set_F: str | None = None
    judged: tuple[int, ...] = (10,)
    err: tuple[int, ...] = (20,)
    families: frozenset[str] = TREC_FAMILIES


def spec_from_config(config: dict) -> MeasureSpec:
    """A MeasureSpec from config: `families` (default: all irscore computes), cut-offs
    and parameters (`Rprec_mult: [0.5, 1.0]`, `utility: [1, -1, 0, 0]`, `set_F: 0.5`)."""
    config = dict(config)
    known = {f for f in MeasureSpec.__dataclass_fields__ if f != "families"}
    unknown = sorted(set(config) - known - {"families"})
    if unknown:
        raise MeasureError(f"measures: unknown key(s) {', '.join(unknown)}")
    families = frozenset(config.pop("families", ALL_FAMILIES))
    bad = sorted(families - IMPLEMENTED)
    if bad:
        raise MeasureError(f"measures: unknown or unimplemented famil(ies) {', '.join(bad)}")
    params = {key: _parse_params(key, _param_text(value)) for key, value in config.items()}
    return MeasureSpec(families=families, **params)


def _param_text(value) -> str:
    """A config value (a list of numbers, a number or a text) as trec_eval's parameter text."""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)


def gains_of(grades: np.ndarray, gain: str) -> np.ndarray:
    """nDCG gain of each grade: the grade (linear) or 2^g - 1 (exponential); 0 for g <= 0."""
    g = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    return np.exp2(g) - 1.0 if gain == "exponential" else g


def _per_topic_sum(r: Ranking, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of `weights` over each topic's rows, in rank order; `mask` (a boolean array or
    ascending row indices) keeps only some rows."""
    topic = r.topic_of_row
    if mask is not None:
        topic, weights = topic[mask], weights[mask]
    return np.bincount(topic, weights=weights, minlength=len(r.topics)).astype(np.float64)


def _topic_sum(topic: np.ndarray, weights: np.ndarray, n_topics: int) -> np.ndarray:
    """Sum of `weights` per topic, added in array order (float64 even when empty)."""
    return np.bincount(topic, weights=weights, minlength=n_topics).astype(np.float64)


def _cumulative(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Running sum of `values` within each topic (inclusive of the row)."""
    total = np.cumsum(values, dtype=np.float64)
    before = np.concatenate(([0.0], total))[r.starts[:-1]]
    return total - before[r.topic_of_row]


def _segment_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running sum within each segment starts[i]:starts[i+1], added left to right.

    This is the order of trec_eval's loops, so the sums are bit for bit its
    sums; a cumsum over the whole array minus each segment's offset carries
    the rounding of the earlier segments' large totals instead (and can move a
    value across a 4-decimal rounding boundary). Segments are laid out as rows
    of a zero-padded matrix and summed along the rows (one np.cumsum), or one
    segment at a time when padding would cost too much memory.
    """
    values = np.asarray(values, dtype=np.float64)
    lengths = np.diff(starts)
    if len(values) == 0:
        return values.copy()
    width = int(lengths.max())
    if len(lengths) * width <= 4 * len(values) + 4096:
        segment = np.repeat(np.arange(len(lengths)), lengths)
        column = np.arange(len(values)) - starts[:-1][segment]
        grid = np.zeros((len(lengths), width))
        grid[segment, column] = values
        np.cumsum(grid, axis=1, out=grid)
        return grid[segment, column]
    return np.concatenate([np.cumsum(values[a:b]) for a, b in itertools.pairwise(starts)])


@dataclass(frozen=True)
class _Running:
    """Running sums of a row array within each topic, kept only at its non-zero rows.

    `rows` are those rows (ascending), `sums` the running sum at each, added
    topic by topic left to right as trec_eval adds (`_segment_cumsum`).
    """

    rows: np.ndarray
    sums: np.ndarray

    @classmethod
    def of(cls, r: Ranking, values: np.ndarray, nonzero: np.ndarray) -> _Running:
        rows = np.flatnonzero(nonzero)
        counts = np.bincount(r.topic_of_row[rows], minlength=len(r.topics))
        offsets = np.concatenate(([0], np.cumsum(counts)))
        return cls(rows, _segment_cumsum(values[rows], offsets))

    def at(self, r: Ranking, topic: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """The running sum of each `topic` over its top `depth` ranks (0 for depth 0)."""
        end = r.last_row(topic, depth)
        last = np.searchsorted(self.rows, end, side="right") - 1
        found = (end >= 0) & (last >= 0)
        found[found] = self.rows[last[found]] >= r.starts[topic[found]]  # a row of this topic
        return np.where(found, self.sums[np.maximum(last, 0)] if len(self.sums) else 0.0, 0.0)

    def at_cutoff(self, r: Ranking, k: np.ndarray | int) -> np.ndarray:
        """Like `_at_cutoff`: each topic's running sum at rank min(k, length)."""
        topics = np.arange(len(r.topics))
        return self.at(r, topics, np.broadcast_to(np.asarray(k, dtype=np.int64), topics.shape))


def _count_above(r: Ranking, flags: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """How many rows of the same topic above each of `rows` have `flags` (an integer weight)."""
    total = np.cumsum(flags, dtype=np.int64)
    before_topic = np.concatenate(([0], total))[r.starts[:-1]]
    return total[rows] - flags[rows] - before_topic[r.topic_of_row[rows]]


def _at_cutoff(
    r: Ranking, cumulative: np.ndarray, k: np.ndarray | int, starts: np.ndarray | None = None
) -> np.ndarray:
    """Each topic's cumulative value at rank min(k, length); 0 where that is rank 0.

    `starts` gives other per-topic offsets than the ranking's (the ideal ranking's,
    whose rows are its ranks).
    """
    out = np.zeros(len(r.topics), dtype=np.float64)
    if starts is None:
        topics = np.arange(len(r.topics))
        last = r.last_row(topics, np.broadcast_to(np.asarray(k, dtype=np.int64), topics.shape))
        has = last >= 0
        out[has] = cumulative[last[has]]
        return out
    depth = np.minimum(np.asarray(k, dtype=np.int64), np.diff(starts))
    has = depth > 0
    out[has] = cumulative[(starts[:-1] + depth - 1)[has]]
    return out


@per_ranking
def discounted_gain(r: Ranking, gain: str) -> np.ndarray:
    """gain / log2(rank + 1) of each row, 0 for unjudged rows and grades <= 0."""
    rows = np.flatnonzero(r.judged & (r.grade > 0))
    values = np.zeros(len(r.grade))
    values[rows] = gains_of(r.grade[rows], gain) / np.log2(r.rank[rows] + 1.0)
    return values


def _ideal_cumulative(r: Ranking, gain: str) -> tuple[np.ndarray, np.ndarray]:
    """Running DCG of each topic's ideal ranking, and its per-topic offsets."""
    return _ideal_running(r, gain), r.ideal_starts


@per_ranking
def ideal_terms(r: Ranking, gain: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The terms every ideal DCG sums: per ideal position, its topic index, its rank in
    the topic (from 1) and its discounted gain, gain / log2(rank + 1)."""
    counts = np.diff(r.ideal_starts)
    topic = np.repeat(np.arange(len(r.topics)), counts)
    rank = np.arange(len(r.ideal_grade)) - r.ideal_starts[:-1][topic] + 1
    return topic, rank, gains_of(r.ideal_grade, gain) / np.log2(rank + 1.0)


@per_ranking
def _ideal_running(r: Ranking, gain: str) -> np.ndarray:
    return _segment_cumsum(ideal_terms(r, gain)[2], r.ideal_starts)


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
    return tuple(levels)


@per_ranking
def average_precision(r: Ranking, over_retrieved: bool = False) -> np.ndarray:
    """AP: precision at each relevant retrieved rank, summed, over the number relevant.

    `over_retrieved` divides by the relevant documents retrieved instead (a known mistake).
    """
    total = _per_topic_sum(r, r.precision_at_rel, r.rel_rows)
    if over_retrieved:
        return _safe_divide(total, r.num_rel_ret)
    return _safe_divide(total, r.num_rel)


@per_ranking
def bpref(r: Ranking) -> np.ndarray:
    """trec_eval's bpref: judged non-relevant above each relevant, capped at R."""
    rel = r.rel
    before = _count_above(r, r.judged & ~rel, np.flatnonzero(rel)).astype(np.float64)
    topic = r.topic_of_row[rel]
    num_rel = r.num_rel[topic].astype(np.float64)
    cap = np.minimum(r.num_nonrel[topic], r.num_rel[topic]).astype(np.float64)
    penalty = _safe_divide(np.minimum(before, num_rel), cap)
    contribution = np.where(before > 0, 1.0 - penalty, 1.0)
    total = np.bincount(topic, weights=contribution, minlength=len(r.topics))
    return _safe_divide(total, r.num_rel)


@per_ranking
def dcg(r: Ranking, gain: str) -> np.ndarray:
    """Discounted cumulative gain of the ranking: sum of gain / log2(rank + 1)."""
    values = discounted_gain(r, gain)
    return _per_topic_sum(r, values, values > 0)


@per_ranking
def ideal_dcg(r: Ranking, gain: str) -> np.ndarray:
    """DCG of the ideal ranking: every judged positive grade, sorted by gain."""
    topic, _, values = ideal_terms(r, gain)
    return np.bincount(topic, weights=values, minlength=len(r.topics)).astype(np.float64)


@per_ranking
def err(r: Ranking, cutoff: int, gmax: int) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009), R = (2^g - 1) / 2^gmax, 0 for unjudged or g <= 0."""
    grade = np.where(r.judged, np.maximum(r.grade, 0), 0).astype(np.float64)
    stop = (np.exp2(grade) - 1.0) / 2.0**gmax
    rank = r.rank
    keep = rank <= cutoff
    stop = np.minimum(stop, 1.0)
    go_on = pd.Series(1.0 - stop).groupby(r.topic_of_row, sort=False).cumprod().to_numpy()
    first = np.arange(len(rank)) == r.starts[r.topic_of_row]  # rows between add stop 0
    continue_before = np.where(first, 1.0, np.roll(go_on, 1))
    return _per_topic_sum(r, stop * continue_before / rank, keep)


def _lookup(cumulative: np.ndarray, starts: np.ndarray, topic: np.ndarray, depth: np.ndarray):
    """cumulative[starts[topic] + depth - 1] for each entry, 0 where depth is 0."""
    out = np.zeros(len(topic), dtype=np.float64)
    has = depth > 0
    out[has] = cumulative[starts[topic[has]] + depth[has] - 1]
    return out


@per_ranking
def _running_dcg(r: Ranking, gain: str) -> _Running:
    """DCG at each rank within its topic (ndcg_cut, ndcg_rel, Rndcg share it)."""
    values = discounted_gain(r, gain)
    return _Running.of(r, values, values > 0)


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
    judged_above = _count_above(r, r.judged, rows)
    nonrel_above = judged_above - rel_above
    unjudged_above = (_count_above(r, r.pool, rows) - judged_above).astype(np.float64)
    j = (r.rank[rows] - 1).astype(np.float64)
    safe_j = np.where(j > 0, j, 1.0)
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
        (rel_above + nonrel_above + unjudged_above) / safe_j
    ) * ((rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    total = _topic_sum(r.topic_of_row[rows], term, len(r.topics))
    return np.where(r.num_rel > 0, _safe_divide(total, r.num_rel), total)


@per_ranking
def binary_g(r: Ranking) -> np.ndarray:
    """trec_eval's binG: 1/log2(2 + non-relevant above) over the relevant rows, / R."""
    rows = r.rel_rows
    nonrel_above = r.rank[rows] - r.cumrel[rows]
    term = 1.0 / np.log2(2.0 + nonrel_above)
    total = _topic_sum(r.topic_of_row[rows], term, len(r.topics))
    return _safe_divide(total, r.num_rel)


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
    gained = (_count_above(r, gain, rows) + gain[rows]).astype(np.float64)  # integers: exact
    within = np.minimum(rank, ideal_len[topic])
    cost = _lookup(ideal_running, r.ideal_starts, topic, within) + (rank - within)
    term = gain[rows] / np.log2(2.0 + cost - gained)
    total = _topic_sum(topic, term, len(r.topics))
    ideal_total = _topic_sum(ideal_topic, ideal_gain, len(r.topics))
    return _safe_divide(total, ideal_total)


@per_ranking
def ndcg_over_relevant(r: Ranking, gain: str, ideal_from_run: bool) -> np.ndarray:
    """trec_eval's ndcg_rel: nDCG averaged over the P documents of positive gain.

    A retrieved document of positive gain at rank k contributes DCG@k / IDCG@min(k, P);
    each of the others contributes DCG@end / IDCG (the whole ranking's nDCG).
    """
    ideal = ideal_of(r, ideal_from_run)
    running = _running_dcg(r, gain)
    ideal_running, ideal_starts = _ideal_cumulative(ideal, gain)
    ideal_len = np.diff(ideal_starts)
    rows = running.rows  # the rows of positive gain
    topic = r.topic_of_row[rows]
    within = np.minimum(r.rank[rows], ideal_len[topic])
    term = running.sums / _lookup(ideal_running, ideal_starts, topic, within)
    total = _topic_sum(topic, term, len(r.topics))
    found = np.bincount(topic, minlength=len(r.topics))
    has = ideal_len > 0
    dcg_end = running.at_cutoff(r, r.lengths)
    ideal_end = _at_cutoff(r, ideal_running, ideal_len, ideal_starts)
    total[has] += (ideal_len - found)[has].astype(np.float64) * dcg_end[has] / ideal_end[has]
    return np.where(total > 0, _safe_divide(total, ideal_len), 0.0)


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
    running = _running_dcg(r, gain)
    ideal_running, ideal_starts = _ideal_cumulative(ideal, gain)
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
    total = _topic_sum(topic, term, len(r.topics))
    count = np.bincount(topic, minlength=len(r.topics)).astype(np.float64)
    end = (r.lengths > ideal_len + 1) & (ideal_len > 0)
    dcg_end = running.at_cutoff(r, r.lengths)
    ideal_end = _at_cutoff(r, ideal_running, ideal_len, ideal_starts)
    total[end] += dcg_end[end] / ideal_end[end]
    count[end] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = total / count
    return np.where(r.num_rel == 0, 0.0, value)


def rprec_mult_cutoffs(fraction: float, num_rel: np.ndarray) -> np.ndarray:
    """Rprec_mult's cut-off for a multiple of R: (long)(fraction * R + 0.9), as trec_eval."""
    return np.trunc(fraction * num_rel.astype(np.float64) + 0.9).astype(np.int64)


def rprec_mult_name(fraction: float) -> str:
    """trec_eval's name: `%s_%3.2f` into a buffer of len(name) + 10 bytes (so cut short)."""
    return f"Rprec_mult_{fraction:3.2f}"[: len("Rprec_mult") + 9]


def parameter_name(family: str, text: str | None) -> str:
    """`utility` / `set_F` as trec_eval names them: with `_params` when params were given."""
    return family if text is None else f"{family}_{text}"


def _float_params(text: str | None, default: tuple[float, ...]) -> tuple[float, ...]:
    return default if text is None else tuple(float(v) for v in text.split(","))


def compute(
    r: Ranking,
    spec: MeasureSpec,
    rule: str = "trec_eval9",
    mistake: str | None = None,
    gmax: int = 4,
    gain: str = "linear",
) -> dict[str, np.ndarray]:
    """Every measure of `spec` for every topic of the ranking: {name: array over topics}.

    `gain` is the gain of the `ndcg` family (`ndcg_exp` is always exponential).
    The order is trec_eval's print order (TREC_ORDER), irscore's extras after
    the trec_eval family they vary.
    """
    fam = spec.families
    cumrel = r.cumrel
    num_ret = r.lengths.astype(np.float64)
    num_rel = r.num_rel.astype(np.float64)
    num_rel_ret = r.num_rel_ret
    out: dict[str, np.ndarray] = {}
    if "num_q" in fam:
        out["num_q"] = np.ones(len(r.topics))
    if "num_ret" in fam:
        out["num_ret"] = num_ret
    if "num_rel" in fam:
        out["num_rel"] = num_rel
    if "num_rel_ret" in fam:
        out["num_rel_ret"] = num_rel_ret
    ap = average_precision(r, mistake == "ap_over_retrieved")
    if "map" in fam:
        out["map"] = ap
    if "gm_map" in fam:
        out["gm_map"] = ap
    if "Rprec" in fam:
        out["Rprec"] = _safe_divide(_at_cutoff(r, cumrel, r.num_rel), r.num_rel)
    bpref_values = bpref(r) if fam & {"bpref", "gm_bpref"} else None
    if "bpref" in fam:
        out["bpref"] = bpref_values
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
    if "infAP" in fam:
        out["infAP"] = inferred_ap(r)
    if "gm_bpref" in fam:
        out["gm_bpref"] = bpref_values
    for fraction in spec.Rprec_mult if "Rprec_mult" in fam else ():
        # cut-off 0 (or below, for a negative multiple) leaves trec_eval's 0
        cutoff = rprec_mult_cutoffs(fraction, r.num_rel)
        found = _at_cutoff(r, cumrel, cutoff)
        out[rprec_mult_name(fraction)] = _safe_divide(found, np.maximum(cutoff, 0))
    if "utility" in fam:
        a, b, c, d = _float_params(spec.utility, UTILITY_DEFAULT)
        nonrel_ret, rel_missed = num_ret - num_rel_ret, num_rel - num_rel_ret
        rest = num_rel_ret - num_ret - num_rel  # + the collection size, which is not known: 0
        out[parameter_name("utility", spec.utility)] = (
            a * num_rel_ret + b * nonrel_ret + c * rel_missed + d * rest
        )
    if "11pt_avg" in fam:
        out["11pt_avg"] = np.mean(levels, axis=0)
    if "binG" in fam:
        out["binG"] = binary_g(r)
    if "G" in fam:
        out["G"] = normalised_gain(r)
    from_run = mistake == "ideal_from_run"
    ideal = ideal_of(r, from_run)
    for family, family_gain in (("ndcg", gain), ("ndcg_exp", "exponential")):
        prefix = "ndcg_exp" if family_gain == "exponential" else "ndcg"
        if family in fam:
            out[prefix] = _safe_divide(dcg(r, family_gain), ideal_dcg(ideal, family_gain))
        if family == "ndcg" and "ndcg_rel" in fam:
            out["ndcg_rel"] = ndcg_over_relevant(r, family_gain, from_run)
        if family == "ndcg" and "Rndcg" in fam:
            out["Rndcg"] = ndcg_at_r_levels(r, family_gain, from_run)
        cutoffs = getattr(spec, f"{family}_cut") if f"{family}_cut" in fam else ()
        if cutoffs:
            running = _running_dcg(r, family_gain)
            ideal_running, ideal_starts = _ideal_cumulative(ideal, family_gain)
        for k in cutoffs:
            best = _at_cutoff(r, ideal_running, k, ideal_starts)
            out[f"{prefix}_cut_{k}"] = _safe_divide(running.at_cutoff(r, k), best)
    if "map_cut" in fam and spec.map_cut:
        running = _ap_running(r)
        for k in spec.map_cut:
            denominator = _at_cutoff(r, cumrel, k) if mistake == "ap_over_retrieved" else r.num_rel
            out[f"map_cut_{k}"] = _safe_divide(running.at_cutoff(r, k), denominator)
    for k in spec.relative_P if "relative_P" in fam else ():
        out[f"relative_P_{k}"] = _safe_divide(_at_cutoff(r, cumrel, k), np.minimum(k, num_rel))
    for k in spec.success if "success" in fam else ():
        out[f"success_{k}"] = (_at_cutoff(r, cumrel, k) > 0).astype(np.float64)
    if "set_P" in fam:
        out["set_P"] = _safe_divide(num_rel_ret, num_ret)
    if "set_relative_P" in fam:
        out["set_relative_P"] = _safe_divide(num_rel_ret, np.minimum(num_ret, num_rel))
    if "set_recall" in fam:
        out["set_recall"] = _safe_divide(num_rel_ret, num_rel)
    if "set_map" in fam:
        out["set_map"] = _safe_divide(num_rel_ret * num_rel_ret, num_ret * num_rel)
    if "set_F" in fam:
        (beta,) = _float_params(spec.set_F, (SET_F_DEFAULT,))
        precision = _safe_divide(num_rel_ret, num_ret)
        recall = _safe_divide(num_rel_ret, num_rel)
        with np.errstate(invalid="ignore", divide="ignore"):  # as C, for a beta < 0
            f_value = (beta + 1.0) * precision * recall / (beta * precision + recall)
        out[parameter_name("set_F", spec.set_F)] = np.where(num_rel_ret > 0, f_value, 0.0)
    if "num_nonrel_judged_ret" in fam:
        out["num_nonrel_judged_ret"] = _nonrel_judged_retrieved(r)
    for k in spec.err if "err" in fam else ():
        out[f"err_{k}"] = err(r, k, gmax)
    for k in spec.judged if "judged" in fam else ():
        out[f"judged_{k}"] = _at_cutoff(r, _judged_cumulative(r), k) / k
    return out


@per_ranking
def _ap_running(r: Ranking) -> _Running:
    """AP's running sum of precision at the relevant rows (map_cut's numerators)."""
    return _Running.of(r, r.precision_at_rel, r.rel)


@per_ranking
def _nonrel_judged_retrieved(r: Ranking) -> np.ndarray:
    """Judged non-relevant documents retrieved, per topic."""
    return _per_topic_sum(r, (r.judged & ~r.rel).astype(np.float64))


@per_ranking
def _judged_cumulative(r: Ranking) -> np.ndarray:
    """Judged documents at or above each row's rank, within its topic."""
    return _cumulative(r, r.judged.astype(np.float64))


@per_ranking
def reciprocal_rank(r: Ranking) -> np.ndarray:
    """1 / rank of the first relevant retrieved document, 0 when there is none."""
    rel_rows = r.rel_rows
    topics, first = np.unique(r.topic_of_row[rel_rows], return_index=True)
    out = np.zeros(len(r.topics))
    out[topics] = 1.0 / r.rank[rel_rows[first]]
    return out


def ideal_of(r: Ranking, from_run: bool) -> Ranking:
    """The ranking whose ideal grades nDCG divides by: `r` itself, or (the mistake
    of building the ideal only from the retrieved documents) a copy with those."""
    return _ideal_from_run(r) if from_run else r


@per_ranking
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
    """trec_eval's `all` value: sums for counts, exp-mean-log for gm_map and gm_bpref,
    else the mean.

    `num_rel_all_qrels` reproduces trec_eval -c, whose `all` num_rel counts the
    grade > 0 judgments of every qrels topic, whatever the relevance level.
    """
    if name == "num_q":
        return float(len(values))
    if name in ("num_ret", "num_rel_ret", "num_nonrel_judged_ret"):
        return float(np.sum(values))
    if name == "num_rel":
        return float(np.sum(values)) if num_rel_all_qrels is None else num_rel_all_qrels
    if len(values) == 0:
        return 0.0
    if name in GEOMETRIC_MEASURES:
        return float(np.exp(np.mean(np.log(np.maximum(values, MIN_GEO_MEAN)))))
    return float(np.sum(values) / len(values))


class MeasureError(ValueError):
    """A measure request that irscore does not know or cannot compute."""


OFFICIAL = TREC_ORDER[: TREC_ORDER.index("P") + 1]
ALL_TREC = tuple(TREC_ORDER)
EXTRA = ("ndcg_exp", "ndcg_exp_cut", "err", "judged")
# relstring (the first grades of the ranking as a string, printed per topic only)
# is not a number, so it has no place in the long table of values: not implemented.
IMPLEMENTED = TREC_FAMILIES | {"runid", *EXTRA}
ALL_FAMILIES = IMPLEMENTED - {"runid"}
CUTOFF_FAMILIES = (
    "P",
    "recall",
    "ndcg_cut",
    "ndcg_exp_cut",
    "map_cut",
    "relative_P",
    "success",
    "err",
    "judged",
)
# families whose -m parameters are something other than integer cut-offs: how many numbers
FLOAT_PARAM_FAMILIES = {"Rprec_mult": None, "utility": 4, "set_F": 1}
INTEGER_MEASURES = frozenset(
    {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
)
GEOMETRIC_MEASURES = frozenset({"gm_map", "gm_bpref"})


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
            if name not in CUTOFF_FAMILIES and name not in FLOAT_PARAM_FAMILIES:
                raise MeasureError(f"measure {name} takes no parameters (in -m {request})")
            cutoffs[name] = _parse_params(name, params)
    return MeasureSpec(families=frozenset(families), **cutoffs), missing


def _parse_params(name: str, params: str):
    """The MeasureSpec value of `-m name.params` (or of a config entry, as text)."""
    if name in CUTOFF_FAMILIES:
        return _parse_cutoffs(name, params)
    if name == "Rprec_mult":
        return _parse_multiples(params)
    count = FLOAT_PARAM_FAMILIES[name]
    values = _parse_floats(name, params)
    if len(values) != count:
        raise MeasureError(f"{name} takes {count} number(s), got {params!r}")
    return params  # the text: trec_eval names the measure after it


def _parse_floats(name: str, params: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in params.split(","))
    except ValueError:
        raise MeasureError(f"parameters of {name} must be numbers: {params!r}") from None
    if not all(np.isfinite(values)):
        raise MeasureError(f"parameters of {name} must be finite numbers: {params!r}")
    return values


def _parse_multiples(params: str) -> tuple[float, ...]:
    """Rprec_mult's multiples of R, sorted like trec_eval's; equal printed names refused."""
    values = tuple(sorted(_parse_floats("Rprec_mult", params)))
    names = [rprec_mult_name(v) for v in values]
    if len(set(names)) != len(names):
        raise MeasureError(f"multiples of Rprec_mult must print distinct names: {params!r}")
    return values


def _parse_cutoffs(name: str, params: str) -> tuple[int, ...]:
    """Positive distinct integer cut-offs, sorted ascending as trec_eval sorts them."""
    try:
        values = tuple(int(v) for v in params.split(","))
    except ValueError:
        raise MeasureError(f"cut-offs of {name} must be positive integers: {params!r}") from None
    if any(v < 1 for v in values) or len(set(values)) != len(values):
        raise MeasureError(f"cut-offs of {name} must be positive and distinct: {params!r}")
    return tuple(sorted(values))
