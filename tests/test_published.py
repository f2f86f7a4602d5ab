"""Published figures: the data file, the verdict arithmetic, and no figure that matched
regresses (regenerated on Cranfield and compared with tests/expected_published_verdicts.yaml)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from irscore.analysis.published import (
    EQUAL,
    Figure,
    compare,
    ir_measures_check,
    load_published,
    printed_like,
    regenerate,
)
from irscore.engine.evaluate import evaluate
from irscore.engine.measures import spec_from_config
from irscore.engine.ranking.conventions import Convention, conventions_from_config
from irscore.engine.reading.trec import read_qrels, read_run
from irscore.pipeline.retrieve import retrieve_to_files

REPO = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((REPO / "config.yaml").read_text())
PUBLISHED = load_published(REPO / CONFIG["published"])
EXPECTED = yaml.safe_load((REPO / "tests" / "expected_published_verdicts.yaml").read_text())
# Only what the figures need, so that regenerating them stays quick.
FAMILIES = ["map", "ndcg_cut", "recip_rank", "P", "recall", "iprec_at_recall", "11pt_avg"]


def figure(printed: str, printed_as: str, **fields) -> Figure:
    base = {"experiment": "x", "run": "r", "label": "l", "measure": "map"}
    return Figure(
        **{**base, "convention": "reference", **fields}, printed=printed, printed_as=printed_as
    )


def test_the_published_file_names_configured_runs_and_conventions():
    for f in PUBLISHED.figures:
        assert f.run in CONFIG["retrievers"], f.key
        assert f.convention in CONFIG["conventions"], f.key
        assert f.versus is None or f.versus in CONFIG["conventions"], f.key
        assert PUBLISHED.sources[f.experiment]
    assert set(PUBLISHED.sources) == {"textbook", "lab"}
    assert {f.run for f in PUBLISHED.figures} == {
        name for name in CONFIG["retrievers"] if name.startswith(("textbook_", "lab_"))
    }
    assert set(PUBLISHED.ir_measures_runs()) == {"lab_tfidf", "lab_bm25", "lab_bm25_word"}


def test_every_figure_has_a_recorded_verdict():
    assert sorted(EXPECTED) == sorted(f.key for f in PUBLISHED.figures)
    assert set(EXPECTED.values()) <= {"equal", "differs"}


@pytest.mark.parametrize(
    ("value", "printed", "printed_as", "expected"),
    [
        (0.27374011, "0.2737", "truncated", "0.2737"),
        (0.27379, "0.2737", "truncated", "0.2737"),  # truncation never rounds up
        (0.27379, "0.2738", "rounded", "0.2738"),
        (0.125, "0.12", "rounded", "0.12"),  # exactly half: to even, as printf does
        (0.375, "0.38", "unstated", "0.38"),  # unstated is compared rounded
        (0.2204, "0.2204", "unstated", "0.2204"),
        (180.0, "179", "exact", "180"),
        (math.nan, "0.1", "rounded", ""),
    ],
)
def test_printed_like_the_source(value, printed, printed_as, expected):
    assert printed_like(value, figure(printed, printed_as)) == expected


def long_table(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A run's long table from (convention, topic, map) rows."""
    return pd.DataFrame(
        [("r", c, t, "map", v) for c, t, v in rows],
        columns=["run", "convention", "topic", "measure", "value"],
    )


def test_regenerate_means_and_differing_topics():
    table = long_table(
        [
            ("reference", "1", 0.5),
            ("reference", "2", 0.25),
            ("reference", "all", 0.375),
            ("asc", "1", 0.5),
            ("asc", "2", 0.5),
            ("asc", "all", 0.5),
        ]
    )
    assert regenerate(figure("0.375", "rounded"), table) == 0.375
    assert regenerate(figure("0.5", "rounded", convention="asc"), table) == 0.5
    # topic 2 alone differs between the two orders
    assert regenerate(figure("1", "exact", convention="asc", versus="reference"), table) == 1.0
    assert math.isnan(regenerate(figure("0.1", "rounded", convention="nope"), table))


def test_compare_reports_difference_and_verdict(tmp_path):
    path = tmp_path / "published.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            experiments:
              book: {source: a book}
            notes:
              why: What is known.
            figures:
              - {experiment: book, run: r, label: MAP, measure: map, convention: reference,
                 printed: "0.3749", printed_as: truncated}
              - {experiment: book, run: r, label: MAP, measure: map, convention: asc,
                 printed: "0.4", printed_as: rounded, note: why}
              - {experiment: book, run: other, label: MAP, measure: map,
                 convention: reference, printed: "0.1", printed_as: rounded}
            """
        )
    )
    table = long_table([("reference", "all", 0.375), ("asc", "all", 0.5)])
    result = compare(load_published(path), {"r": table})
    assert list(result["verdict"]) == ["differs", "differs", "missing"]
    assert list(result["regenerated_printed"]) == ["0.3750", "0.5", ""]
    assert result["difference"].iloc[0] == pytest.approx(0.375 - 0.3749)
    assert list(result["note"]) == ["", "What is known.", ""]
    assert result["source"].iloc[0] == "a book"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"printed": 0.2}, "figure 1: printed must be the number as printed, in quotes"),
        ({"printed_as": "rounded down"}, "figure 1: printed_as must be one of"),
        ({"experiment": "film"}, "figure 1: unknown experiment 'film'"),
        ({"note": "nope"}, "figure 1: unknown note 'nope'"),
        ({"colour": "red"}, "figure 1: unknown key 'colour'"),
    ],
)
def test_load_errors_name_the_figure(tmp_path, edit, message):
    entry = {
        "experiment": "book",
        "run": "r",
        "label": "MAP",
        "measure": "map",
        "convention": "reference",
        "printed": "0.2",
        "printed_as": "rounded",
    }
    path = tmp_path / "published.yaml"
    data = {"experiments": {"book": {"source": "a book"}}, "figures": [{**entry, **edit}]}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=message):
        load_published(path)


def test_ir_measures_check_on_a_hand_made_run(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "r.run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n")
    run.write_text("1 Q0 d2 1 0.90000000 r\n1 Q0 d1 2 0.80000000 r\n1 Q0 d3 3 0.70000000 r\n")
    ap = (1 / 2 + 2 / 3) / 2  # relevant at ranks 2 and 3, two relevant documents
    path = tmp_path / "published.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            experiments:
              lab:
                source: notes
                ir_measures: {AP(rel=1): map, RR(rel=1): recip_rank}
            figures:
              - {experiment: lab, run: r, label: AP, measure: map, convention: reference,
                 printed: "0.58", printed_as: truncated}
            """
        )
    )
    ours = evaluate(read_qrels(qrels), read_run(run), [Convention()], run_name="r")
    table = ir_measures_check(load_published(path), qrels, {"r": run}, {"r": ours})
    assert list(table["ir_measures"]) == ["AP(rel=1)", "RR(rel=1)"]
    assert list(table["ir_measures_value"]) == pytest.approx([ap, 1 / 2])
    assert table["agrees"].all()


@pytest.fixture(scope="module")
def regenerated(cranfield, tmp_path_factory):
    """Every published run regenerated on Cranfield from its config entry, and its long
    table under the conventions the figures name: {run: (run file, table)}."""
    folder = tmp_path_factory.mktemp("published")
    named = {f.convention for f in PUBLISHED.figures} | {f.versus for f in PUBLISHED.figures}
    conventions = conventions_from_config(
        {name: CONFIG["conventions"][name] for name in sorted(named - {None})}
    )
    spec = spec_from_config({**CONFIG["measures"], "families": FAMILIES})
    qrels = read_qrels(cranfield / "qrels.txt")
    out = {}
    for name in PUBLISHED.runs():
        entry = CONFIG["retrievers"][name]
        run = folder / f"{name}.run"
        retrieve_to_files(
            docs=cranfield / "docs.jsonl",
            queries=cranfield / "queries.tsv",
            run=run,
            manifest=folder / f"{name}.json",
            name=name,
            spec=entry,
            analyzer=CONFIG["analyzers"][entry.get("analyzer", "default")],
        )
        out[name] = (run, evaluate(qrels, read_run(run), conventions, spec, name))
    return out


def test_no_published_figure_that_matched_regresses(regenerated):
    result = compare(PUBLISHED, {name: table for name, (_, table) in regenerated.items()})
    verdicts = dict(zip([f.key for f in PUBLISHED.figures], result["verdict"], strict=True))
    regressed = [k for k, v in EXPECTED.items() if v == EQUAL and verdicts[k] != EQUAL]
    assert not regressed, result.set_index("run").loc[:, ["figure", "published", "regenerated"]]
    # every verdict is the recorded one: a figure that starts to match is recorded, so a
    # change of either kind is seen (the file is not rewritten by the code)
    changed = {k: f"{v} -> {verdicts[k]}" for k, v in EXPECTED.items() if verdicts[k] != v}
    assert not changed, changed
    # the lab's figures all match, and so do the textbook's TF-IDF and BIM MAPs
    assert (result[result["experiment"] == "lab"]["verdict"] == EQUAL).all()


def test_bim_interpolated_precision_matches_under_ascending_document_numbers(
    cranfield, regenerated
):
    """The explanation given for BIM's interpolated precision, measured: with ties broken by
    ascending document number, the run prints every published value."""
    run, _ = regenerated["textbook_bim"]
    order = Convention(name="textbook_numeric", tie_break="docno_numeric", interpolation="textbook")
    spec = spec_from_config({"families": ["iprec_at_recall", "11pt_avg"]})
    table = evaluate(read_qrels(cranfield / "qrels.txt"), read_run(run), [order], spec)
    means = table[table["topic"] == "all"].set_index("measure")["value"]
    explained = [f for f in PUBLISHED.figures if f.note == "bim_interpolated"]
    assert len(explained) == 7
    for f in explained:
        assert printed_like(float(means[f.measure]), f) == f.printed, f.key


def test_ir_measures_agrees_with_irscore_on_the_lab_runs(cranfield, regenerated):
    runs = {name: run for name, (run, _) in regenerated.items()}
    tables = {name: table for name, (_, table) in regenerated.items()}
    check = ir_measures_check(PUBLISHED, cranfield / "qrels.txt", runs, tables)
    assert len(check) == 15
    assert check["agrees"].all(), check
