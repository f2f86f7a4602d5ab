"""The discounted-gain measures under a `level=gain` map (`-m ndcg.1=3,2=9,4=4.5`), as
m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c and m_G.c compute them: topic by topic, the
gains of the levels sorted as trec_eval sorts them, the ideal ranking walked
level by level.

trec_eval sorts the levels with qsort and a comparator returning the difference
of two gains as an int: gains less than 1 apart compare equal, and glibc's
qsort (a stable merge sort for arrays this small) keeps such levels in the
order it found them (the map's levels first, then the others in increasing
order). `sorted_levels` reproduces that, so the ideal ranking is trec_eval's
even where that order is not the best one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from irscore.engine.measures.ranking import Ranking

_LEVEL = re.compile(r"[0-9]+")


def parse_gains(text: str) -> tuple[tuple[int, float], ...]:
    """The (level, gain) pairs of `1=3,2=9,4=4.5`, in their order; ValueError when a
    level is not a whole number >= 0 (negative levels are unjudged documents, which
    irscore gives no gain), given twice, or a gain is not a finite number."""
    pairs = []
    for item in text.split(","):
        level, sep, gain = item.partition("=")
        if not sep or not _LEVEL.fullmatch(level):
            raise ValueError(f"{item!r} is not LEVEL=GAIN with a whole LEVEL >= 0")
        value = float(gain)
        if not np.isfinite(value):
            raise ValueError(f"the gain of {item!r} is not a finite number")
        pairs.append((int(level), value))
    if len({level for level, _ in pairs}) != len(pairs):
        raise ValueError("a level is given twice")
    return tuple(pairs)


def _c_compare(a: float, b: float) -> int:
    """m_*.c's comp_rel_gain: the difference of the gains converted to int (toward 0)."""
    return int(a - b)


def _merge_sort(items: list, key: Callable) -> list:
    """glibc's msort: top-down, the left half first, the left item taken on `<= 0`."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _merge_sort(items[:half], key), _merge_sort(items[half:], key)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _c_compare(key(left[i]), key(right[j])) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def sorted_levels(
    pairs: tuple[tuple[int, float], ...], counts: np.ndarray, default: Callable[[int], float]
) -> list[tuple[int, int, float]]:
    """(level, judged documents at it, gain) of the map's levels and of every level from 0
    to the topic's highest judged level (`counts[level]`), in trec_eval's sorted order."""
    given = dict(pairs)
    entries = [(level, int(counts[level]) if level < len(counts) else 0, g) for level, g in pairs]
    entries += [
        (level, int(counts[level]), default(level))
        for level in range(len(counts))
        if level not in given
    ]
    return _merge_sort(entries, key=lambda entry: entry[2])


def ideal_gains(levels: list[tuple[int, int, float]]) -> np.ndarray:
    """The gains of the ideal ranking, position by position, as trec_eval walks them: from
    the last sorted level down, each level's documents, until a level with documents
    and a gain <= 0 (or, first of all, a last level whose gain is <= 0)."""
    out: list[float] = []
    if not levels or levels[-1][2] <= 0.0:
        return np.zeros(0)
    for _, count, gain in reversed(levels):
        if count == 0:
            continue
        if gain <= 0.0:
            break
        out += [gain] * count
    return np.array(out, dtype=np.float64)


def _running(values: np.ndarray) -> np.ndarray:
    """Sums added one term at a time (trec_eval's `+=`)."""
    return np.cumsum(values) if len(values) else np.zeros(0)


class _Topic:
    """One topic's ranking under a gain map: the gain at each rank, the ideal gains."""

    def __init__(self, gains: np.ndarray, ideal: np.ndarray):
        self.gains, self.ideal = gains, ideal
        self.discount = np.log2(np.arange(2, max(len(gains), len(ideal)) + 2, dtype=np.float64))

    def dcg(self) -> np.ndarray:
        """DCG after each rank (a zero gain adds nothing)."""
        terms = np.where(self.gains != 0, self.gains / self.discount[: len(self.gains)], 0.0)
        return _running(terms)

    def ideal_dcg(self) -> np.ndarray:
        return _running(self.ideal / self.discount[: len(self.ideal)])


def _ndcg(t: _Topic) -> float:
    dcg, ideal = t.dcg(), t.ideal_dcg()
    total = float(ideal[-1]) if len(ideal) else 0.0
    return float(dcg[-1]) / total if total > 0.0 and len(dcg) else 0.0


def _ndcg_rel(t: _Topic) -> float:
    """m_ndcg_rel.c: DCG/IDCG at each rank of positive gain, and at the end of the ranking
    for each document of the ideal ranking not retrieved, averaged over the ideal's."""
    dcg, ideal = t.dcg(), t.ideal_dcg()
    n, p = len(dcg), len(ideal)
    ideal_at = np.concatenate((ideal, np.full(max(n - p, 0), ideal[-1] if p else 0.0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        total = 0.0
        for k in np.flatnonzero(t.gains > 0):
            total += dcg[k] / ideal_at[k]
        found = int((t.gains > 0).sum())
        end = dcg[-1] if n else np.float64(0.0)
        ideal_end = ideal[-1] if p else np.float64(0.0)
        total += np.float64(p - found) * end / ideal_end
        return float(total / np.float64(p)) if total > 0.0 else 0.0


def _rndcg(t: _Topic, has_relevant: bool) -> float:
    """m_Rndcg.c: nDCG where the ideal gain changes (before that rank's gains), and at
    the end of the ranking when the ranking goes on past the ideal's last change."""
    if not has_relevant:
        return 0.0
    n, p = len(t.gains), len(t.ideal)
    dcg, ideal = np.r_[0.0, t.dcg()], np.r_[0.0, t.ideal_dcg()]
    walk = np.r_[t.ideal, 0.0]  # the ideal gain at each position, then 0 for good
    before = np.r_[walk[:1], walk[:-1]]
    changes = np.flatnonzero(walk != before)  # positions where the ideal gain changes
    total, points = 0.0, 0
    for i in changes:  # nDCG at depth i (the whole run when it is shorter)
        if ideal[i] > 0.0:
            total += dcg[min(i, n)] / ideal[i]
            points += 1
    if n > p + 1 and ideal[p] > 0.0:  # the walk left the ideal before the end of the run
        total += dcg[n] / ideal[p]
        points += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(total) / np.float64(points))


def _g(t: _Topic) -> float:
    """m_G.c: each rank's gain / log2(2 + cost - gained), cost the ideal gains so far
    (at least 1 a position), gained the run's; divided by the ideal's total gain."""
    n, p = len(t.gains), len(t.ideal)
    steps = np.ones(n)
    ideal_part = t.ideal[: min(n, p)]
    steps[: len(ideal_part)] = np.maximum(ideal_part, 1.0)
    cost, gained = _running(steps), _running(t.gains)
    total = 0.0
    for k in np.flatnonzero(t.gains != 0):
        total += t.gains[k] / np.log2(2.0 + cost[k] - gained[k])
    ideal_total = float(_running(t.ideal)[-1]) if p else 0.0
    return total / ideal_total if ideal_total > 0.0 else 0.0


def _dcg(t: _Topic) -> float:
    dcg = t.dcg()
    return float(dcg[-1]) if len(dcg) else 0.0


def _ideal_dcg(t: _Topic) -> float:
    ideal = t.ideal_dcg()
    return float(ideal[-1]) if len(ideal) else 0.0


MEASURES = {
    "ndcg": _ndcg,
    "dcg": _dcg,
    "ideal_dcg": _ideal_dcg,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "G": _g,
}


def per_topic(
    r: Ranking, family: str, text: str, default: Callable[[int], float], from_run: Ranking
) -> np.ndarray:
    """`family` under the gain map `text` for every topic of `r` (a pooled ranking: rows
    without a qrels line have gain 0 and need not be there); `from_run` is the ranking
    whose judged grades make the ideal (`r`, or the retrieved documents only)."""
    pairs = parse_gains(text)
    measure = MEASURES[family]
    out = np.zeros(len(r.topics))
    grade = np.where(r.judged, r.grade, -1)
    ideal_len = np.diff(from_run.ideal_starts)
    zero_level = _zero_level_counts(r, from_run)
    for t in range(len(r.topics)):
        positive = from_run.ideal_grade[from_run.ideal_starts[t] : from_run.ideal_starts[t + 1]]
        counts = np.bincount(positive, minlength=1) if ideal_len[t] else np.zeros(1, np.int64)
        counts[0] = zero_level[t]
        # levels 0 to the highest judged one (none judged: trec_eval lists only the map's)
        counts = counts[: int(np.flatnonzero(counts)[-1]) + 1 if counts.any() else 0]
        levels = sorted_levels(pairs, counts, default)
        gain_of = {level: g for level, _, g in levels}
        rows = slice(r.starts[t], r.starts[t + 1])
        gains = np.zeros(int(r.lengths[t]))
        row_grade = grade[rows]
        gains[r.rank[rows] - 1] = [gain_of.get(int(g), 0.0) for g in row_grade]
        topic = _Topic(gains, ideal_gains(levels))
        out[t] = measure(topic, r.num_rel[t] > 0) if family == "Rndcg" else measure(topic)
    return out


def _zero_level_counts(r: Ranking, from_run: Ranking) -> np.ndarray:
    """Judged documents of grade 0 per topic: of the qrels, or of the retrieved ones when
    the ideal is built from the run."""
    if from_run is r:
        return r.num_rel + r.num_nonrel - np.diff(r.ideal_starts)
    zero = r.judged & (r.grade == 0)
    return np.bincount(r.topic_of_row[zero], minlength=len(r.topics))
