"""A run and its qrels given as pytrec_eval-style dicts, prepared straight from the dicts.

The ids, scores and grades of `{qid: {docno: grade}}` and `{qid: {docno: score}}` go
to Arrow and numpy once, a level of the dict at a time, and meet in `joins.join` as a
file's columns do: no pandas frame, categorical or per-column check is built, as the
general path (`irscore.engine.reading.inputs`) must for any input. This takes the
usual dict: str ids of printable ASCII, numbers for values (whole ones for grades).
For anything else it gives None, and the caller takes the dicts apart the general
way, which names a bad value's topic and docno.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Any

import numpy as np
import pyarrow as pa

from irscore.engine.ranking.prepare import Labels, Prepared
from irscore.engine.reading.inputs import maybe_blank
from irscore.engine.system import arrays, joins
from irscore.engine.system import arrow_compute as ac

_HALVED_ROWS = 1 << 18  # run rows from which a run is prepared in two halves of its topics
_CAUGHT = (pa.ArrowException, TypeError, ValueError, OverflowError)


@dataclass(frozen=True)
class Judgments:
    """A qrels dict's judged topics (in dict order), how many judgments each has, and
    every docno and grade (topic by topic, in dict order; grades as int64)."""

    topics: list[str]
    sizes: np.ndarray
    docno: pa.Array
    grade: np.ndarray


def judgments(qrels: Any) -> Judgments | None:
    """The usual qrels dict's judgments, or None (for the general path to read or refuse)."""
    parts = _topics(qrels)
    if parts is None:
        return None
    topics, docs = parts
    docno = _docnos(docs)
    try:
        given = pa.array(list(chain.from_iterable(d.values() for d in docs)))
    except _CAUGHT:
        return None
    numbers = pa.types.is_integer(given.type) or pa.types.is_floating(given.type)
    if docno is None or given.null_count or not numbers:
        return None
    grade = given.to_numpy().astype(np.float64)  # as `inputs._integers` checks them
    if not (np.isfinite(grade) & (np.floor(grade) == grade) & (np.abs(grade) < 2.0**53)).all():
        return None
    sizes = np.fromiter(map(len, docs), np.int64, len(docs))
    return Judgments(topics, sizes, docno, grade.astype(np.int64))


def prepared(judged: Judgments, run: Any, name: str) -> list[Callable[[], Prepared]] | None:
    """The usual run dict against `judged`, as functions that each prepare one range of
    consecutive topics as `prepare` prepares a frame's (ranks in dict order, `name` its
    source): two for a large run, whose joins and scoring `evaluate` runs on two threads
    (numpy's and Arrow's work); or None (for the general path). A large run's topics are
    parted before their ids and scores go to Arrow, so neither half is copied out of
    the whole."""
    parts = _topics(run)
    if parts is None:
        return None
    topics, docs = parts
    labels = sorted({*map(str, judged.topics), *map(str, topics)})  # ASCII: byte order
    code = {topic: i for i, topic in enumerate(labels)}
    r_codes = np.fromiter(map(code.__getitem__, topics), np.int64, len(topics))
    sizes = np.fromiter(map(len, docs), np.int64, len(docs))
    q_codes = np.fromiter(map(code.__getitem__, judged.topics), np.int64, len(judged.topics))
    qrels = np.repeat(q_codes, judged.sizes), judged.docno, judged.grade
    names = np.array(labels, dtype=object)
    n = int(sizes.sum())
    if n < _HALVED_ROWS:
        rows = _rows(r_codes, docs, sizes)
        return None if rows is None else [partial(_joined, names, qrels, rows, name)]
    per_code = np.bincount(r_codes, sizes, minlength=len(labels)).cumsum()
    middle = int(np.searchsorted(per_code, n // 2)) + 1  # topic codes below it: about half
    makers = []
    for low in (True, False):
        at = np.flatnonzero((r_codes < middle) == low)
        rows = _rows(r_codes[at], [docs[i] for i in at], sizes[at])
        if rows is None:
            return None
        q = _taken(qrels, (qrels[0] < middle) == low)
        makers.append(partial(_joined, names, q, rows, name))
    return makers


def _rows(codes: np.ndarray, docs: list[Mapping], sizes: np.ndarray) -> tuple | None:
    """These topics' run rows (topic codes, docnos, scores, ranks in dict order), or None
    when a docno or a score is not what the usual dict holds."""
    docno = _docnos(docs)
    try:
        score = pa.array(list(chain.from_iterable(d.values() for d in docs)), pa.float64())
    except _CAUGHT:
        return None
    if docno is None or score.null_count:
        return None
    score = score.to_numpy()
    if not np.isfinite(score).all():
        return None
    n = int(sizes.sum())
    rank = np.arange(1, n + 1) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.repeat(codes, sizes), docno, score, rank


def _taken(columns: tuple, rows: np.ndarray) -> tuple:
    """The columns' values at the True rows (an Arrow column by Arrow's take)."""
    at = np.flatnonzero(rows)
    return tuple(
        ac.take(c, arrays.as_arrow(at)) if isinstance(c, pa.Array) else c[at] for c in columns
    )


def _joined(labels: np.ndarray, qrels: tuple, run: tuple, name: str) -> Prepared:
    """The `Prepared` of these qrels rows (topic codes, docnos, grades) and run rows (topic
    codes, docnos, scores, ranks), every topic's label kept."""
    q_topic, q_docno, q_grade = qrels
    r_topic, r_docno, r_score, r_rank = run
    joined = joins.join(q_topic, q_docno, q_grade, r_topic, r_docno, r_score)
    return Prepared(
        topics=labels,
        run_docno=Labels(r_docno),
        doc_width=joined.width,
        qrels_topic=q_topic,
        qrels_grade=q_grade,
        run_topic=r_topic,
        run_doc=joined.doc,
        run_score=r_score,
        run_rank=r_rank,
        run_grade=joined.grade,
        has_duplicates=joined.has_duplicates,
        source=name,
    )


def _topics(nested: Any) -> tuple[list[str], list[Mapping]] | None:
    """A dict's topics with at least one document and their dicts (in dict order), when
    every topic maps to a dict and every topic id is a str a TREC file could hold; else
    None. None too when there is no document at all (the general path refuses that)."""
    if not isinstance(nested, Mapping):
        return None
    topics, docs = [], []
    for topic, given in nested.items():
        if not isinstance(given, Mapping):
            return None
        if given:
            topics.append(topic)
            docs.append(given)
    try:  # a number among the ids is its text in the general path
        topic_ids = pa.array(topics, pa.string())
    except _CAUGHT:
        return None
    if not docs or maybe_blank(topic_ids):
        return None
    return topics, docs


def _docnos(docs: list[Mapping]) -> pa.Array | None:
    """Every docno of these dicts (dict by dict, in dict order), or None when one is not
    a str a TREC file could hold."""
    try:
        docnos = pa.array(list(chain.from_iterable(docs)), pa.string())
    except _CAUGHT:
        return None
    return None if maybe_blank(docnos) else docnos
