"""Precision-recall curves: 11-point tables, one topic's per-rank curve, envelope and ROC,
each checked against arithmetic written out by hand."""

from __future__ import annotations

import pytest

from irscore.analysis.curves import (
    LEVEL_LABELS,
    curve_table,
    envelope,
    roc_auc,
    topic_curve,
    topic_points,
)
from irscore.analysis.results import Results
from irscore.engine.evaluate import evaluate
from irscore.engine.ranking.conventions import conventions_from_config
from irscore.engine.reading.trec import read_qrels, read_run
from irscore.report.layout import interpolation_conventions

CONVENTIONS = {
    "reference": {},
    "tie_docno_asc": {"tie_break": "docno_asc"},
    "interp_textbook": {"interpolation": "textbook"},
    "interp_trec_eval10": {"interpolation": "trec_eval10"},
    "both": {"interpolation": "textbook", "depth": 5},
}
# Topic 1: R = 2; a (relevant) at rank 1, b (relevant) at rank 3.
# Topic 2: R = 3; d at rank 2, e at rank 4, f never retrieved.
QRELS = "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 2\n2 0 e 1\n2 0 f 1\n"
RUN = (
    "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 b 3 1 r\n"
    "2 Q0 x 1 4 r\n2 Q0 d 2 3 r\n2 Q0 y 3 2 r\n2 Q0 e 4 1 r\n"
)


def read(tmp_path, name, text, reader):
    path = tmp_path / name
    path.write_text(text)
    return reader(path)


@pytest.fixture
def table(tmp_path):
    qrels = read(tmp_path, "qrels", QRELS, read_qrels)
    run = read(tmp_path, "run", RUN, read_run)
    return evaluate(qrels, run, conventions_from_config(CONVENTIONS), run_name="r")


def close(value):
    return pytest.approx(value, rel=1e-12, abs=1e-15)


def test_interpolation_conventions_in_rule_order_single_changes_only():
    # "both" changes two fields, so it does not isolate the textbook rule
    assert interpolation_conventions(CONVENTIONS) == {
        "trec_eval9": "reference",
        "trec_eval10": "interp_trec_eval10",
        "textbook": "interp_textbook",
    }


def test_curve_table_trec_eval9_by_hand(table):
    # Precision at the relevant ranks: topic 1: 1/1, 2/3; topic 2: 1/2, 2/4.
    # trec_eval9 asks for c = (long)(r*R + 0.9) relevant documents:
    #   topic 1 (R=2): c = 0,1,1,1,1,1 for r = 0 .. 0.5 -> max(1, 2/3) = 1;
    #                  c = 2 for r = 0.6 .. 1.0 -> 2/3
    #   topic 2 (R=3): c = 0,1,1,1,2,2,2 for r = 0 .. 0.6 -> 1/2;
    #                  r = 0.7: 0.7*3 + 0.9 = 2.9999999999999996 -> c = 2 -> 1/2;
    #                  c = 3 for r = 0.8 .. 1.0 -> only 2 retrieved -> 0
    row = curve_table(Results([table], CONVENTIONS), "reference").loc["r"]
    expected = [0.75] * 6 + [(2 / 3 + 1 / 2) / 2] * 2 + [(2 / 3 + 0) / 2] * 3
    assert list(row[list(LEVEL_LABELS)]) == [close(v) for v in expected]
    # 11pt_avg: topic 1 (6*1 + 5*2/3)/11 = 28/33, topic 2 8*(1/2)/11 = 4/11
    assert row["11pt_avg"] == close((28 / 33 + 4 / 11) / 2)


def test_curve_table_textbook_and_trec_eval10_by_hand(table):
    # textbook: c = ceil(r*R): topic 1 as trec_eval9; topic 2 c = 3 already at r = 0.7 -> 0
    textbook = curve_table(Results([table], CONVENTIONS), "interp_textbook").loc["r"]
    assert textbook["0.7"] == close((2 / 3 + 0) / 2)
    assert textbook["11pt_avg"] == close((28 / 33 + 7 * 0.5 / 11) / 2)
    # trec_eval10: c = lround(r*R): topic 1 c = 1 up to r = 0.7 (1.4 -> 1), 2 from 0.8;
    # topic 2 c = 2 up to r = 0.8 (2.4 -> 2), 3 from 0.9 (2.7 -> 3)
    te10 = curve_table(Results([table], CONVENTIONS), "interp_trec_eval10").loc["r"]
    assert te10["0.7"] == close((1 + 0.5) / 2)
    assert te10["0.8"] == close((2 / 3 + 0.5) / 2)
    assert te10["11pt_avg"] == close(((8 + 3 * 2 / 3) / 11 + 9 * 0.5 / 11) / 2)


def test_topic_points_are_the_long_tables(table):
    points = topic_points(Results([table], CONVENTIONS), "r", "2")
    assert list(points["trec_eval9"]) == [0.5] * 8 + [0.0] * 3
    assert list(points["textbook"]) == [0.5] * 7 + [0.0] * 4
    assert list(points["trec_eval10"]) == [0.5] * 9 + [0.0] * 2


def test_topic_curve_envelope_and_roc_by_hand(tmp_path):
    qrels = read(tmp_path, "qrels", QRELS, read_qrels)
    run = read(tmp_path, "run", RUN, read_run)
    curve = topic_curve(qrels, run, "2", documents=10)
    # ranks x, d, y, e: relevant F T F T; R = 3; non-relevant in the collection 10 - 3 = 7
    assert list(curve["relevant"]) == [False, True, False, True]
    assert list(curve["precision"]) == [close(v) for v in (0, 1 / 2, 1 / 3, 2 / 4)]
    assert list(curve["recall"]) == [close(v) for v in (0, 1 / 3, 1 / 3, 2 / 3)]
    assert list(curve["fpr"]) == [close(v) for v in (1 / 7, 1 / 7, 2 / 7, 2 / 7)]
    # envelope: max precision at recall >= r; 0 past recall 2/3 (f never retrieved)
    steps = envelope(curve)
    assert list(steps["recall"]) == [close(v) for v in (0, 1 / 3, 2 / 3, 2 / 3, 1)]
    assert list(steps["precision"]) == [close(v) for v in (1 / 2, 1 / 2, 1 / 2, 0, 0)]
    # ROC through (0,0) (1/7,0) (1/7,1/3) (2/7,1/3) (2/7,2/3) (1,1):
    # 1/7 * 1/3 + 5/7 * (2/3 + 1)/2 = 2/42 + 25/42 = 9/14
    assert roc_auc(curve) == close(9 / 14)


def test_topic_curve_refuses_a_topic_it_cannot_draw(tmp_path):
    qrels = read(tmp_path, "qrels", QRELS + "3 0 z 0\n", read_qrels)
    run = read(tmp_path, "run", RUN + "3 Q0 z 1 1 r\n", read_run)
    with pytest.raises(ValueError, match="topic 9: not evaluated"):
        topic_curve(qrels, run, "9", documents=10)
    with pytest.raises(ValueError, match="topic 3: no relevant document"):
        topic_curve(qrels, run, "3", documents=10)
