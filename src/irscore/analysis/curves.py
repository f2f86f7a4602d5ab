"""Precision-recall curves: the averaged 11-point curves, and one topic's curve at every rank.

The 11-point values are the evaluator's own (`iprec_at_recall_*` rows of the
long tables), one table per interpolation rule, so the curves and the tables
always agree with `11pt_avg`. One topic's per-rank curve is recomputed from the
run under the reference ranking (float32 scores, ties by docno descending),
together with its interpolated envelope and its ROC curve. The figures of
both are drawn by `irscore.report.plots`, their tables written by
`irscore.report.pipeline`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irscore.analysis.results import Results
from irscore.engine.measures import RECALL_LEVELS
from irscore.engine.ranking.conventions import REFERENCE
from irscore.engine.ranking.prepare import prepare
from irscore.engine.ranking.rank import rank

LEVEL_MEASURES = tuple(f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS)
LEVEL_LABELS = tuple(f"{level:.1f}" for level in RECALL_LEVELS)


def curve_table(results: Results, convention: str) -> pd.DataFrame:
    """One row per run: mean interpolated precision at each recall level, and 11pt_avg."""
    frame = results.means([*LEVEL_MEASURES, "11pt_avg"], convention)
    frame.columns = [*LEVEL_LABELS, "11pt_avg"]
    return frame


def topic_points(results: Results, run: str, topic: str) -> pd.DataFrame:
    """One topic's 11 interpolated precision values (rows: recall levels) of one run under
    each interpolation rule some convention isolates."""
    columns = {}
    for rule, convention in results.interpolations.items():
        values = results.topic(run, topic, convention)
        columns[rule] = [values[m] for m in LEVEL_MEASURES]
    return pd.DataFrame(columns, index=pd.Index(RECALL_LEVELS, name="recall"))


def topic_curve(qrels: pd.DataFrame, run: pd.DataFrame, topic: str, documents: int) -> pd.DataFrame:
    """Precision, recall and false positive rate at every rank of one topic.

    The ranking is the reference convention's; relevant means grade >= 1; the
    false positive rate divides the non-relevant documents passed by all the
    collection's documents that are not relevant (`documents` - relevant).
    """
    ranking, _, _, _ = rank(prepare(qrels, run), REFERENCE)
    where = np.flatnonzero(ranking.topics == topic)
    if not len(where):
        raise ValueError(f"topic {topic}: not evaluated (it needs judgments and a ranking)")
    index = int(where[0])
    num_rel = int(ranking.num_rel[index])
    if num_rel == 0:
        raise ValueError(f"topic {topic}: no relevant document, so no recall")
    rel = ranking.rel[ranking.starts[index] : ranking.starts[index + 1]]
    found = np.cumsum(rel)
    ranks = np.arange(1, len(rel) + 1)
    return pd.DataFrame(
        {
            "rank": ranks,
            "relevant": rel,
            "precision": found / ranks,
            "recall": found / num_rel,
            "fpr": (ranks - found) / (documents - num_rel),
        }
    )


def envelope(curve: pd.DataFrame) -> pd.DataFrame:
    """The interpolated precision p(r) = max precision at any recall >= r, as step points.

    Precision peaks at relevant ranks, so the maximum from each relevant rank on
    is the value on the recall interval that ends at that rank; past the last
    relevant document retrieved, the value is 0 up to recall 1.
    """
    relevant = curve[curve["relevant"]]
    best = np.maximum.accumulate(relevant["precision"].to_numpy()[::-1])[::-1]
    recall = relevant["recall"].to_numpy()
    first = best[:1] if len(best) else np.zeros(1)
    last = recall[-1] if len(recall) else 0.0
    tail = ([last, 1.0], [0.0, 0.0]) if last < 1.0 else ([], [])
    return pd.DataFrame(
        {
            "recall": np.r_[0.0, recall, tail[0]],
            "precision": np.r_[first, best, tail[1]],
        }
    )


def roc_auc(curve: pd.DataFrame) -> float:
    """Area under the ROC curve from (0, 0) through every rank to (1, 1), the documents
    not retrieved taken in random order (a straight line)."""
    fpr = np.r_[0.0, curve["fpr"].to_numpy(), 1.0]
    tpr = np.r_[0.0, curve["recall"].to_numpy(), 1.0]
    return float(np.trapezoid(tpr, fpr))
