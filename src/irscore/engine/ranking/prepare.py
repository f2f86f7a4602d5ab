"""A run and its qrels as integer codes (`Prepared`), made once and shared by every
convention a command scores them under.

Topics are coded in byte order (as trec_eval's strcmp sorts them), each run
row's docno by its rank among its topic's docnos, and each row's grade looked
up by one join of (topic, docno) (`irscore.engine.system.joins`). Large runs are
prepared in chunks of consecutive topics, so what is built per row lives for
one chunk at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from irscore.engine.ranking.subtopics import Subtopics, collapsed, has_subtopics
from irscore.engine.reading import trec
from irscore.engine.system import arrays, coded_joins, joins, string_arrays
from irscore.engine.system import arrow_compute as ac

if TYPE_CHECKING:  # pandas loads where a DataFrame is read: `irscore evaluate` needs none
    import pandas as pd

    from irscore.engine.reading.skipped_lines import SkippedLines


_LOOKED_UP = 1 << 20  # rows recoded at a time (`_shared_codes`)
_STRETCHES = 1 << 16  # stretches of rows of one chunk at most, to find chunks' rows by them


class Labels:
    """Labels kept as one Arrow string array, so millions of docnos cost no Python
    object each: an int index gives a str, an integer array an object array of str."""

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        self.array = array

    def __getitem__(self, index):
        if isinstance(index, int | np.integer):
            return self.array[int(index)].as_py()
        return ac.take(self.array, pa.array(np.asarray(index))).to_numpy(zero_copy_only=False)


@dataclass(frozen=True)
class Prepared:
    """A run and its qrels as integer codes, shared by every convention.

    `run_doc` is a row's docno as its rank among the distinct docnos of its
    topic (run and qrels together; of all topics for a DataFrame run) in byte
    order, as trec_eval's strcmp orders them; `doc_width` bounds it. Equal
    (topic, docno) rows share a code. For docnos of 9 to 16 bytes without a
    repeat (`joins._matched`), only rows tied at one float32 score are ranked
    (all the ranking reads: a tie's order; a repeat's check needs `has_duplicates`).
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
    run_skipped: SkippedLines | None = None  # the run's lines without a record
    run_rows: np.ndarray | None = None  # each row's row in the run, when only some are here
    subtopics: Subtopics | None = None  # the qrels' judgments per subtopic (diversity)
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


Frame = "pd.DataFrame | trec.Records"


def prepare(qrels: Frame, run: Frame) -> Prepared:
    """Code topics (sorted as byte strings) and docnos (per topic), and look up each run
    row's grade.

    Takes DataFrames (as `trec.read_run` gives) or the readers' `trec.Records`.
    The grades are joined by one sort of (topic, docno), as trec_eval sorts
    each topic's documents (`irscore.engine.system.joins`).
    """
    return chunk_makers(qrels, run, None)[0]()


def chunk_makers(
    qrels: Frame, run: Frame, rows: int | None, topics: int | None = None
) -> list[Callable[[], Prepared]]:
    """Functions that each `prepare` one range of consecutive topics of about `rows` run
    rows (one range when None) and at most `topics` topics (any number when None), so
    that chunks can be built one at a time or on two threads (their work is numpy's
    and Arrow's, which let go of the GIL). Each chunk
    keeps every topic's label and code but only its topics' qrels and run rows;
    `run_rows` maps its rows back to the run's lines. A subtopic qrels is joined as each
    document's highest grade; its subtopics go to the diversity measures whole."""
    subtopics = Subtopics(qrels)
    if has_subtopics(qrels):
        qrels = collapsed(qrels.frame() if isinstance(qrels, trec.Records) else qrels)
    (q_topic, r_topic), names = _shared_codes(_labelled(qrels, "topic"), _labelled(run, "topic"))
    labels = np.array(names.to_pylist(), dtype=object)
    q_docno, r_docno = _docnos(qrels, run)
    q_grade = _numbers(qrels, "grade", np.int64)
    r_score, r_rank = _numbers(run, "score", np.float64), _column(run, "rank")
    source = run.source if isinstance(run, trec.Records) else str(run.attrs.get("source", "run"))
    skipped = run.skipped if isinstance(run, trec.Records) else run.attrs.get("skipped")
    rows = rows or max(len(r_topic), 1)
    topics = topics or max(len(labels), 1)
    if len(r_topic) <= rows and len(labels) <= topics:
        whole = (q_topic, q_docno, q_grade), (r_topic, r_docno, r_score, r_rank)
        return [
            lambda: _prepared(
                labels, *whole, source=source, run_skipped=skipped, subtopics=subtopics
            )
        ]
    # Consecutive topic codes, about `rows` run rows each; a chunk's rows in file order.
    per_topic = np.cumsum(arrays.counts(r_topic, len(labels)))
    ends = np.searchsorted(per_topic, np.arange(rows, len(r_topic), rows), "right")
    bounds = arrays.distinct(np.r_[ends, np.arange(topics, len(labels), topics), len(labels)])
    chunk_of = np.repeat(np.arange(len(bounds)), np.diff(np.r_[0, bounds]))
    chunk_of = chunk_of.astype(np.min_scalar_type(len(bounds)))  # a byte a row, mostly
    q_rows, r_rows = _RowsOfChunks(chunk_of[q_topic]), _RowsOfChunks(chunk_of[r_topic])

    def chunk(k: int) -> Prepared:
        q, r = q_rows.of(k), r_rows.of(k)
        return _prepared(
            labels,
            (q_topic[q], joins.taken(q_docno, q), q_grade[q]),
            (r_topic[r], joins.taken(r_docno, r), r_score[r], r_rank[r]),
            source=source,
            run_skipped=skipped,
            run_rows=np.arange(r.start, r.stop) if isinstance(r, slice) else r,
            subtopics=subtopics,
        )

    return [partial(chunk, k) for k in range(len(bounds))]


def prepare_folded(qrels: trec.Records, runs: list[trec.Records]) -> tuple[Prepared, int]:
    """Several runs as one `Prepared` (`irscore.engine.many_runs`): with T the topics of the
    qrels and every run together, run k's topic t is code k * T + t (each code's label
    the topic's) and the qrels are repeated for each run; and T. The rows are joined to
    the qrels once, by topic t: a row's `run_doc` ranks its docno among the docnos of
    its topic in every run, which orders each run's docnos as the run alone does."""
    columns = [_labelled(qrels, "topic")] + [_labelled(run, "topic") for run in runs]
    (q_topic, *r_topics), names = _shared_codes(*columns)
    labels = np.array(names.to_pylist(), dtype=object)
    width = max(len(labels), 1)
    q_grade = _numbers(qrels, "grade", np.int64)
    r_topic = np.concatenate(r_topics)
    r_docno = pa.concat_arrays([_strings(run, "docno") for run in runs])
    r_score = np.concatenate([_numbers(run, "score", np.float64) for run in runs])
    joined = joins.join(q_topic, _strings(qrels, "docno"), q_grade, r_topic, r_docno, r_score)
    shift = np.arange(len(runs), dtype=np.int64) * width
    run_topic = r_topic.astype(np.int64) + np.repeat(shift, [len(t) for t in r_topics])
    prepared = Prepared(
        topics=np.tile(labels, len(runs)),
        run_docno=Labels(r_docno),
        doc_width=joined.width,
        qrels_topic=(q_topic.astype(np.int64)[None, :] + shift[:, None]).ravel(),
        qrels_grade=np.tile(q_grade, len(runs)),
        run_topic=run_topic,
        run_doc=joined.doc,
        run_score=r_score,
        run_rank=np.concatenate([_numbers(run, "rank", np.int64) for run in runs]),
        run_grade=joined.grade,
        has_duplicates=joined.has_duplicates and _repeated(run_topic * joined.width + joined.doc),
        source="runs",
    )
    return prepared, width


def _repeated(keys: np.ndarray) -> bool:
    """True when a key occurs twice: counted, when the keys are few beside the rows (a
    docno that several runs retrieve is a repeat of the join's, not of one run)."""
    if len(keys) and int(keys.max()) < 8 * len(keys):
        return bool(np.bincount(keys).max() > 1)
    ordered = np.sort(keys)
    return bool((ordered[1:] == ordered[:-1]).any())


class _RowsOfChunks:
    """The rows of each chunk, from each row's chunk. A run grouped by topic holds each
    chunk's rows in a few stretches, found in one pass over the rows; otherwise each
    chunk looks for its rows in all of them."""

    def __init__(self, chunk_of: np.ndarray):
        self.chunk_of = chunk_of
        starts = np.flatnonzero(chunk_of[1:] != chunk_of[:-1]) + 1
        self.stretches = None
        if len(starts) < _STRETCHES:
            self.starts = np.r_[0, starts]
            self.ends = np.r_[starts, len(chunk_of)]
            self.stretches = chunk_of[self.starts] if len(chunk_of) else self.starts[:0]

    def of(self, k: int) -> np.ndarray | slice:
        """The rows of chunk `k`, in order: a slice when they are consecutive, which
        takes no copy of the columns."""
        if self.stretches is None:
            rows = np.flatnonzero(self.chunk_of == k)
            if len(rows) and rows[-1] - rows[0] + 1 == len(rows):
                return slice(int(rows[0]), int(rows[-1]) + 1)
            return rows
        mine = np.flatnonzero(self.stretches == k)
        if len(mine) == 0:
            return slice(0, 0)
        if len(mine) == 1:
            return slice(int(self.starts[mine[0]]), int(self.ends[mine[0]]))
        return np.concatenate([np.arange(self.starts[i], self.ends[i]) for i in mine])


def _prepared(labels: np.ndarray, qrels: tuple, run: tuple, **where) -> Prepared:
    """A Prepared of these qrels (topic codes, docnos, grades) and run rows (topic
    codes, docnos, scores, ranks); `where` names their source."""
    q_topic, q_docno, q_grade = qrels
    r_topic, r_docno, r_score, r_rank = run
    if pa.types.is_dictionary(r_docno.type):
        q_doc, r_doc = arrays.numpy_view(q_docno.indices), arrays.numpy_view(r_docno.indices)
        width = len(r_docno.dictionary)
        joined = coded_joins.join_codes(q_topic, q_doc, q_grade, r_topic, r_doc, width)
    else:
        joined = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno, r_score)
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
        return [_chunk_codes(chunk) for chunk in frame.table[column].chunks]
    import pandas as pd

    series = frame[column]
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes, labels = series.cat.codes.to_numpy(), series.cat.categories
    else:
        codes, labels = pd.factorize(series)
    if pd.api.types.infer_dtype(labels, skipna=False) != "string":  # 1 and "1": one id
        labels = np.array([str(label) for label in labels], dtype=object)
    return [(codes, arrays.one_array(pa.array(labels, pa.string())))]  # not via numpy's U


def _chunk_codes(chunk: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """A chunk of the readers' Records as (codes, labels): its dictionary's, or, for plain
    strings (docnos), first-seen codes (in numpy for a small chunk, `string_arrays`)."""
    if pa.types.is_dictionary(chunk.type):
        return arrays.numpy_view(chunk.indices), chunk.dictionary
    coded = string_arrays.first_seen_distinct(chunk)
    if coded is None:
        encoded = ac.dictionary_encode(chunk)
        coded = arrays.numpy_view(encoded.indices), encoded.dictionary
    return coded


def _docnos(qrels: Frame, run: Frame) -> tuple[pa.Array, pa.Array]:
    """The qrels' and the run's docnos row by row: plain Arrow strings when the run is the
    readers' records (its docnos were never hashed), else dictionary arrays over one
    shared dictionary in byte order (a DataFrame's docnos come coded already), which
    `coded_joins.join_codes` joins without sorting any string."""
    if isinstance(run, trec.Records) or not _is_categorical(run["docno"]):
        return _strings(qrels, "docno"), _strings(run, "docno")
    codes, labels = _shared_codes(_labelled(qrels, "docno"), _labelled(run, "docno"))
    q_doc, r_doc = (pa.DictionaryArray.from_arrays(arrays.as_arrow(c), labels) for c in codes)
    return q_doc, r_doc


def _is_categorical(series: pd.Series) -> bool:
    """True for a categorical column (a DataFrame's docnos coded already)."""
    import pandas as pd

    return isinstance(series.dtype, pd.CategoricalDtype)


def _strings(frame: Frame, column: str) -> pa.Array:
    """A string column as one plain Arrow string array, row by row."""
    if isinstance(frame, trec.Records):
        values = frame.table[column]
        chunks = [_decoded(c) if pa.types.is_dictionary(c.type) else c for c in values.chunks]
        if not chunks:
            return pa.array([], pa.string())
        return chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)
    series = frame[column]
    if not _is_categorical(series) and str(series.dtype) in _ARROW_STRING_TYPES:
        return ac.cast(arrays.one_array(pa.array(series)), pa.string())
    (codes, labels), *_ = _labelled(frame, column)
    return ac.take(labels, arrays.as_arrow(codes))


def _decoded(chunk: pa.DictionaryArray) -> pa.Array:
    """A dictionary chunk as the plain strings it codes."""
    plain = string_arrays.decoded(chunk.dictionary, arrays.numpy_view(chunk.indices))
    return plain if plain is not None else ac.take(chunk.dictionary, chunk.indices)


_ARROW_STRING_TYPES = ("str", "string", "string[pyarrow]", "large_string[pyarrow]")


def _column(frame: Frame, column: str) -> np.ndarray:
    """A numeric column as a numpy array of its own type (a view of the records')."""
    if isinstance(frame, trec.Records):
        return arrays.numpy_view(frame.table[column].chunk(0))
    return frame[column].to_numpy()


def _numbers(frame: Frame, column: str, dtype: type) -> np.ndarray:
    """A numeric column as a numpy array of `dtype`."""
    if isinstance(frame, trec.Records):
        return arrays.numpy_view(frame.table[column].chunk(0)).astype(dtype, copy=False)
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
    labels = pa.concat_arrays([_plain_strings(part[1]) for part in parts])
    coded = string_arrays.sorted_distinct(labels)
    if coded is None:
        union = ac.dictionary_encode(labels)
        sorted_indices = ac.sort_indices(union.dictionary)
        order = arrays.numpy_view(sorted_indices)
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        in_order = ac.take(union.dictionary, sorted_indices)
        coded = position[arrays.numpy_view(union.indices)], in_order
    label_codes, distinct = coded
    code_type = np.int16 if len(distinct) <= 2**15 else np.int32
    label_codes = label_codes.astype(code_type)
    recoded, start = [], 0
    for column in columns:
        out, row = np.empty(sum(len(codes) for codes, _ in column), dtype=code_type), 0
        for codes, label in column:
            table = label_codes[start : start + len(label)]
            for first in range(0, len(codes), _LOOKED_UP):  # temporaries of a slice, not a run
                part = codes[first : first + _LOOKED_UP]
                out[row + first : row + first + len(part)] = table[part]
            row, start = row + len(codes), start + len(label)
        recoded.append(out)
    return recoded, distinct


def _plain_strings(labels: pa.Array) -> pa.Array:
    """Labels as a plain (32-bit offset) string array."""
    return labels if labels.type == pa.string() else ac.cast(labels, pa.string())
