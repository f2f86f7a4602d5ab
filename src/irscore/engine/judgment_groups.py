"""trec_eval's judgment groups (`-R qrels_jg`): a qrels whose second column names the
judgment group (a user's set of judgments) of each line; map_avgjg, P_avgjg and
Rprec_mult_avgjg score the run against each group of a topic and average over
its groups (m_*_avgjg.c, form_res_rels_jg.c).

Each (topic, group) is scored as a topic of its own (named `topic\\x01group`, so
that the groups of a topic sort together, in the order trec_eval sorts them),
with the run's ranking of that topic, under the convention as any topic is; the
values of a topic's groups are then added in group order and divided by their
number when there is more than one, as trec_eval does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from irscore.engine.reading import trec
from irscore.engine.reading.trec import TrecFormatError

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.measures import MeasureSpec
    from irscore.engine.ranking.conventions import Convention

SEPARATOR = "\x01"  # below every character of a topic id: a topic's groups sort together
_GRADE = re.compile(r"[+-]?[0-9]{1,15}")


def read_qrels_jg(path: str | os.PathLike) -> pd.DataFrame:
    """`topic group docno grade` lines as a qrels frame whose topics are `topic\\x01group`;
    blank and `#` lines skipped; a malformed line, or a document judged twice in one
    group, is an error naming its line."""
    import pandas as pd

    rows: list[tuple[str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for line_no, line, fields in trec.data_lines(path):
        if len(fields) != 4:
            raise TrecFormatError(path, line_no, f"expected 4 columns, found {len(fields)}", line)
        topic, group, docno, grade = fields
        if not _GRADE.fullmatch(grade):
            problem = f"grade {grade!r} is not an integer of at most 15 digits"
            raise TrecFormatError(path, line_no, problem, line)
        key = (f"{topic}{SEPARATOR}{group}", docno)
        if key in seen:
            problem = (
                f"document {docno} is judged twice for topic {topic} in group {group} "
                f"(first on line {seen[key]})"
            )
            raise TrecFormatError(path, line_no, problem, line)
        seen[key] = line_no
        rows.append((key[0], docno, int(grade)))
    frame = pd.DataFrame(rows, columns=["topic", "docno", "grade"])
    frame["grade"] = frame["grade"].astype(np.int64)
    frame.attrs["source"] = str(path)
    return frame


def expanded_run(run: trec.Records, qrels_jg: pd.DataFrame) -> pd.DataFrame:
    """The run with each topic's rows once per judgment group of that topic (topics
    named as the groups' are); topics without judgments once, as they are."""
    import pandas as pd

    frame = run.frame()
    frame["topic"] = frame["topic"].astype(str)
    groups = pd.DataFrame({"group_topic": qrels_jg["topic"].unique()})
    groups["topic"] = groups["group_topic"].str.split(SEPARATOR).str[0]
    joined = frame.merge(groups, on="topic", how="left", sort=False)
    joined["topic"] = joined["group_topic"].fillna(joined["topic"])
    out = joined.drop(columns=["group_topic"])
    out.attrs["source"] = run.source
    return out


def evaluate(
    qrels_jg: pd.DataFrame, run: trec.Records, convention: Convention, spec: MeasureSpec
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], list[str], list[str]]:
    """(values over the topics, topic names, `all` values, -c's topics without results,
    the families the convention has no form for) of the judgment-group measures: each
    group scored as a topic, then averaged per topic."""
    from irscore.engine.evaluate import evaluate_records

    values, topics, _means, notes = evaluate_records(
        qrels_jg, expanded_run(run, qrels_jg), convention, spec
    )
    if len(topics) == 0:
        return {}, np.array([], dtype=object), {}, [], notes.not_computed
    parents = np.array([t.split(SEPARATOR)[0] for t in topics.tolist()], dtype=object)
    starts = np.flatnonzero(np.r_[True, parents[1:] != parents[:-1]])
    counts = np.diff(np.r_[starts, len(parents)])
    collapsed = {name: _per_topic(array, starts, counts) for name, array in values.items()}
    missing_groups = set(notes.qrels_topics_without_run)
    without_run = [
        parents[s]
        for s, n in zip(starts, counts, strict=True)
        if all(t in missing_groups for t in topics[s : s + n].tolist())
    ]
    topic_names = parents[starts]
    means = means_over_topics(collapsed, topic_names, without_run, convention)
    return collapsed, topic_names, means, without_run, notes.not_computed


def _per_topic(values: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each topic's groups added in order, divided by their number when more than one."""
    out = np.zeros(len(starts))
    for i, (start, n) in enumerate(zip(starts.tolist(), counts.tolist(), strict=True)):
        total = 0.0
        for value in values[start : start + n].tolist():
            total += value
        out[i] = total / n if n > 1 else total
    return out


def means_over_topics(
    values: Mapping[str, np.ndarray],
    topics: np.ndarray,
    without_run: list[str],
    convention: Convention,
) -> dict[str, float]:
    """trec_eval's `all` values of per-topic values: -c's topics without results are left
    out of the sums and counted in the divisor under trec_eval 9, added under 10."""
    from irscore.engine.measures import registry
    from irscore.engine.measures.aggregation import aggregate

    counted, missing = np.ones(len(topics), dtype=bool), 0
    if convention.missing_topics == "mean_only":
        counted = ~np.isin(topics, without_run)
        missing = int((~counted).sum())
    return {
        name: aggregate(name, np.asarray(array)[counted], missing)
        for name, array in values.items()
        if not registry.is_text(name)
    }
