"""Tie diagnostics and the tie-break table, on tiny runs worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscore.analysis.results import Results
from irscore.analysis.ties import TIED_DOCS, TIED_IN_TOP, tie_counts, tie_table
from irscore.engine.evaluate import evaluate
from irscore.engine.ranking.conventions import conventions_from_config
from irscore.engine.ranking.prepare import prepare
from irscore.engine.reading.trec import read_qrels, read_run
from irscore.report import tables


def read(tmp_path, name, text, reader):
    path = tmp_path / name
    path.write_text(text)
    return reader(path)


def run_lines(topic: str, scores: list[float]) -> str:
    return "".join(
        f"{topic} Q0 t{topic}d{i:02d} {i} {score!r} r\n" for i, score in enumerate(scores, 1)
    )


def test_tie_counts_top_10_at_float32(tmp_path):
    distinct = [float(s) for s in range(20, 8, -1)]  # 20 .. 9: no ties
    run = (
        run_lines("1", [30.0, 29.0, 29.0, *distinct[3:]])  # tie at ranks 2-3
        + run_lines("2", [*distinct[:10], 0.5, 0.5])  # tie at ranks 11-12 only
        + run_lines("3", [*distinct[:9], 1.0, 1.0, 0.5])  # tie across ranks 10-11
        + run_lines("4", [1.0 + 1e-9, 1.0, 0.5])  # equal as float32 only
        + run_lines("5", [1.0, 1.0])  # no judgments: not evaluated
    )
    qrels = "".join(f"{t} 0 t{t}d01 1\n" for t in "1234")
    counts = tie_counts(
        prepare(read(tmp_path, "q", qrels, read_qrels), read(tmp_path, "r", run, read_run))
    )
    # topics 1, 3 and 4 have a document in the top 10 that shares its score; topic 2 does not
    assert counts == {TIED_IN_TOP: 3, TIED_DOCS: 2 + 2 + 2 + 2}


QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
# Topic 1: a (relevant) and b tie; trec_eval puts b first (docno descending): AP 1/2.
# Every other order puts a first (AP 1). Topic 2 has no tie: AP 1 everywhere.
RUN = "1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 2.0 r\n2 Q0 d 2 1.0 r\n"
TIES = {
    "reference": {},
    "tie_docno_asc": {"tie_break": "docno_asc"},
    "tie_docno_numeric": {"tie_break": "docno_numeric"},
    "tie_rank": {"tie_break": "rank"},
    "tie_file_order": {"tie_break": "file_order"},
    "tie_optimistic": {"tie_break": "optimistic"},
    "tie_pessimistic": {"tie_break": "pessimistic"},
}


def tie_frame(tmp_path, conventions):
    qrels = read(tmp_path, "q", QRELS, read_qrels)
    run = read(tmp_path, "r", RUN, read_run)
    table = evaluate(qrels, run, conventions_from_config(conventions), run_name="r")
    return tie_table(Results([table], conventions), [tie_counts(prepare(qrels, run))])


def test_tie_table_by_hand(tmp_path):
    row = tie_frame(tmp_path, TIES).loc["r"]
    assert row["MAP docno_desc"] == pytest.approx((1 / 2 + 1) / 2)
    for order in ("docno_asc", "docno_numeric", "rank", "file_order", "optimistic"):
        assert row[f"MAP {order}"] == pytest.approx(1.0)
        assert order == "optimistic" or row[f"changed {order}"] == 1
    assert row["MAP pessimistic"] == pytest.approx(0.75)
    assert np.isnan(row["MAP expected"])  # no convention configured for it
    assert row["AP range > 0"] == 1
    assert row[TIED_IN_TOP] == 1 and row[TIED_DOCS] == 2
    assert row["max AP change"] == pytest.approx(0.5) and row["at topic"] == "1"


def test_tie_table_expected_column_when_configured(tmp_path):
    conventions = {**TIES, "tie_expected": {"tie_break": "expected"}}
    row = tie_frame(tmp_path, conventions).loc["r"]
    # topic 1: the mean of AP 1 (a first) and 1/2 (b first); topic 2: 1
    assert row["MAP expected"] == pytest.approx(((1 + 1 / 2) / 2 + 1) / 2)


def test_tie_table_shows_n_a_for_what_is_not_configured(tmp_path):
    frame = tie_frame(tmp_path, {"reference": {}, "asc": {"tie_break": "docno_asc"}})
    text = tables.markdown(frame)
    header, _, body = (line.strip("| ").split(" | ") for line in text.splitlines())
    cells = dict(zip(header, body, strict=True))
    assert cells["MAP docno_asc"] == "1.0000" and cells["changed docno_asc"] == "1"
    assert cells["MAP pessimistic"] == "n/a" and cells["changed rank"] == "n/a"
    assert cells["AP range > 0"] == "n/a" and cells["at topic"] == "1"


def test_tie_table_with_only_the_reference(tmp_path):
    row = tie_frame(tmp_path, {"reference": {}}).loc["r"]
    assert row["MAP docno_desc"] == pytest.approx(0.75)
    assert np.isnan(row["max AP change"]) and row["at topic"] is pd.NA
