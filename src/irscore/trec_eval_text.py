"""trec_eval's text output (`%-22s\\t%s\\t%6.4f`; relstring's `%-22s\\t%s\\t'%s'`), so
irscore's output can be diffed with it."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Mapping

import numpy as np

from irscore.measures.registry import has_topic_rows, is_integer, is_text, printed_per_topic


def format_value(measure: str, value: float) -> str:
    """Counts as integers (`%ld`), everything else as `%6.4f`, as trec_eval prints them.

    NaN (trec_eval's 0/0 for an empty ranking under -J) prints as glibc prints
    the NaN that 0.0/0.0 gives on x86-64: `-nan`.
    """
    if is_integer(measure):
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan':>6s}"
    return f"{value:6.4f}"


def format_column(measure: str, values: np.ndarray) -> list[str]:
    """`format_value` of each entry of one measure's array, the measure looked up once
    and the floats taken out of numpy in one go (1M-line runs print 30k+ lines);
    a text (relstring) in single quotes, as m_relstring.c prints it."""
    if is_text(measure):
        return [f"'{v}'" for v in values.tolist()]
    if is_integer(measure):
        return [str(int(v)) for v in values.tolist()]
    return [f"{'-nan':>6s}" if math.isnan(v) else f"{v:6.4f}" for v in values.tolist()]


def lines(
    values: Mapping[str, np.ndarray],
    topics: np.ndarray,
    means: Mapping[str, float],
    runid: str | None,
    per_topic: bool,
    summary: bool = True,
    printed_topics: Collection[str] | None = None,
) -> Iterator[str]:
    """Lines of one run under one convention, in trec_eval's order, from what
    `evaluate.evaluate_one` returns (per-topic arrays, topic names, means).

    Per-topic lines are printed for `printed_topics` only (trec_eval 9 prints
    no line for a topic the run lacks, even under -c). `runid` prints
    trec_eval's runid line. A text measure has per-topic lines only.
    """
    if per_topic:
        shown = [m for m in values if has_topic_rows(m) and printed_per_topic(m)]
        wanted = None if printed_topics is None else set(printed_topics)
        columns = [format_column(m, values[m]) for m in shown]
        labels = [f"{m:<22s}\t" for m in shown]
        for i, topic in enumerate(topics.tolist()):
            if wanted is not None and topic not in wanted:
                continue
            for label, column in zip(labels, columns, strict=True):
                yield f"{label}{topic}\t{column[i]}"
    if summary:
        if runid is not None:
            yield f"{'runid':<22s}\tall\t{runid}"
        for measure in means:
            yield f"{measure:<22s}\tall\t{format_value(measure, means[measure])}"
