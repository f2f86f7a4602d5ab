"""(qrels, run, conventions, measures) -> one long table of per-topic and mean values.

The run and qrels are factorised once (`prepare`); each convention then only
re-sorts integer keys, cuts, filters and calls the vectorised measures, so a
grid of conventions shares the parsing and the joins.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property, partial
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from irscore.engine import joins, measures, trec
from irscore.engine.conventions import REFERENCE, Convention
from irscore.engine.errors import InputError
from irscore.engine.measures import Context, MeasureSpec, Ranking

if TYPE_CHECKING:  # pandas loads where a DataFrame is made: `irscore evaluate` needs none
    import pandas as pd

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NOT_JUDGED = joins.NOT_JUDGED
LONG_COLUMNS = ["run", "convention", "topic", "measure", "value"]


class DuplicateDocumentError(InputError):
    """The same docno twice for one topic of a run (trec_eval refuses this too)."""


class Labels:
    """Labels kept as one Arrow string array, so millions of docnos cost no Python
    object each: an int index gives a str, an integer array an object array of str."""

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        self.array = array

    def __getitem__(self, index):
        if isinstance(index, int | np.integer):
            return self.array[int(index)].as_py()
        return self.array.take(pa.array(np.asarray(index))).to_numpy(zero_copy_only=False)


@dataclass(frozen=True)
class Prepared:
    """A run and its qrels as integer codes, shared by every convention.

    `run_doc` is a row's docno as its rank among the distinct docnos of its
    topic (run and qrels together; of all topics for a DataFrame run) in byte
    order, as trec_eval's strcmp orders them; `doc_width` bounds it. Equal
    (topic, docno) rows share a code.
    """

    topics: np.ndarray
    run_docno: Labels
    doc_width: int
    qrels_topic: np.ndarray
    qrels_grade: np.ndarray
    run_topic: np.ndarray
    run_doc: np.ndarray
    run_score: np.ndarray
    run_rank: np.ndarray
    run_grade: np.ndarray
    has_duplicates: bool = False
    source: str = "run"
    run_skipped: np.ndarray | None = None  # the run's lines without a record (trec.line_of)
    run_rows: np.ndarray | None = None  # each row's row in the run, when only some are here
    orders: dict = field(default_factory=dict, repr=False, compare=False)
    rankings: dict = field(default_factory=dict, repr=False, compare=False)
    grades: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def has_qrels(self) -> np.ndarray:
        """Per topic code: True when the qrels judge the topic."""
        return _topic_flags(self.topics, self.qrels_topic)

    @cached_property
    def has_run(self) -> np.ndarray:
        """Per topic code: True when the run retrieves for the topic."""
        return _topic_flags(self.topics, self.run_topic)


def _topic_flags(topics: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """True for each topic code that occurs in `codes`."""
    flags = np.zeros(len(topics), dtype=bool)
    flags[codes] = True
    return flags


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


Frame = "pd.DataFrame | trec.Records"


CHUNK_ROWS = 1 << 18  # run rows per chunk of topics in `evaluate_records`, for runs
WHOLE_ROWS = 1 << 20  # of more rows than this; shorter runs are scored whole (faster)
THREADED_ROWS = 1 << 18  # from this many run rows, `evaluate` scores two halves on two threads


def prepare(qrels: Frame, run: Frame) -> Prepared:
    """Code topics (sorted as byte strings) and docnos (per topic), and look up each run
    row's grade.

    Takes DataFrames (as `trec.read_run` gives) or the readers' `trec.Records`.
    The grades are joined by one sort of (topic, docno), as trec_eval sorts
    each topic's documents (`irscore.engine.joins`).
    """
    return next(prepare_chunks(qrels, run, None))


def prepare_chunks(qrels: Frame, run: Frame, rows: int | None) -> Iterator[Prepared]:
    """`prepare` for consecutive ranges of topics of about `rows` run rows each (all at
    once when None), one after the other."""
    return (make() for make in chunk_makers(qrels, run, rows))


def chunk_makers(qrels: Frame, run: Frame, rows: int | None) -> list[Callable[[], Prepared]]:
    """Functions that each `prepare` one range of consecutive topics of about `rows` run
    rows (one range when None), so that chunks can be built one at a time or on two
    threads (their work is numpy's and Arrow's, which let go of the GIL). Each chunk
    keeps every topic's label and code but only its topics' qrels and run rows;
    `run_rows` maps its rows back to the run's lines."""
    (q_topic, r_topic), topics = _shared_codes(_labelled(qrels, "topic"), _labelled(run, "topic"))
    labels = np.array(topics.to_pylist(), dtype=object)
    q_docno, r_docno = _docnos(qrels, run)
    q_grade = _numbers(qrels, "grade", np.int64)
    r_score, r_rank = _numbers(run, "score", np.float64), _column(run, "rank")
    source = run.source if isinstance(run, trec.Records) else str(run.attrs.get("source", "run"))
    skipped = run.skipped if isinstance(run, trec.Records) else run.attrs.get("skipped")
    if rows is None or len(r_topic) <= rows:
        whole = (q_topic, q_docno, q_grade), (r_topic, r_docno, r_score, r_rank)
        return [lambda: _prepared(labels, *whole, source=source, run_skipped=skipped)]
    # Consecutive topic codes, about `rows` run rows each; a chunk's rows in file order.
    per_topic = np.cumsum(np.bincount(r_topic, minlength=len(labels)))
    ends = np.searchsorted(per_topic, np.arange(rows, len(r_topic), rows), "right")
    bounds = np.unique(np.r_[ends, len(labels)])
    chunk_of = np.repeat(np.arange(len(bounds)), np.diff(np.r_[0, bounds]))
    chunk_of = chunk_of.astype(np.min_scalar_type(len(bounds)))  # a byte a row, mostly
    q_chunk, r_chunk = chunk_of[q_topic], chunk_of[r_topic]

    def chunk(k: int) -> Prepared:
        q, r = _rows_of(q_chunk, k), _rows_of(r_chunk, k)
        return _prepared(
            labels,
            (q_topic[q], joins.taken(q_docno, q), q_grade[q]),
            (r_topic[r], joins.taken(r_docno, r), r_score[r], r_rank[r]),
            source=source,
            run_skipped=skipped,
            run_rows=np.arange(r.start, r.stop) if isinstance(r, slice) else r,
        )

    return [partial(chunk, k) for k in range(len(bounds))]


def _rows_of(chunk_of: np.ndarray, k: int) -> np.ndarray | slice:
    """The rows of chunk `k`: a slice when they are consecutive (a run grouped by topic),
    which takes no copy of the columns."""
    rows = np.flatnonzero(chunk_of == k)
    if len(rows) and rows[-1] - rows[0] + 1 == len(rows):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _prepared(labels: np.ndarray, qrels: tuple, run: tuple, **where) -> Prepared:
    """A Prepared of these qrels (topic codes, docnos, grades) and run rows (topic
    codes, docnos, scores, ranks); `where` names their source."""
    q_topic, q_docno, q_grade = qrels
    r_topic, r_docno, r_score, r_rank = run
    if pa.types.is_dictionary(r_docno.type):
        q_doc, r_doc = trec.numpy_view(q_docno.indices), trec.numpy_view(r_docno.indices)
        width = len(r_docno.dictionary)
        joined = joins.join_codes(q_topic, q_doc, q_grade, r_topic, r_doc, width)
    else:
        joined = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno)
    return Prepared(
        topics=labels,
        run_docno=Labels(r_docno),
        doc_width=joined.width,
        qrels_topic=q_topic.astype(np.int64),
        qrels_grade=q_grade,
        run_topic=r_topic.astype(np.int64),
        run_doc=joined.doc,
        run_score=r_score,
        run_rank=r_rank.astype(np.int64),
        run_grade=joined.grade,
        has_duplicates=joined.has_duplicates,
        **where,
    )


def _labelled(frame: Frame, column: str) -> list[tuple[np.ndarray, pa.Array]]:
    """A string column as integer codes into Arrow arrays of distinct labels: one pair per
    chunk of the readers' Records."""
    if isinstance(frame, trec.Records):
        chunks = frame.table[column].chunks
        return [(trec.numpy_view(c.indices), c.dictionary) for c in chunks]
    import pandas as pd

    series = frame[column]
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes, labels = series.cat.codes.to_numpy(), series.cat.categories
    else:
        codes, labels = pd.factorize(series)
    if pd.api.types.infer_dtype(labels, skipna=False) != "string":  # 1 and "1": one id
        labels = np.array([str(label) for label in labels], dtype=object)
    return [(codes, trec.one_array(pa.array(labels, pa.string())))]  # not via numpy's U


def _docnos(qrels: Frame, run: Frame) -> tuple[pa.Array, pa.Array]:
    """The qrels' and the run's docnos row by row: plain Arrow strings when the run is the
    readers' records (its docnos were never hashed), else dictionary arrays over one
    shared dictionary in byte order (a DataFrame's docnos come coded already), which
    `joins.join_codes` joins without sorting any string."""
    if isinstance(run, trec.Records) or not _is_categorical(run["docno"]):
        return _strings(qrels, "docno"), _strings(run, "docno")
    codes, labels = _shared_codes(_labelled(qrels, "docno"), _labelled(run, "docno"))
    q_doc, r_doc = (pa.DictionaryArray.from_arrays(trec._arrow(c), labels) for c in codes)
    return q_doc, r_doc


def _is_categorical(series: pd.Series) -> bool:
    """True for a categorical column (a DataFrame's docnos coded already)."""
    import pandas as pd

    return isinstance(series.dtype, pd.CategoricalDtype)


def _strings(frame: Frame, column: str) -> pa.Array:
    """A string column as one plain Arrow string array, row by row."""
    if isinstance(frame, trec.Records):
        values = frame.table[column]
        chunks = [
            c.dictionary.take(c.indices) if pa.types.is_dictionary(c.type) else c
            for c in values.chunks
        ]
        if not chunks:
            return pa.array([], pa.string())
        return chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)
    series = frame[column]
    if not _is_categorical(series) and str(series.dtype) in _ARROW_STRING_TYPES:
        return trec.one_array(pa.array(series)).cast(pa.string())
    (codes, labels), *_ = _labelled(frame, column)
    return labels.take(trec._arrow(codes))


_ARROW_STRING_TYPES = ("str", "string", "string[pyarrow]", "large_string[pyarrow]")


def _column(frame: Frame, column: str) -> np.ndarray:
    """A numeric column as a numpy array of its own type (a view of the records')."""
    if isinstance(frame, trec.Records):
        return trec.numpy_view(frame.table[column].chunk(0))
    return frame[column].to_numpy()


def _numbers(frame: Frame, column: str, dtype: type) -> np.ndarray:
    """A numeric column as a numpy array of `dtype`."""
    if isinstance(frame, trec.Records):
        return trec.numpy_view(frame.table[column].chunk(0)).astype(dtype, copy=False)
    return frame[column].to_numpy(dtype=dtype)


def _shared_codes(
    *columns: list[tuple[np.ndarray, pa.Array]],
) -> tuple[list[np.ndarray], pa.Array]:
    """The codes of several labelled columns (each in one or more parts, as `_labelled`
    gives them) recoded into their sorted union of labels.

    One hash pass over the parts' distinct labels (Arrow's dictionary encoding)
    and one sort of the union, in byte order as trec_eval's strcmp: work per
    distinct label, not per row.
    """
    parts = [part for column in columns for part in column]
    labels = [part[1].cast(pa.string()) for part in parts]
    union = pc.dictionary_encode(pa.concat_arrays(labels))
    sorted_indices = pc.sort_indices(union.dictionary)
    order = trec.numpy_view(sorted_indices)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    label_codes = position[trec.numpy_view(union.indices)]
    code_type = np.int16 if len(order) <= 2**15 else np.int32
    recoded, start = [], 0
    for column in columns:
        out, row = np.empty(sum(len(codes) for codes, _ in column), dtype=code_type), 0
        for codes, label in column:
            out[row : row + len(codes)] = label_codes[start : start + len(label)][codes]
            row, start = row + len(codes), start + len(label)
        recoded.append(out)
    return recoded, union.dictionary.take(sorted_indices)


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


def _grades(p: Prepared, mapping: str) -> tuple[np.ndarray, np.ndarray]:
    """The qrels' and the run rows' grades under a grade mapping (memoised on `p`)."""
    if mapping not in p.grades:
        p.grades[mapping] = (map_grades(p.qrels_grade, mapping), map_grades(p.run_grade, mapping))
    return p.grades[mapping]


def _numeric_key(p: Prepared, notes: Notes) -> np.ndarray:
    """Docnos in ascending numeric order where numeric, the rest after them in string order.

    Numbers compare exactly (as decimals), so long integer ids do not collide
    the way they would as float64. Each distinct docno is parsed once.
    """
    encoded = pc.dictionary_encode(p.run_docno.array)
    labels = encoded.dictionary.to_pylist()
    numbers = [_decimal(docno) for docno in labels]
    codes = trec.numpy_view(encoded.indices)
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
    topic = p.run_topic[rows]
    if c.mistake == "rank_column_trusted":
        rank = p.run_rank[rows]
        return rows[_within_groups(topic, rank - rank.min() if len(rank) else rank)]
    if c.tie_break == "docno_desc" and c.score_precision == "float32":
        tie = p.doc_width - 1 - p.run_doc[rows]
        return rows[_reference_order(topic, p.run_score[rows], tie)]
    reference = replace(c, tie_break="docno_desc", score_precision="float32")
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
    # descending = ~ascending, where ascending is ~bits (negative) or bits | 2^31: in 32 bits
    descending = np.where(bits >> np.uint32(31) == 1, bits, ~bits & np.uint32(0x7FFFFFFF))
    key = topic.astype(np.uint64)
    key <<= np.uint64(32)
    key |= descending
    key <<= np.uint64(tie_bits)
    key |= tie.astype(np.uint64, copy=False)
    return np.argsort(key)


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


def _ranking_key(c: Convention) -> Convention:
    """The convention with every decision taken after ranking reset to the reference's."""
    mistake = None if c.mistake in _MISTAKES_AFTER_RANKING else c.mistake
    return replace(c, mistake=mistake, **_AFTER_RANKING)


def rank(p: Prepared, c: Convention) -> tuple[Ranking, np.ndarray, np.ndarray, Notes]:
    """The ranking a convention evaluates (its -M depth not yet applied: `ranking.cut` is
    what the ordered measures see), the sorted run rows they see (cut at -M, then -J),
    the topic codes, and notes.

    Only topics with judgments are ranked; run topics without judgments are
    listed in the notes. Under -c the qrels topics missing from the run are
    added by `evaluate_one` as topics with nothing retrieved; topics without
    relevant documents stay (`evaluate_one` skips them when the convention
    says so). Rankings are memoised on `p` by the decisions that shape them
    (`_ranking_key`).
    """
    key = _ranking_key(c)
    if key not in p.rankings:
        p.rankings[key] = _rank(p, key)
    ranking, rows, evaluated, notes = p.rankings[key]
    return ranking, rows, evaluated, copy.deepcopy(notes)


def _rank(p: Prepared, c: Convention) -> tuple[Ranking, np.ndarray, np.ndarray, Notes]:
    notes = Notes()
    _, r_grade = _grades(p, c.grades)
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
    notes.topics_with_judged = int(np.count_nonzero(np.bincount(topic[in_pool])))
    counted = rows  # the rows the ordered measures see: cut at -M, then -J
    if c.depth is not None:
        position = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
        counted = rows[position < c.depth]
    if c.duplicates == "error" and p.has_duplicates:
        _check_duplicates(p, counted)
    if c.judged_only:
        counted = counted[(r_grade[counted] != NOT_JUDGED) & (r_grade[counted] >= 0)]

    index_of = np.full(len(p.topics), -1, dtype=np.int64)
    index_of[evaluated] = np.arange(len(evaluated))
    counts = np.bincount(index_of[topic], minlength=len(evaluated))
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
    q_grade, _ = _grades(p, c.grades)
    level = max(c.rel_level, 0)
    num_rel = np.bincount(p.qrels_topic[q_grade >= level], minlength=len(p.topics))
    nonrel = (q_grade >= 0) & (q_grade < level)
    num_nonrel = np.bincount(p.qrels_topic[nonrel], minlength=len(p.topics))
    index_of = np.full(len(p.topics), -1, dtype=np.int64)
    index_of[topics] = np.arange(len(topics))
    in_ideal = (q_grade > 0) & (index_of[p.qrels_topic] >= 0)
    ideal_grades, ideal_topic = q_grade[in_ideal], p.qrels_topic[in_ideal]
    ideal_order = np.lexsort((-ideal_grades, ideal_topic))
    ideal_counts = np.bincount(index_of[ideal_topic], minlength=len(topics))
    return {
        "num_rel": num_rel[topics],
        "num_nonrel": num_nonrel[topics],
        "ideal_grade": ideal_grades[ideal_order],
        "ideal_starts": np.concatenate(([0], np.cumsum(ideal_counts))),
    }


def _without_results(p: Prepared, c: Convention, topics: np.ndarray) -> Ranking:
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


def _missing_values(
    p: Prepared, c: Convention, spec: MeasureSpec, missing: np.ndarray, names: list[str]
) -> dict[str, np.ndarray]:
    """The per-topic values of -c's topics without results: 0 (num_q 1, num_rel their
    relevant judgments; an empty text) as trec_eval 9 counts them, or trec_eval 10's
    stand-in ranking."""
    if c.missing_topics == "evaluated":
        context = Context(c.interpolation, c.mistake, c.gmax, c.gain)
        ranking = _without_results(p, c, missing)
        fills, _ = measures.compute(ranking, spec, context, c.ties, text=True)
        return {
            name: _blank(name, len(missing)) if _cleared_by_trec_eval10(name) else fills[name]
            for name in names
        }
    q_grade, _ = _grades(p, c.grades)
    relevant = np.bincount(p.qrels_topic[q_grade >= max(c.rel_level, 0)], minlength=len(p.topics))
    fills = {name: _blank(name, len(missing)) for name in names}
    if "num_q" in fills:
        fills["num_q"] = np.ones(len(missing))
    if "num_rel" in fills:
        fills["num_rel"] = relevant[missing].astype(np.float64)
    return fills


def _cleared_by_trec_eval10(name: str) -> bool:
    """The values trec_eval 10 resets (to 0, relstring to '') after scoring its stand-in
    document, by exact name as trec_eval.c compares them: `utility_1,-1,0,0` and
    `relstring_5` keep their values."""
    return name in ("num_ret", "utility", "rbp_resid", "relstring") or name.startswith("unj")


def _blank(name: str, n: int) -> np.ndarray:
    """`n` topics' value of a measure before anything is counted: 0, or the empty text."""
    if measures.registry.is_text(name):
        return np.full(n, "", dtype=object)
    return np.zeros(n)


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
    skipped = p.run_skipped if p.run_skipped is not None else np.zeros(0, np.int64)
    in_run = p.run_rows if p.run_rows is not None else np.arange(len(p.run_topic))
    raise DuplicateDocumentError(
        f"{p.source}:{trec.line_of(skipped, int(in_run[rows[second]]))}: document "
        f"{p.run_docno[int(rows[second])]} appears more than once for topic "
        f"{p.topics[p.run_topic[rows[second]]]} (first on line "
        f"{trec.line_of(skipped, int(in_run[rows[first]]))}); "
        "--duplicates first keeps the first one"
    )


@dataclass
class TopicValues:
    """One convention's per-topic values for some topics (in topic order), before the means."""

    values: dict[str, np.ndarray]
    topics: np.ndarray
    filled: np.ndarray  # True for a -c topic without results: its values are fills
    num_rel_all: float | None  # -c: the grade > 0 judgments of these topics' qrels
    notes: Notes


def evaluate_one(
    p: Prepared, c: Convention, spec: MeasureSpec, text: bool = False
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """Per-topic values {measure: array}, the topic names, the `all` values, and notes.
    `text`: the text measures too (relstring, arrays of str without an `all` value),
    for trec_eval's text layout; otherwise they are noted as not computed."""
    return merged([topic_values(p, c, spec, text)], c)


def evaluate_records(
    qrels: Frame,
    run: Frame,
    c: Convention,
    spec: MeasureSpec,
    rows: int | None = None,
    text: bool = False,
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """`evaluate_one(prepare(qrels, run), c, spec, text)` in chunks of topics of about `rows`
    run rows (by default `CHUNK_ROWS` for runs of more than `WHOLE_ROWS`): what is
    built per row then lives for one chunk, so a ten-million-line run needs little
    more memory than its records."""
    _check_ranks(run, [c])
    if rows is None:
        length = run.table.num_rows if isinstance(run, trec.Records) else len(run)
        rows = CHUNK_ROWS if length > WHOLE_ROWS else None
    return merged([topic_values(p, c, spec, text) for p in prepare_chunks(qrels, run, rows)], c)


def _check_ranks(run: Frame, conventions: Sequence[Convention]) -> None:
    """A run whose rank column held something else than numbers (which trec_eval never
    reads) is refused by a convention that breaks ties by rank."""
    if isinstance(run, trec.Records) and any(c.tie_break == "rank" for c in conventions):
        run.check_ranks()


def merged(
    parts: Sequence[TopicValues], c: Convention
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """`evaluate_one`'s result from the values of consecutive chunks of topics."""
    notes = parts[0].notes
    for part in parts[1:]:
        notes.run_topics_without_qrels += part.notes.run_topics_without_qrels
        notes.qrels_topics_without_run += part.notes.qrels_topics_without_run
        notes.duplicates_dropped += part.notes.duplicates_dropped
        notes.non_numeric_docnos += part.notes.non_numeric_docnos
        notes.shared_topics += part.notes.shared_topics
        notes.retrieved += part.notes.retrieved
        notes.retrieved_judged += part.notes.retrieved_judged
        notes.topics_with_judged += part.notes.topics_with_judged
    values = {
        name: np.concatenate([part.values[name] for part in parts]) for name in parts[0].values
    }
    topics = np.concatenate([part.topics for part in parts])
    return values, topics, means_of(parts, c), notes


def topic_values(p: Prepared, c: Convention, spec: MeasureSpec, text: bool = False) -> TopicValues:
    """The per-topic values of the topics `p` holds, -c's topics without results included
    (the text measures too with `text`)."""
    ranking, _rows, evaluated, notes = rank(p, c)
    context = Context(c.interpolation, c.mistake, c.gmax, c.gain)
    values, notes.not_computed = measures.compute(ranking, spec, context, c.ties, text)
    topics = ranking.topics
    if c.no_relevant_topics == "skip":  # per-topic values do not depend on other topics
        keep = ranking.num_rel > 0
        values = {name: array[keep] for name, array in values.items()}
        topics, evaluated = topics[keep], evaluated[keep]
    q_grade, _ = _grades(p, c.grades)
    level = max(c.rel_level, 0)
    missing = np.array([], dtype=np.int64)
    num_rel_all = None
    if c.complete:
        missing = np.setdiff1d(np.unique(p.qrels_topic), evaluated)
        if c.no_relevant_topics == "skip":
            with_rel = np.unique(p.qrels_topic[q_grade >= level])
            missing = missing[np.isin(missing, with_rel)]
        num_rel_all = float((q_grade > 0).sum())
    filled = np.zeros(len(topics), dtype=bool)
    if len(missing):  # per-topic rows for them, in topic order
        fills = _missing_values(p, c, spec, missing, list(values))
        values = {name: np.concatenate((array, fills[name])) for name, array in values.items()}
        order = np.argsort(np.concatenate((evaluated, missing)), kind="stable")
        topics = np.concatenate((topics, p.topics[missing]))[order]
        values = {name: array[order] for name, array in values.items()}
        filled = np.concatenate((filled, np.ones(len(missing), dtype=bool)))[order]
    return TopicValues(values, topics, filled, num_rel_all, notes)


def means_of(parts: Sequence[TopicValues], c: Convention) -> dict[str, float]:
    """The `all` values of the parts' topics together (the parts in topic order).

    trec_eval 9 leaves -c's topics without results out of the sum and counts
    them in the divisor; trec_eval 10 adds their values in topic order. A text
    measure has none.
    """
    filled = np.concatenate([part.filled for part in parts])
    rel = [part.num_rel_all for part in parts]
    num_rel_all = None if rel[0] is None else float(sum(rel))
    missing, keep = 0, slice(None)
    if c.missing_topics == "mean_only":
        missing, keep = int(filled.sum()), ~filled
    return {
        name: measures.aggregate(
            name, np.concatenate([part.values[name] for part in parts])[keep], missing, num_rel_all
        )
        for name in parts[0].values
        if not measures.registry.is_text(name)
    }


def evaluate(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    conventions: Sequence[Convention] = (REFERENCE,),
    spec: MeasureSpec | None = None,
    run_name: str | None = None,
) -> pd.DataFrame:
    """The long table (run, convention, topic, measure, value) for every convention.

    Per-topic rows come first, topic by topic in string order, then the `all`
    rows with trec_eval's aggregates. gm_map and gm_bpref have only an `all` row.
    `attrs["not_computed"]` maps a convention's name to the requested families it
    has no form for (bpref under expected ties): they have no rows.
    """
    spec = spec or MeasureSpec()
    _check_ranks(run, conventions)
    name = run_name or _run_tag(run)
    keys = [_ranking_key(c) for c in conventions]
    last_use = {key: i for i, key in enumerate(keys)}

    def scored(make: Callable[[], Prepared]) -> list[TopicValues]:
        p, parts = make(), []
        for i, c in enumerate(conventions):
            parts.append(topic_values(p, c, spec))
            if last_use[keys[i]] == i:  # no later convention shares this ranking: free it
                del p.rankings[keys[i]]
        return parts

    length = run.table.num_rows if isinstance(run, trec.Records) else len(run)
    makers = chunk_makers(qrels, run, -(-length // 2) if length >= THREADED_ROWS else None)
    with ThreadPoolExecutor(len(makers)) as pool:
        chunks = list(pool.map(scored, makers))
    tables, not_computed, first = [], {}, None
    for i, c in enumerate(conventions):
        values, topics, means, notes = merged([parts[i] for parts in chunks], c)
        first = first or notes
        tables.append(long_table(name, c, values, topics, means))
        if notes.not_computed:
            not_computed[c.name] = list(notes.not_computed)
    table = concat_long(tables)
    table.attrs["not_computed"] = not_computed
    table.attrs["notes"] = first  # how run and qrels meet (the same under every convention)
    return table


def concat_long(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack long tables, keeping the label columns categorical (one union of labels each)."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    # A convention without a form for any requested measure has no rows: its empty
    # columns' labels have no type to unite with the others'.
    tables = [t for t in tables if len(t)] or tables[:1]
    if not tables:
        return pd.DataFrame(columns=LONG_COLUMNS)
    columns = {
        name: union_categoricals([pd.Categorical(t[name]) for t in tables], sort_categories=False)
        for name in LONG_COLUMNS[:-1]
    }
    columns["value"] = np.concatenate([t["value"].to_numpy() for t in tables])
    return pd.DataFrame(columns)


def long_table(
    run_name: str,
    c: Convention,
    values: dict[str, np.ndarray],
    topics: np.ndarray,
    means: dict[str, float],
) -> pd.DataFrame:
    """Lay per-topic values and means out as rows of the long table."""
    import pandas as pd

    per_topic = [m for m in values if measures.registry.has_topic_rows(m)]
    n_topics, n_measures = len(topics), len(per_topic)
    matrix = (
        np.column_stack([values[m] for m in per_topic]) if n_measures else np.zeros((n_topics, 0))
    )
    names = list(values)
    if "all" in set(topics):
        raise InputError(f"run {run_name}: a topic named 'all' clashes with the summary rows")
    topic_labels = np.concatenate((topics.astype(object), ["all"]))
    measure_labels = list(dict.fromkeys([*per_topic, *names]))
    topic_codes = np.concatenate(
        (np.repeat(np.arange(n_topics), n_measures), np.full(len(names), n_topics))
    )
    measure_index = {m: i for i, m in enumerate(measure_labels)}
    measure_codes = np.concatenate(
        (
            np.tile([measure_index[m] for m in per_topic], n_topics).astype(np.int64),
            np.array([measure_index[m] for m in names], dtype=np.int64),
        )
    )
    rows = len(topic_codes)
    return pd.DataFrame(
        {
            "run": pd.Categorical.from_codes(np.zeros(rows, np.int64), [run_name]),
            "convention": pd.Categorical.from_codes(np.zeros(rows, np.int64), [c.name]),
            "topic": pd.Categorical.from_codes(topic_codes, topic_labels),
            "measure": pd.Categorical.from_codes(measure_codes, measure_labels),
            "value": np.concatenate((matrix.reshape(-1), [means[m] for m in names])),
        }
    )


def _run_tag(run: pd.DataFrame) -> str:
    import pandas as pd

    tags = pd.unique(run["tag"]) if len(run) else np.array(["run"])
    return str(tags[0])


def write_long_table(path: str, table: pd.DataFrame) -> None:
    """Write the long table as TSV, whole or not at all; values as the shortest text
    that reads back to the same double (Arrow's: `1`, `0.25`, `1e-05`, `nan`)."""
    columns = {
        name: pa.Array.from_pandas(table[name]).cast(pa.string()) for name in LONG_COLUMNS[:-1]
    }
    columns["value"] = pa.array(table["value"].to_numpy(dtype=np.float64))
    options = pa_csv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with trec.atomic_output(path) as tmp, open(tmp, "wb") as out:
        out.write(("\t".join(LONG_COLUMNS) + "\n").encode())
        pa_csv.write_csv(pa.table(columns), out, write_options=options)


def read_long_table(path: str, means_only: bool = False) -> pd.DataFrame:
    """Read a long table written by `write_long_table`; topics and names stay strings.
    `means_only` keeps the `all` rows, dropped before pandas sees the others.

    Arrow's multi-threaded reader: the workflow's report jobs read every run's table.
    """
    types = {name: pa.string() for name in LONG_COLUMNS[:-1]} | {"value": pa.float64()}
    table = pa_csv.read_csv(
        path,
        parse_options=pa_csv.ParseOptions(delimiter="\t", quote_char=False),
        convert_options=pa_csv.ConvertOptions(
            column_types=types,
            include_columns=LONG_COLUMNS,
            null_values=["nan"],
            strings_can_be_null=False,
        ),
    )
    if means_only:
        table = table.filter(pc.equal(table["topic"], "all"))
    return table.to_pandas()
