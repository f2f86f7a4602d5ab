"""A prepared run ranked under a convention: the order of its rows (score at the
convention's precision, then its tie-break), cut at -M and -J, as the `Ranking` the
measures read; with the notes of what the convention did to the input.

Orders and rankings are memoised on the `Prepared` by the decisions that shape
them, so a grid of conventions sorts once per distinct tie-break and ranks once
per distinct ranking.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from irscore.engine.measures import Ranking
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.ranking.prepare import Prepared
from irscore.engine.reading.errors import InputError
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.system import arrays, joins
from irscore.engine.system import arrow_compute as ac

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NOT_JUDGED = joins.NOT_JUDGED


class DuplicateDocumentError(InputError):
    """The same docno twice for one topic of a run (trec_eval refuses this too)."""


@dataclass
class Notes:
    """What a convention did to the input besides scoring it, for the checks section."""

    run_topics_without_qrels: list[str] = field(default_factory=list)
    qrels_topics_without_run: list[str] = field(default_factory=list)
    duplicates_dropped: int = 0
    non_numeric_docnos: int = 0
    not_computed: list[str] = field(default_factory=list)
    # How run and qrels meet, for `input_checks`: the topics with both, their results,
    # the results the qrels judge, and the topics with a judged document among them.
    shared_topics: int = 0
    retrieved: int = 0
    retrieved_judged: int = 0
    topics_with_judged: int = 0


def map_grades(grades: np.ndarray, mapping: str) -> np.ndarray:
    """Reinterpret qrels grades: `cranfield_cleverdon` maps Cleverdon's 1 (complete answer)
    .. 5 (no interest) to 4 .. 0, and -1 (ir_datasets' "no interest") to 0."""
    if mapping == "raw":
        return grades
    judged = grades != NOT_JUDGED
    out = grades.copy()
    between = judged & (grades >= 1) & (grades <= 5)
    out[between] = 5 - grades[between]
    out[judged & (grades == -1)] = 0
    return out


def grades_under(p: Prepared, mapping: str) -> tuple[np.ndarray, np.ndarray]:
    """The qrels' and the run rows' grades under a grade mapping (memoised on `p`)."""
    if mapping not in p.grades:
        p.grades[mapping] = (map_grades(p.qrels_grade, mapping), map_grades(p.run_grade, mapping))
    return p.grades[mapping]


def _numeric_key(p: Prepared, notes: Notes) -> np.ndarray:
    """Docnos in ascending numeric order where numeric, the rest after them in string order.

    Numbers compare exactly (as decimals), so long integer ids do not collide
    the way they would as float64. Each distinct docno is parsed once.
    """
    encoded = ac.dictionary_encode(p.run_docno.array)
    labels = encoded.dictionary.to_pylist()
    numbers = [_decimal(docno) for docno in labels]
    codes = arrays.numpy_view(encoded.indices)
    used = np.bincount(codes, minlength=len(labels)) > 0  # a shared dictionary has more
    notes.non_numeric_docnos = sum(n is None for n, u in zip(numbers, used, strict=True) if u)
    order = sorted(
        range(len(numbers)),
        key=lambda i: (numbers[i] is None, numbers[i] if numbers[i] is not None else 0, labels[i]),
    )
    key = np.empty(len(numbers), dtype=np.int64)
    key[order] = np.arange(len(numbers))
    return key[codes]


def _decimal(docno: str) -> Decimal | None:
    """The docno as an exact decimal number, or None when it is not one."""
    if not _NUMBER.fullmatch(docno):
        return None
    return Decimal(docno)


def _order(p: Prepared, c: Convention, has_qrels: np.ndarray, grade: np.ndarray, notes: Notes):
    """The run rows of judged topics sorted by topic, score descending, then the tie-break.

    The order depends on few fields of the convention, so it is memoised on
    `p`: a grid of conventions sorts once per distinct tie-break.
    """
    memo_key = (
        c.tie_break,
        c.score_precision,
        c.mistake == "rank_column_trusted",
        c.duplicates,
        c.grades if c.tie_break in ("optimistic", "pessimistic") else None,
    )
    if memo_key not in p.orders:
        rows = np.flatnonzero(has_qrels[p.run_topic])
        if c.duplicates == "first" and p.has_duplicates:
            kept = _first_occurrences(p, rows)
            notes.duplicates_dropped = len(rows) - len(kept)
            rows = kept
        p.orders[memo_key] = (_sorted_rows(p, rows, c, has_qrels, grade, notes), notes)
    order, first_notes = p.orders[memo_key]
    notes.non_numeric_docnos = first_notes.non_numeric_docnos
    notes.duplicates_dropped = first_notes.duplicates_dropped
    return order


def _sorted_rows(
    p: Prepared,
    rows: np.ndarray,
    c: Convention,
    has_qrels: np.ndarray,
    grade: np.ndarray,
    notes: Notes,
) -> np.ndarray:
    """`rows` sorted by topic, score descending at the convention's precision, then tie-break.

    Only the reference order (float32 scores, docno descending) is a full sort.
    Every other tie-break, and float64 scores, only reorder rows within its
    groups of equal topic and float32 score (float32 rounding is monotone, so
    float64 refines those groups): a stable sort of nearly sorted keys.
    """
    if len(rows) == 0:  # no run topic is judged (a chunk of topics can be so)
        return rows
    every = len(rows) == len(p.run_topic)  # rows is 0..n-1: no copy of each column

    def of(column: np.ndarray) -> np.ndarray:
        return column if every else column[rows]

    topic = of(p.run_topic)
    if c.mistake == "rank_column_trusted":
        rank = of(p.run_rank)
        order = _within_groups(topic, rank - rank.min() if len(rank) else rank)
        return order if every else rows[order]
    if c.tie_break == "docno_desc" and c.score_precision == "float32":
        tie = p.doc_width - 1 - of(p.run_doc)
        order = _reference_order(topic, of(p.run_score), tie)
        return order if every else rows[order]
    reference = c.replace(tie_break="docno_desc", score_precision="float32")
    base = _order(p, reference, has_qrels, grade, Notes())
    score32 = as_float32(p.run_score[base])
    base_topic = p.run_topic[base]
    new = np.r_[True, (base_topic[1:] != base_topic[:-1]) | (score32[1:] != score32[:-1])]
    group = np.cumsum(new) - 1
    order = np.arange(len(base))
    if c.tie_break != "docno_desc":
        tie = np.zeros(len(p.run_topic), dtype=np.int64)
        tie[rows] = _tie_key(p, rows, c, grade, notes)
        order = _within_groups(group, tie[base])
    if c.score_precision == "float64":
        ascending = _ordered_bits(p.run_score[base[order]])
        group_top = np.maximum.reduceat(ascending, np.flatnonzero(new)) if len(base) else ascending
        order = order[_within_groups(group, group_top[group] - ascending)]
    return base[order]


def _within_groups(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    """The stable order by (group, key) of non-negative integer arrays: one sort of a
    packed 64-bit key when both fit in it (fast on the nearly sorted keys here)."""
    if len(group) == 0:
        return np.arange(0)
    key_bits = int(key.max()).bit_length()
    if int(group.max()).bit_length() + key_bits <= 63:
        packed = (group.astype(np.uint64) << np.uint64(key_bits)) | key.astype(np.uint64)
        return np.argsort(packed, kind="stable")
    return np.lexsort((key, group))


def _ordered_bits(score: np.ndarray) -> np.ndarray:
    """float64 scores as uint64 keys that sort like the floats (-0.0 as 0.0)."""
    bits = (score + 0.0).view(np.uint64)
    negative = bits >> np.uint64(63) == 1
    return np.where(negative, ~bits, bits | np.uint64(1 << 63))


def _tie_key(p: Prepared, rows: np.ndarray, c: Convention, grade: np.ndarray, notes: Notes):
    """A non-negative integer per row whose ascending order is the tie-break's order."""
    n_docs = p.doc_width
    doc = p.run_doc[rows]
    tie = c.tie_break
    if tie == "docno_desc":
        return n_docs - 1 - doc
    if tie == "docno_asc":
        return doc
    if tie == "docno_numeric":
        return _numeric_key(p, notes)[rows]
    if tie == "file_order":
        return np.arange(len(rows))  # `rows` is in file order
    if tie == "rank":  # equal ranks: file order
        rank = p.run_rank[rows]
        low = int(rank.min()) if len(rows) else 0
        if len(rows) and (int(rank.max()) - low + 1) * len(rows) < 2**62:
            return (rank - low) * len(rows) + np.arange(len(rows))
        by_rank = np.argsort(rank, kind="stable")
        key = np.empty(len(rows), dtype=np.int64)
        key[by_rank] = np.arange(len(rows))
        return key
    usefulness = np.maximum(np.where(grade[rows] == NOT_JUDGED, -1, grade[rows]), -1)
    top = int(usefulness.max()) if len(rows) else 0
    rank_in_tie = top - usefulness if tie == "optimistic" else usefulness + 1
    return rank_in_tie * n_docs + (n_docs - 1 - doc)


def as_float32(score: np.ndarray) -> np.ndarray:
    """Scores as trec_eval 9 stores them, in a C float. A score beyond float32's range
    becomes +-inf there too, so numpy's overflow warning is silenced, not a problem."""
    with np.errstate(over="ignore"):
        return score.astype(np.float32)


def _reference_order(topic: np.ndarray, score: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """The order by topic, float32 score descending, then `tie` (ascending)."""
    packed = _packed_order(topic, score, tie)
    if packed is not None:
        return packed
    return np.lexsort((tie, -as_float32(score).astype(np.float64), topic))


def _packed_order(topic: np.ndarray, score: np.ndarray, tie: np.ndarray) -> np.ndarray | None:
    """One sort of a uint64 key (topic, float32 score descending, tie), when it fits in 64 bits.

    The float32 bit pattern, with the sign folded, orders like the float; -0.0
    becomes 0.0 first, since trec_eval's comparison treats them as equal.
    """
    if len(topic) == 0:
        return np.arange(0)
    topic_bits = int(topic.max()).bit_length()
    tie_bits = int(tie.max()).bit_length()
    if topic_bits + 32 + tie_bits > 64:
        return None
    bits = (as_float32(score) + np.float32(0.0)).view(np.uint32)
    # descending = ~ascending, where ascending is ~bits (negative) or bits | 2^31: in 32
    # bits, a negative score's bits as they are, a positive one's low 31 bits flipped:
    # bits ^ (0x7FFFFFFF when the sign bit is 0, else 0), in place (5x numpy's where)
    descending = bits >> np.uint32(31)
    descending -= np.uint32(1)  # 0xFFFFFFFF for a positive score, 0 for a negative one
    descending &= np.uint32(0x7FFFFFFF)
    descending ^= bits
    key = topic.astype(np.uint64)
    key <<= np.uint64(32)
    key |= descending
    key <<= np.uint64(tie_bits)
    key |= tie.astype(np.uint64, copy=False)
    return np.argsort(key, kind=arrays.sort_kind(topic, key))


def _first_occurrences(p: Prepared, rows: np.ndarray) -> np.ndarray:
    """The rows that are the first (in file order) of their (topic, docno)."""
    key = p.run_topic[rows] * p.doc_width + p.run_doc[rows]
    _, first = np.unique(key, return_index=True)
    return rows[np.sort(first)]


# Convention fields that act after ranking (in `measures.compute` or `evaluate_one`):
# conventions differing only in these share one Ranking and its memoised measures.
_AFTER_RANKING = {
    "name": "",
    "description": "",
    "topics": REFERENCE.topics,
    "ties": REFERENCE.ties,
    "gain": REFERENCE.gain,
    "interpolation": REFERENCE.interpolation,
    "gmax": REFERENCE.gmax,
    "no_relevant_topics": REFERENCE.no_relevant_topics,
}
_MISTAKES_AFTER_RANKING = ("ap_over_retrieved", "ideal_from_run", "topics_from_run")


def ranking_key(c: Convention) -> Convention:
    """The convention with every decision taken after ranking reset to the reference's."""
    mistake = None if c.mistake in _MISTAKES_AFTER_RANKING else c.mistake
    return c.replace(mistake=mistake, **_AFTER_RANKING)


def rank(p: Prepared, c: Convention) -> tuple[Ranking, np.ndarray, np.ndarray, Notes]:
    """The ranking a convention evaluates (its -M depth not yet applied: `ranking.cut` is
    what the ordered measures see), the sorted run rows they see (cut at -M, then -J),
    the topic codes, and notes.

    Only topics with judgments are ranked; run topics without judgments are
    listed in the notes. Under -c the qrels topics missing from the run are
    added by `evaluate_one` as topics with nothing retrieved; topics without
    relevant documents stay (`evaluate_one` skips them when the convention
    says so). Rankings are memoised on `p` by the decisions that shape them
    (`ranking_key`).
    """
    key = ranking_key(c)
    if key not in p.rankings:
        p.rankings[key] = _rank(p, key)
    ranking, rows, evaluated, notes = p.rankings[key]
    return ranking, rows, evaluated, copy.deepcopy(notes)


def _rank(p: Prepared, c: Convention) -> tuple[Ranking, np.ndarray, np.ndarray, Notes]:
    notes = Notes()
    _, r_grade = grades_under(p, c.grades)
    has_qrels, has_run = p.has_qrels, p.has_run
    notes.run_topics_without_qrels = [str(t) for t in p.topics[has_run & ~has_qrels]]
    notes.qrels_topics_without_run = [str(t) for t in p.topics[has_qrels & ~has_run]]

    rows = _order(p, c, has_qrels, r_grade, notes)
    topic = p.run_topic[rows]
    starts = (
        np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]]) if len(rows) else np.array([], int)
    )
    evaluated = topic[starts]
    grade = r_grade[rows]
    judged = (grade != NOT_JUDGED) & (grade >= 0)
    in_pool = grade != NOT_JUDGED
    notes.shared_topics, notes.retrieved = len(evaluated), len(rows)
    notes.retrieved_judged = int(np.count_nonzero(in_pool))
    if len(rows):  # rows come by topic: a topic's judged rows, counted at once
        notes.topics_with_judged = int(np.count_nonzero(np.logical_or.reduceat(in_pool, starts)))
    counted = rows  # the rows the ordered measures see: cut at -M, then -J
    if c.depth is not None:
        position = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
        counted = rows[position < c.depth]
    if c.duplicates == "error" and p.has_duplicates:
        _check_duplicates(p, counted)
    if c.judged_only:
        counted = counted[(r_grade[counted] != NOT_JUDGED) & (r_grade[counted] >= 0)]

    counts = np.diff(np.r_[starts, len(rows)])  # the sorted rows of each evaluated topic
    score = p.run_score[rows]
    ranking = Ranking(
        topics=p.topics[evaluated],
        starts=np.concatenate(([0], np.cumsum(counts))),
        grade=np.where(judged, grade, -1),
        judged=judged,
        **_judgments(p, c, evaluated),
        rel_level=c.rel_level,
        depth=c.depth,
        tie_score=as_float32(score) if c.score_precision == "float32" else score,
        in_pool=in_pool,
    )
    if c.judged_only:
        ranking = ranking.without_unjudged()
    return ranking, counted, evaluated, notes


def _judgments(p: Prepared, c: Convention, topics: np.ndarray) -> dict[str, np.ndarray]:
    """The Ranking fields that come from the qrels, for the topic codes `topics` (ascending):
    relevant and judged non-relevant counts, and the grades of each ideal ranking."""
    q_grade, _ = grades_under(p, c.grades)
    level = max(c.rel_level, 0)
    num_rel = np.bincount(p.qrels_topic[q_grade >= level], minlength=len(p.topics))
    nonrel = (q_grade >= 0) & (q_grade < level)
    num_nonrel = np.bincount(p.qrels_topic[nonrel], minlength=len(p.topics))
    index_of = np.full(len(p.topics), -1, dtype=np.int64)
    index_of[topics] = np.arange(len(topics))
    in_ideal = (q_grade > 0) & (index_of[p.qrels_topic] >= 0)
    ideal_grade, ideal_counts = _ideal(q_grade[in_ideal], index_of[p.qrels_topic[in_ideal]], topics)
    return {
        "num_rel": num_rel[topics],
        "num_nonrel": num_nonrel[topics],
        "ideal_grade": ideal_grade,
        "ideal_starts": np.concatenate(([0], np.cumsum(ideal_counts))),
    }


def _ideal(grades: np.ndarray, index: np.ndarray, topics: np.ndarray) -> tuple[np.ndarray, ...]:
    """The positive `grades` ordered by topic (`index`, a place in `topics`), then grade
    descending, and each topic's count of them. Counted, where grades are few beside the
    judgments (a sort of many runs' repeated qrels took 7% of their scoring): each
    (topic, grade) pair's count, then each grade repeated that many times."""
    top = int(grades.max()) if len(grades) else 0
    if top * len(topics) > 4 * len(grades) + 1024:  # grades spread wide: sorted
        order = np.lexsort((-grades, index))
        return grades[order], np.bincount(index, minlength=len(topics))
    pairs = np.bincount(index * top + (top - grades), minlength=len(topics) * top)
    descending = np.arange(top, 0, -1, dtype=grades.dtype)
    ideal = np.repeat(np.tile(descending, len(topics)), pairs)
    return ideal, pairs.reshape(len(topics), top).sum(axis=1)


def without_results(p: Prepared, c: Convention, topics: np.ndarray) -> Ranking:
    """trec_eval 10's ranking for a -c topic without results: one unjudged document
    (`ceci_nest_pas_un_docno`, trec_eval.c), which -J then removes."""
    n = len(topics)
    ranking = Ranking(
        topics=p.topics[topics],
        starts=np.arange(n + 1),
        grade=np.full(n, -1),
        judged=np.zeros(n, dtype=bool),
        **_judgments(p, c, topics),
        rel_level=c.rel_level,
        depth=c.depth,
        tie_score=np.ones(n),
        in_pool=np.zeros(n, dtype=bool),
    )
    return ranking.without_unjudged() if c.judged_only else ranking


def _check_duplicates(p: Prepared, rows: np.ndarray) -> None:
    """A docno twice for one topic is an error naming the second occurrence's line."""
    rows = np.sort(rows)
    key = p.run_topic[rows] * p.doc_width + p.run_doc[rows]
    order = np.argsort(key, kind="stable")
    repeat = key[order][1:] == key[order][:-1]
    if not repeat.any():
        return
    second = int(order[1:][repeat].min())
    first = int(order[np.searchsorted(key[order], key[second])])
    skipped = p.run_skipped if p.run_skipped is not None else SkippedLines.none()
    in_run = p.run_rows if p.run_rows is not None else np.arange(len(p.run_topic))
    raise DuplicateDocumentError(
        f"{p.source}:{skipped.line_of(int(in_run[rows[second]]))}: document "
        f"{p.run_docno[int(rows[second])]} appears more than once for topic "
        f"{p.topics[p.run_topic[rows[second]]]} (first on line "
        f"{skipped.line_of(int(in_run[rows[first]]))}); "
        "--duplicates first keeps the first one"
    )
