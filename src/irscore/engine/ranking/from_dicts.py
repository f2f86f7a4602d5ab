"""A run and its qrels given as pytrec_eval-style dicts, prepared straight from the dicts.

`{qid: {docno: grade}}` and `{qid: {docno: score}}` hold each topic's documents in
hash tables already, so each run row's grade is one lookup in its topic's
judgments: no docno is copied into Arrow and no (topic, docno) is sorted, as
`prepare` must for frames and files. The docnos are ordered only where the
ranking reads their order, among the rows tied at one float32 score in a topic
(as `joins` does for docnos of 9 to 16 bytes). This takes the usual dict: str ids
of printable ASCII, numbers for values (whole ones for grades). For anything else
it gives None, and the caller takes the dicts apart the general way
(`irscore.engine.reading.inputs`), which names a bad value's topic and docno.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pyarrow as pa

from irscore.engine.ranking.prepare import Labels, Prepared
from irscore.engine.reading.inputs import maybe_blank
from irscore.engine.system import joins

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
    topics, docs, docno = parts
    try:
        given = pa.array(list(chain.from_iterable(d.values() for d in docs)))
    except _CAUGHT:
        return None
    numbers = pa.types.is_integer(given.type) or pa.types.is_floating(given.type)
    if given.null_count or not numbers:
        return None
    grade = given.to_numpy().astype(np.float64)  # as `inputs._integers` checks them
    if not (np.isfinite(grade) & (np.floor(grade) == grade) & (np.abs(grade) < 2.0**53)).all():
        return None
    sizes = np.fromiter(map(len, docs), np.int64, len(docs))
    return Judgments(topics, sizes, docno, grade.astype(np.int64))


def prepared(judged: Judgments, run: Any, name: str) -> Prepared | None:
    """The usual run dict prepared against `judged` as `prepare` prepares its frame (ranks
    in dict order, `name` its source), or None (for the general path)."""
    parts = _topics(run)
    if parts is None:
        return None
    topics, docs, docno = parts
    try:
        score = pa.array(list(chain.from_iterable(d.values() for d in docs)), pa.float64())
    except _CAUGHT:
        return None
    if score.null_count:
        return None
    score = score.to_numpy()
    if not np.isfinite(score).all():
        return None
    labels = sorted({*map(str, judged.topics), *map(str, topics)})  # ASCII: byte order
    code = {topic: i for i, topic in enumerate(labels)}
    sizes = np.fromiter(map(len, docs), np.int64, len(docs))
    n = int(sizes.sum())
    r_topic = np.repeat(np.fromiter(map(code.__getitem__, topics), np.int64, len(topics)), sizes)
    q_codes = np.fromiter(map(code.__getitem__, judged.topics), np.int64, len(judged.topics))
    q_topic = np.repeat(q_codes, judged.sizes)
    joined = joins.join(q_topic, judged.docno, judged.grade, r_topic, docno, score)
    return Prepared(
        topics=np.array(labels, dtype=object),
        run_docno=Labels(docno),
        doc_width=joined.width,
        qrels_topic=q_topic,
        qrels_grade=judged.grade,
        run_topic=r_topic,
        run_doc=joined.doc,
        run_score=score,
        run_rank=np.arange(1, n + 1) - np.repeat(np.cumsum(sizes) - sizes, sizes),
        run_grade=joined.grade,
        has_duplicates=joined.has_duplicates,
        source=name,
    )


def _topics(nested: Any) -> tuple[list[str], list[Mapping], pa.Array] | None:
    """A dict's topics with at least one document, their dicts and every docno (topic by
    topic, in dict order), when every topic maps to a dict and every id is a str a TREC
    file could hold; else None. None too when there is no document at all (the general
    path refuses that)."""
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
        ids = [pa.array(topics, pa.string())]
        ids.append(pa.array(list(chain.from_iterable(docs)), pa.string()))
    except _CAUGHT:
        return None
    return (topics, docs, ids[1]) if docs and not any(map(maybe_blank, ids)) else None
