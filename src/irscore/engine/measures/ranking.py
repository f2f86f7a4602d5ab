"""The ranked documents of every evaluated topic, and the vectorised pieces all measures share.

Every evaluated topic's ranking is a contiguous slice of the row arrays of a
`Ranking`; measures are computed for all topics at once with cumulative sums
and `np.bincount`, never with a Python loop over documents. Sums are added in
trec_eval's order where the order can move a bit (`segment_cumsum`).
"""

from __future__ import annotations

import functools
import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np


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
    each row's rank, `num_ret` the number of documents retrieved per topic and
    `whole` the ranking with every row.
    `depth` is trec_eval's -M, not yet applied: `cut` applies it. `tie_score`
    holds each row's score at the precision ties are decided at (the tied groups
    of the `expected` forms), None when nothing asks for them.
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
    depth: int | None = None
    tie_score: np.ndarray | None = None
    in_pool: np.ndarray | None = None
    row_rank: np.ndarray | None = None
    num_ret: np.ndarray | None = None
    whole_ref: weakref.ref | None = field(default=None, repr=False, compare=False)
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def whole(self) -> Ranking | None:
        """The ranking with every row, for a `pooled` one (held weakly: the whole ranking
        caches its pooled one, and a cycle would wait for the cyclic collector)."""
        return None if self.whole_ref is None else self.whole_ref()

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

    @property
    def cut(self) -> Ranking:
        """This ranking without the documents ranked below `depth` (-M); itself without one
        (not cached: a ranking holding itself would wait for the cyclic collector)."""
        return self if self.depth is None else self._cut

    @cached_property
    def _cut(self) -> Ranking:
        return self._select(self.rank <= self.depth)

    def without_unjudged(self) -> Ranking:
        """This ranking cut at `depth`, then without its unjudged documents (-J), as trec_eval
        cuts before it drops: the ranks of the documents left close up."""
        cut = self.cut
        return cut._select(cut.judged)

    def _select(self, keep: np.ndarray) -> Ranking:
        """The rows `keep` (a boolean mask over a ranking of whole rows), ranked anew."""
        counts = np.bincount(self.topic_of_row[keep], minlength=len(self.topics))
        rows = {
            name: None if getattr(self, name) is None else getattr(self, name)[keep]
            for name in ("grade", "judged", "in_pool", "tie_score")
        }
        return replace(
            self,
            starts=np.concatenate(([0], np.cumsum(counts))),
            depth=None,
            cache={},
            **rows,
        )

    @cached_property
    def tie_group(self) -> np.ndarray:
        """The index of each row's group of equal (topic, tie score), groups in rank order."""
        if self.tie_score is None:
            raise ValueError("this ranking was built without tie scores")
        topic, score = self.topic_of_row, self.tie_score
        new = np.r_[True, (topic[1:] != topic[:-1]) | (score[1:] != score[:-1])][: len(score)]
        return np.cumsum(new) - 1

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
            tie_score=None,
            row_rank=self.rank[keep],
            num_ret=self.lengths,
            whole_ref=weakref.ref(self),
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

    def last_row_at(self, k: int) -> np.ndarray:
        """`last_row` of every topic at the cut-off k, memoised: P, recall, nDCG and the
        other cut-off families ask for the same cut-offs (a search per topic each)."""
        key = ("last_row_at", k)
        if key not in self.cache:
            topics = np.arange(len(self.topics))
            self.cache[key] = self.last_row(topics, np.full(len(topics), k, dtype=np.int64))
        return self.cache[key]

    @cached_property
    def rel(self) -> np.ndarray:
        return self.judged & (self.grade >= self.rel_level)

    @cached_property
    def cumrel(self) -> np.ndarray:
        """Relevant documents at or above each row's rank, within its topic."""
        return topic_cumsum(self, self.rel)

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
        key = (function, *args)
        if key not in r.cache:
            value = function(r, *args)
            for array in value if isinstance(value, tuple) else (value,):
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
            r.cache[key] = value
        return r.cache[key]

    return memoised


def per_topic_sum(r: Ranking, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of `weights` over each topic's rows, in rank order; `mask` (a boolean array or
    ascending row indices) keeps only some rows."""
    topic = r.topic_of_row
    if mask is not None:
        topic, weights = topic[mask], weights[mask]
    return np.bincount(topic, weights=weights, minlength=len(r.topics)).astype(np.float64)


def topic_sum(topic: np.ndarray, weights: np.ndarray, n_topics: int) -> np.ndarray:
    """Sum of `weights` per topic, added in array order (float64 even when empty)."""
    return np.bincount(topic, weights=weights, minlength=n_topics).astype(np.float64)


def topic_cumsum(r: Ranking, values: np.ndarray) -> np.ndarray:
    """Running sum of `values` within each topic (inclusive of the row)."""
    total = np.cumsum(values, dtype=np.float64)
    before = np.concatenate(([0.0], total))[r.starts[:-1]]
    return total - before[r.topic_of_row]


def segment_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
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
class Running:
    """Running sums of a row array within each topic, kept only at its non-zero rows.

    `rows` are those rows (ascending), `sums` the running sum at each, added
    topic by topic left to right as trec_eval adds (`segment_cumsum`).
    """

    rows: np.ndarray
    sums: np.ndarray

    @classmethod
    def of(cls, r: Ranking, values: np.ndarray, nonzero: np.ndarray) -> Running:
        rows = np.flatnonzero(nonzero)
        counts = np.bincount(r.topic_of_row[rows], minlength=len(r.topics))
        offsets = np.concatenate(([0], np.cumsum(counts)))
        return cls(rows, segment_cumsum(values[rows], offsets))

    def at(self, r: Ranking, topic: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """The running sum of each `topic` over its top `depth` ranks (0 for depth 0)."""
        return self._through(r, topic, r.last_row(topic, depth))

    def _through(self, r: Ranking, topic: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The running sum of each `topic` through row `end` of the ranking (-1: none)."""
        last = np.searchsorted(self.rows, end, side="right") - 1
        found = (end >= 0) & (last >= 0)
        found[found] = self.rows[last[found]] >= r.starts[topic[found]]  # a row of this topic
        return np.where(found, self.sums[np.maximum(last, 0)] if len(self.sums) else 0.0, 0.0)

    def at_cutoff(self, r: Ranking, k: np.ndarray | int) -> np.ndarray:
        """Like `at_cutoff`: each topic's running sum at rank min(k, length)."""
        topics = np.arange(len(r.topics))
        if np.ndim(k) == 0:
            return self._through(r, topics, r.last_row_at(int(k)))
        return self.at(r, topics, np.broadcast_to(np.asarray(k, dtype=np.int64), topics.shape))


def max_to_segment_end(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """The maximum of `values` from each entry to the end of its segment (`segment`:
    non-decreasing ids), by doubling steps over shifted copies: log2(n) vectorised
    passes, exact (a maximum rounds nothing), and no pandas groupby to import."""
    out = np.array(values, dtype=np.float64)
    shift = 1
    while shift < len(out):
        ahead = np.where(segment[shift:] == segment[:-shift], out[shift:], out[:-shift])
        np.maximum(out[:-shift], ahead, out=out[:-shift])
        shift *= 2
    return out


def count_above(r: Ranking, flags: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """How many rows of the same topic above each of `rows` have `flags` (an integer weight)."""
    total = np.cumsum(flags, dtype=np.int64)
    before_topic = np.concatenate(([0], total))[r.starts[:-1]]
    return total[rows] - flags[rows] - before_topic[r.topic_of_row[rows]]


def at_cutoff(
    r: Ranking, cumulative: np.ndarray, k: np.ndarray | int, starts: np.ndarray | None = None
) -> np.ndarray:
    """Each topic's cumulative value at rank min(k, length); 0 where that is rank 0.

    `starts` gives other per-topic offsets than the ranking's (the ideal ranking's,
    whose rows are its ranks).
    """
    out = np.zeros(len(r.topics), dtype=np.float64)
    if starts is None:
        if np.ndim(k) == 0:
            last = r.last_row_at(int(k))
        else:
            topics = np.arange(len(r.topics))
            last = r.last_row(topics, np.asarray(k, dtype=np.int64))
        has = last >= 0
        out[has] = cumulative[last[has]]
        return out
    depth = np.minimum(np.asarray(k, dtype=np.int64), np.diff(starts))
    has = depth > 0
    out[has] = cumulative[(starts[:-1] + depth - 1)[has]]
    return out


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's convention)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def lookup(cumulative: np.ndarray, starts: np.ndarray, topic: np.ndarray, depth: np.ndarray):
    """cumulative[starts[topic] + depth - 1] for each entry, 0 where depth is 0."""
    out = np.zeros(len(topic), dtype=np.float64)
    has = depth > 0
    out[has] = cumulative[starts[topic[has]] + depth[has] - 1]
    return out


@dataclass(frozen=True)
class Context:
    """The decisions of a convention that measures read after ranking, and the size of
    the collection (trec_eval's -N, which only utility reads; 0 when not given)."""

    interpolation: str = "trec_eval9"
    mistake: str | None = None
    gmax: int = 4
    gain: str = "linear"
    collection_size: int = 0
