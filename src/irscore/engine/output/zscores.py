"""trec_eval's -Z: each per-topic value as a z-score against a file of per-topic means
and standard deviations (get_zscores.c, convert_zscores.c), then averaged as usual.

The file has lines `topic measure mean stddev` (whitespace-separated, the measure
as trec_eval prints it; `nan` is read, as trec_eval's atof reads it: its own
quicktest file has `nan` for set_F, which makes that z-score nan). A value
becomes (value - mean) / stddev; with a stddev of 0 it is 0 when it equals the
mean. A topic missing from the file, a measure missing for a topic, or a value
off a zero stddev's mean is trec_eval's MISSING_ZSCORE_VALUE, -1000000.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import numpy as np

from irscore.engine.reading import trec
from irscore.engine.reading.trec import TrecFormatError

MISSING = -1000000.0


def read_zscores(path: str | os.PathLike) -> dict[tuple[str, str], tuple[float, float]]:
    """{(topic, measure): (mean, stddev)}; a malformed or repeated line is an error naming
    its line. Blank lines and `#` comments are skipped, as in every irscore input."""
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for line_no, line, fields in trec.data_lines(path):
        if len(fields) != 4:
            problem = f"expected 4 fields (topic measure mean stddev), found {len(fields)}"
            raise TrecFormatError(path, line_no, problem, line)
        try:
            mean, stddev = float(fields[2]), float(fields[3])
        except ValueError:
            problem = "mean and stddev must be numbers"
            raise TrecFormatError(path, line_no, problem, line) from None
        key = (fields[0], fields[1])
        if key in table:
            raise TrecFormatError(path, line_no, f"{key[1]} of topic {key[0]} is repeated", line)
        table[key] = (mean, stddev)
    return table


def convert(
    table: Mapping[tuple[str, str], tuple[float, float]],
    values: Mapping[str, np.ndarray],
    topics: np.ndarray,
    text: frozenset[str] = frozenset(),
) -> dict[str, np.ndarray]:
    """The per-topic values as z-scores (the `text` measures, relstring, left as they are).
    A geometric mean's per-topic value is trec_eval's log(max(value, 0.00001)): that is
    what is turned into a z-score (m_gm_map.c, m_gm_bpref.c)."""
    from irscore.engine.measures import registry

    known = {topic for topic, _ in table}
    out = {}
    for measure, column in values.items():
        if measure in text:
            out[measure] = column
            continue
        if registry.family_of(measure).aggregate == "geometric":
            column = np.log(np.maximum(column, registry.MIN_GEO_MEAN))
        z = np.full(len(column), MISSING)
        for i, (topic, value) in enumerate(zip(topics.tolist(), column.tolist(), strict=True)):
            found = table.get((topic, measure)) if topic in known else None
            if found is None:
                continue
            mean, stddev = found
            if math.isnan(value):  # irscore's NaN is trec_eval's 0/0, whose sign is set
                value = -math.nan
            if stddev:
                z[i] = (value - mean) / stddev  # a NaN keeps its sign, as in C
            elif value == mean:
                z[i] = 0.0
        out[measure] = z
    return out


def means(
    values: Mapping[str, np.ndarray],
    before: Mapping[str, float],
    counted: np.ndarray,
    missing: int,
    complete: bool,
) -> dict[str, float]:
    """The `all` values of the z-scores: trec_eval's aggregates of the `counted` topics
    (-c's topics without results: `missing` more in the divisor under trec_eval 9);
    -c's num_rel stays the count of the whole qrels, as m_num_rel.c takes it; a
    geometric mean is exp of the mean z-score (of the logs), a missing topic adding
    log(0.00001) (meas_avg.c)."""
    from irscore.engine.measures import registry
    from irscore.engine.measures.aggregation import aggregate

    out = {}
    for name, value in before.items():
        how = registry.family_of(name).aggregate
        if complete and how == "relevant":
            out[name] = value
        elif how == "geometric":
            z = np.asarray(values[name])[counted]
            n = len(z) + missing
            total = (float(np.cumsum(z)[-1]) if len(z) else 0.0) + missing * math.log(
                registry.MIN_GEO_MEAN
            )
            out[name] = math.exp(total / n) if n else 0.0
        else:
            out[name] = aggregate(name, np.asarray(values[name])[counted], missing)
    return out
