"""Judgments per subtopic, as the diversity measures read them.

A subtopic qrels (ndeval's, the TREC Web track's: `topic subtopic docno grade`) judges
a document once for each subtopic (intent) of its topic; the readers recognise one by
its content (a document judged again under another second column, `trec.py`) and keep
the second column as `subtopic`. The ordinary measures read each document's highest
grade (`collapsed`), as ndeval's MAP reads a document relevant to any subtopic as
relevant; an ordinary qrels is one subtopic per topic to the diversity measures.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from irscore.engine.measures.diversity import Coverage
from irscore.engine.reading.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.reading.trec import Records

UNJUDGED = np.iinfo(np.int64).min  # a (document, subtopic) without a judgment


def has_subtopics(qrels) -> bool:
    """True for a qrels (DataFrame or the readers' Records) holding a subtopic column."""
    names = qrels.table.column_names if hasattr(qrels, "table") else qrels.columns
    return "subtopic" in names


def for_request(qrels, families) -> tuple[object, str | None]:
    """The qrels as the requested measure families read it, and a note for the user.

    A second column that varies is read as subtopics only for a request with a
    diversity measure. Without one it is trec_eval's ignored iteration column (TREC-COVID
    numbers its rounds there): the column is dropped, and a document judged twice for a
    topic is the error trec_eval gives, naming the line. With diversity and other
    measures, the note says that the others read each document's highest grade."""
    from irscore.engine.measures.registry import SUBTOPIC_FAMILIES

    if not has_subtopics(qrels):
        return qrels, None
    wanted = set(families) - {"runid", "num_q"}
    if wanted & SUBTOPIC_FAMILIES:
        if not wanted - SUBTOPIC_FAMILIES:
            return qrels, None
        return qrels, (
            f"{_source(qrels)}: second column read as subtopics (topic subtopic docno grade); "
            "the measures other than the diversity ones read each document's highest grade"
        )
    _refuse_repeats(qrels)
    if hasattr(qrels, "table"):
        return dataclasses.replace(qrels, table=qrels.table.drop_columns(["subtopic"])), None
    return qrels.drop(columns="subtopic"), None


def _source(qrels) -> str:
    """The qrels' file name (or the name a DataFrame's attrs give it)."""
    return qrels.source if hasattr(qrels, "table") else qrels.attrs.get("source", "qrels")


def _refuse_repeats(qrels) -> None:
    """A document judged twice for one topic (under two subtopics) is an error when no
    diversity measure reads the subtopics, as trec_eval refuses it."""
    frame = qrels.frame() if hasattr(qrels, "table") else qrels
    repeated = frame.duplicated(["topic", "docno"]).to_numpy()
    if not repeated.any():
        return
    row = int(np.flatnonzero(repeated)[0])
    topic, docno = str(frame["topic"].iloc[row]), str(frame["docno"].iloc[row])
    problem = (
        f"document {docno} is judged twice for topic {topic} (a subtopic qrels, topic "
        "subtopic docno grade, is read only with a diversity measure: alpha_ndcg, err_ia, "
        "nrbp, p_ia, strec)"
    )
    if hasattr(qrels, "table"):
        from irscore.engine.reading.trec import TrecFormatError

        raise TrecFormatError(qrels.source, qrels.line_of(row), problem)
    raise InputError(f"{_source(qrels)}: {problem}")


def collapsed(frame: pd.DataFrame) -> pd.DataFrame:
    """A subtopic qrels as an ordinary one: each (topic, docno) once, with its highest grade."""
    out = frame.groupby(["topic", "docno"], observed=True, sort=True)["grade"].max().reset_index()
    out.attrs.update(frame.attrs)
    return out


class Subtopics:
    """The judgments of a qrels (a DataFrame or the readers' Records) per topic: its judged
    docnos in byte order and their grade for each subtopic (`UNJUDGED` where a document
    has none); read on first use, as only the diversity measures need it."""

    def __init__(self, qrels: pd.DataFrame | Records):
        self.qrels = qrels

    @cached_property
    def _topics(self) -> dict[str, tuple[dict[str, int], np.ndarray]]:
        """topic -> ({docno: row}, grades[row, subtopic]), rows in byte order of docno."""
        import pandas as pd

        frame = self.qrels.frame() if hasattr(self.qrels, "table") else self.qrels
        if "subtopic" in frame.columns:
            subtopic = frame["subtopic"].to_numpy(dtype=object)
        else:
            subtopic = np.zeros(len(frame), dtype=np.int8)
        topic_code, topics = pd.factorize(frame["topic"].to_numpy(dtype=object))
        doc_code, docnos = pd.factorize(frame["docno"].to_numpy(dtype=object))
        sub_code, _ = pd.factorize(subtopic)
        grade = frame["grade"].to_numpy(dtype=np.int64)
        by_bytes = sorted(range(len(docnos)), key=lambda i: str(docnos[i]).encode())
        rank_of = np.empty(len(docnos), dtype=np.int64)
        rank_of[by_bytes] = np.arange(len(docnos))
        sorted_docnos = np.asarray(docnos, dtype=object)[by_bytes]
        order = np.argsort(topic_code, kind="stable")
        bounds = np.searchsorted(topic_code[order], np.arange(len(topics) + 1))
        out = {}
        spans = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        for t, (start, stop) in enumerate(spans):
            rows = order[start:stop]
            ranks = rank_of[doc_code[rows]]
            judged = np.unique(ranks)
            columns, column = np.unique(sub_code[rows], return_inverse=True)
            grades = np.full((len(judged), len(columns)), UNJUDGED, dtype=np.int64)
            grades[np.searchsorted(judged, ranks), column] = grade[rows]
            index = {str(d): i for i, d in enumerate(sorted_docnos[judged].tolist())}
            out[str(topics[t])] = (index, grades)
        return out

    def coverage(self, topics: list[str], ranked: list[np.ndarray], rel_level: int) -> Coverage:
        """The Coverage of the ranked docnos of each topic (a topic the qrels lack covers
        nothing): relevance is grade >= `rel_level`, over the subtopics with a relevant
        document."""
        covers, judged = [], []
        for topic, docnos in zip(topics, ranked, strict=True):
            index, grades = self._topics.get(topic, ({}, np.zeros((0, 0), np.int64)))
            relevant = grades >= rel_level
            relevant = relevant[:, relevant.any(axis=0)]
            rows = np.array([index.get(d, -1) for d in docnos.tolist()], dtype=np.int64)
            run = np.zeros((len(rows), relevant.shape[1]), dtype=bool)
            found = rows >= 0
            run[found] = relevant[rows[found]]
            covers.append(run)
            judged.append(relevant)
        return Coverage(np.asarray(topics, dtype=object), covers, judged)
