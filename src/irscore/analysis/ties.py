"""Ties in runs, and what their order does to AP: the tie-break table.

Scores are compared at float32 precision, as trec_eval 9 stores them: two
scores that differ only beyond float32 precision are a tie. The MAP columns
come from the long tables, one per configured convention that changes only
the tie-break; a tie-break with no such convention shows n/a.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from irscore.analysis.results import Results, per_topic
from irscore.engine.ranking.conventions import REFERENCE
from irscore.engine.ranking.prepare import Prepared
from irscore.engine.ranking.rank import as_float32, rank

TOP = 10
# Orders of tied documents (trec_eval's first), then the tie-aware range over all orders.
ORDERS = ("docno_desc", "docno_asc", "docno_numeric", "rank", "file_order")
RANGE = ("pessimistic", "expected", "optimistic")
TIED_IN_TOP = f"tie in top {TOP}"
TIED_DOCS = "tied docs"
CAPTION = (
    "MAP under each order of tied scores (docno_desc is trec_eval's) and over the "
    "tie-aware range; topics whose AP differs from the reference under each order; "
    f"topics with a tie in the top {TOP}; the largest per-topic AP change"
)


def tie_counts(p: Prepared, top: int = TOP) -> dict[str, int]:
    """How tied a run is (`p`: it and its qrels, `prepare.prepare`d), over the topics the
    reference convention evaluates.

    `tie in top k`: topics where a document ranked in the top k shares its
    float32 score with another retrieved document of the topic, so the tie-break
    decides the order of the top k or which documents it holds. `tied docs`:
    how many retrieved documents share their score with another.
    """
    ranking, rows, _, _ = rank(p, REFERENCE)
    if not len(rows):
        return {TIED_IN_TOP: 0, TIED_DOCS: 0}
    topic = ranking.topic_of_row
    score = as_float32(p.run_score[rows])
    first = np.r_[True, (topic[1:] != topic[:-1]) | (score[1:] != score[:-1])]
    group = np.cumsum(first) - 1
    tied = np.bincount(group)[group] > 1
    in_top = tied & (ranking.rank <= top)
    return {TIED_IN_TOP: int(np.unique(topic[in_top]).size), TIED_DOCS: int(tied.sum())}


def tie_row(
    results: Results, run: str, orders: Mapping[str, str], counts: Mapping[str, int]
) -> dict[str, Any]:
    """One run's row: MAP per tie-break, topics whose AP moves, ties, the largest change."""
    table = results.table(run)
    table = table[table["measure"] == "map"]  # the row's only measure: filter once
    reference = per_topic(table, "map", orders["docno_desc"])
    ap = {
        tie: per_topic(table, "map", name).reindex(reference.index) for tie, name in orders.items()
    }
    row: dict[str, Any] = {
        f"MAP {tie}": results.mean(run, "map", orders[tie]) if tie in orders else np.nan
        for tie in (*ORDERS, *RANGE)
    }
    for tie in ORDERS[1:]:
        row[f"changed {tie}"] = int((ap[tie] != reference).sum()) if tie in ap else pd.NA
    bounds = "pessimistic" in ap and "optimistic" in ap
    row["AP range > 0"] = int((ap["optimistic"] > ap["pessimistic"]).sum()) if bounds else pd.NA
    row[TIED_IN_TOP] = int(counts[TIED_IN_TOP])
    row[TIED_DOCS] = int(counts[TIED_DOCS])
    deltas = [(ap[tie] - reference).abs() for tie in ORDERS[1:] if tie in ap]
    changes = pd.concat(deltas) if deltas else pd.Series(dtype=float)
    moved = changes.notna().any()
    row["max AP change"] = float(changes.max()) if moved else np.nan
    row["at topic"] = str(changes.idxmax()) if moved and changes.max() > 0 else pd.NA
    return row


def tie_table(results: Results, counts: Sequence[Mapping[str, int]]) -> pd.DataFrame:
    """One row per run (in the order of `results`); `counts` are the runs' `tie_counts`."""
    orders = results.single_change("tie_break")
    rows = [tie_row(results, run, orders, c) for run, c in zip(results.runs, counts, strict=True)]
    frame = pd.DataFrame(rows, index=pd.Index(results.runs))
    frame.index.name = "run"
    integers = [f"changed {tie}" for tie in ORDERS[1:]] + ["AP range > 0", TIED_IN_TOP, TIED_DOCS]
    return frame.astype(dict.fromkeys(integers, "Int64") | {"at topic": "string"})
