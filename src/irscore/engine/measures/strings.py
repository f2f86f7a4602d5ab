"""Measures whose per-topic value is a string: trec_eval's relstring (m_relstring.c)."""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import Context, Ranking

RELSTRING_DEFAULT = 10
_LONG = 2**63  # C's long on x86-64


def relstring_length(text: str | None) -> int:
    """N of `-m relstring.N`: trec_eval's `(long) atof(N)`, truncated toward zero; a number
    beyond a long's range converts to LONG_MIN on x86-64, so it shows nothing."""
    if text is None:
        return RELSTRING_DEFAULT
    value = float(text)
    return int(value) if -_LONG <= value < _LONG else -_LONG


def relstring(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """The first N ranks of each topic as one character each: the grade when it is 0-9,
    `>` above 9, `.` for a document whose qrels line has a negative grade (in the pool
    but unjudged) and `-` for one without a qrels line; shorter when fewer documents
    are retrieved, empty when N < 1. trec_eval's `<` (any other negative value) cannot
    occur: its form_res_rels.c turns every negative grade into "unjudged", `.`.

    Rows without a qrels line need not be present (`Ranking.pooled`): they are the
    `-` every position starts as. Values are an object array of str, one per topic.
    """
    shown = np.clip(r.lengths, 0, max(relstring_length(text), 0))
    ends = np.cumsum(shown)
    starts = ends - shown
    chars = np.full(int(ends[-1]) if len(ends) else 0, ord("-"), dtype=np.uint8)
    topic, rank = r.topic_of_row, r.rank
    rows = np.flatnonzero(r.pool & (rank <= shown[topic]))
    grade = r.grade[rows]
    digit = np.where(grade > 9, ord(">"), ord("0") + np.clip(grade, 0, 9))
    chars[starts[topic[rows]] + rank[rows] - 1] = np.where(r.judged[rows], digit, ord("."))
    line = chars.tobytes().decode("ascii")
    values = np.empty(len(shown), dtype=object)
    values[:] = [line[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    return {parameter_name("relstring", text): values}
