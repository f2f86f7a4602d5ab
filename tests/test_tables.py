"""Table rendering (Markdown, CSV, LaTeX, HTML), convention lookup and the ideal run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscore.analysis.results import Results
from irscore.engine.evaluate import evaluate
from irscore.engine.ranking.conventions import Convention, single_change_conventions
from irscore.engine.reading.trec import read_qrels, read_run
from irscore.pipeline.ideal import ideal_run
from irscore.report import layout, tables
from irscore.report.summary import demoted, render


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "MAP": [0.123456, np.nan],
            "topics": pd.array([3, pd.NA], dtype="Int64"),
            "at topic": pd.array(["7", pd.NA], dtype="string"),
        },
        index=pd.Index(["a&b", "c"], name="run"),
    )


def test_markdown_rounds_aligns_and_shows_n_a():
    assert tables.markdown(frame()) == (
        "| run | MAP | topics | at topic |\n"
        "| --- | ---: | ---: | --- |\n"
        "| a&b | 0.1235 | 3 | 7 |\n"
        "| c | n/a | n/a | n/a |\n"
    )


def test_csv_keeps_every_digit_and_leaves_missing_empty():
    assert tables.csv(frame()) == "run,MAP,topics,at topic\na&b,0.123456,3,7\nc,,,\n"


def test_latex_escapes_and_rounds():
    text = tables.latex(frame(), "MAP & co_")
    assert "\\caption{MAP \\& co\\_}" in text
    assert "a\\&b & 0.1235 & 3 & 7 \\\\\n" in text and "c & n/a & n/a & n/a \\\\\n" in text


def test_html_escapes_and_aligns():
    text = tables.html(frame(), "<MAP>")
    assert "<caption>&lt;MAP&gt;</caption>" in text
    assert (
        '<tr><td class="text">a&amp;b</td><td class="num">0.1235</td>'
        '<td class="num">3</td><td class="text">7</td></tr>' in text
    )


def test_write_each_format(tmp_path):
    paths = {kind: str(tmp_path / f"t.{kind}") for kind in tables.FORMATS}
    tables.write(frame(), paths, caption="c")
    assert (tmp_path / "t.md").read_text() == tables.markdown(frame())
    assert (tmp_path / "t.html").read_text().startswith("<!DOCTYPE html>")


def test_paths_under_takes_one_writers_paths_from_a_jobs_outputs():
    outputs = {
        "reference_md": "r.md",
        "reference_csv": "r.csv",
        "curves_textbook_md": "c.md",
        "summary": "s.md",
    }
    assert layout.paths_under(outputs, "reference_") == {"md": "r.md", "csv": "r.csv"}
    assert layout.paths_under(outputs, "curves_") == {"textbook_md": "c.md"}
    assert layout.paths_under(outputs, "tiebreak_") == {}


def test_single_change_conventions_in_choice_order():
    conventions = {
        "reference": {},
        "textbook": {"interpolation": "textbook"},
        "asc": {"tie_break": "docno_asc"},
        "asc_again": {"tie_break": "docno_asc"},
        "asc_deep": {"tie_break": "docno_asc", "depth": 10},
        "pessimistic": {"tie_break": "pessimistic"},
    }
    assert single_change_conventions(conventions, "tie_break") == {
        "docno_desc": "reference",
        "docno_asc": "asc",  # the first configured wins; asc_deep changes two fields
        "pessimistic": "pessimistic",
    }


def test_ideal_run_orders_by_grade_then_docno_descending(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("2 0 x 1\n1 0 a 1\n1 0 b 3\n1 0 c -1\n1 0 d 0\n1 0 e 1\n")
    qrels = read_qrels(path)
    run = ideal_run(qrels)
    assert list(zip(run["topic"], run["docno"], run["rank"], run["score"], strict=True)) == [
        ("2", "x", 1, 1.0),
        ("1", "b", 1, 3.0),
        ("1", "e", 2, 1.0),  # equal grades: docno descending, as trec_eval orders ties
        ("1", "a", 3, 1.0),
    ]
    assert set(run["tag"]) == {"ideal"}
    means = evaluate(qrels, run, run_name="ideal")
    means = means[means["topic"] == "all"].set_index("measure")["value"]
    # topic 1: 3 relevant, topic 2: 1 relevant; every relevant document first
    assert means["map"] == 1.0 and means["ndcg"] == 1.0
    assert means["P_5"] == pytest.approx((3 / 5 + 1 / 5) / 2)


def test_demoted_nests_a_document():
    assert demoted("# A\n\ntext\n## B\n") == "## A\n\ntext\n### B\n"


def test_runs_over_other_topics_get_a_topics_column_and_a_note(tmp_path):
    qrels_path, full, part = tmp_path / "q", tmp_path / "full.run", tmp_path / "part.run"
    qrels_path.write_text("1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    full.write_text("1 Q0 a 1 1.0 full\n2 Q0 b 1 1.0 full\n3 Q0 c 1 1.0 full\n")
    part.write_text("1 Q0 a 1 1.0 part\n")
    qrels = read_qrels(qrels_path)
    runs = [evaluate(qrels, read_run(p), [Convention()], None, p.stem) for p in (full, part)]
    results = Results(runs)
    # part covers topic 1 only: its MAP (1.0) averages 1 of the 3 judged topics
    table = tables.headline(results, {"MAP": "map"}, judged_topics=3)
    assert list(table["topics"]) == ["3 of 3", "1 of 3"]
    assert list(table["MAP"]) == [1.0, 1.0]
    assert "**Not comparable:**" in render({}, table, "", "")
    same = tables.headline(results.subset(["full"]), {"MAP": "map"}, judged_topics=3)
    assert list(same.columns) == ["MAP"]  # nothing to flag: no column
    assert "Not comparable" not in render({}, same, "", "")
