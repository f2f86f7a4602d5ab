"""`irscore audit` on runs no fixture anticipated: BIM, and BIM with its ties re-broken."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from irscore.cli import main
from irscore.engine.evaluate import evaluate
from irscore.engine.output.long_table import read_long_table
from irscore.engine.ranking.conventions import Convention
from irscore.engine.reading.trec import read_qrels, read_run, write_run
from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.exports import read_docs, read_queries
from irscore.pipeline.retrieve import retrieve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def audited(cranfield, tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit")
    docs, queries = read_docs(cranfield / "docs.jsonl"), read_queries(cranfield / "queries.tsv")
    bim = retrieve(docs, queries, Analyzer(stopwords="english", stemmer="porter"), "bim", tag="bim")
    write_run(folder / "bim.run", bim)
    # The same scores, ties (at float32) re-broken by ascending docno, ranks rewritten.
    flipped = bim.assign(s32=bim["score"].astype(np.float32)).sort_values(
        ["topic", "s32", "docno"], ascending=[True, False, True], kind="stable"
    )
    flipped = flipped.assign(rank=flipped.groupby("topic").cumcount() + 1, tag="bim_asc")
    write_run(folder / "bim_asc.run", flipped.drop(columns="s32"))
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        status = main(
            [
                "audit",
                str(cranfield / "qrels.txt"),
                str(folder / "bim.run"),
                str(folder / "bim_asc.run"),
                "--out",
                str(folder / "out"),
                "--B",
                "500",
            ]
        )
    assert status == 0
    return folder, out.getvalue(), cranfield / "qrels.txt"


def test_audit_writes_every_artefact(audited):
    folder, _, _ = audited
    out = folder / "out"
    expected = [
        "eval/bim.tsv",
        "eval/bim_asc.tsv",
        "audit/conventions.md",
        "audit/conventions.csv",
        "tables/tiebreak.md",
        "tables/tiebreak.csv",
        "tables/curves_trec_eval9.csv",
        "tables/curves_textbook.csv",
        "plots/curves_trec_eval9.png",
        "plots/conventions.png",
        "compare/tests.tsv",
        "compare/flips.md",
    ]
    missing = [name for name in expected if not (out / name).is_file()]
    assert not missing


def test_rank_column_of_the_rebroken_run_is_bim_under_ascending_docnos(audited):
    folder, _, qrels_path = audited
    table = read_long_table(folder / "out" / "eval" / "bim_asc.tsv")
    by_rank = table[
        (table.convention == "tie_rank") & (table.topic == "all") & (table.measure == "map")
    ]
    direct = evaluate(
        read_qrels(qrels_path), read_run(folder / "bim.run"), [Convention(tie_break="docno_asc")]
    )
    expected = direct[(direct.topic == "all") & (direct.measure == "map")]["value"].item()
    assert by_rank["value"].item() == pytest.approx(expected, abs=1e-12)
    # and trec_eval's own order ignores the rank column: both runs score the same
    reference = table[
        (table.convention == "reference") & (table.topic == "all") & (table.measure == "map")
    ]
    original = read_long_table(folder / "out" / "eval" / "bim.tsv")
    same = original[
        (original.convention == "reference")
        & (original.topic == "all")
        & (original.measure == "map")
    ]
    assert reference["value"].item() == same["value"].item()


def test_summary_states_checks_ties_and_flips(audited):
    folder, summary, _ = audited
    assert summary.startswith("checks:\n")
    assert "topics have unjudged documents in the top 10" in summary
    ties = pd.read_csv(folder / "out" / "tables" / "tiebreak.csv", index_col=0)
    assert f"bim: {int(ties.loc['bim', 'tie in top 10'])} topics have ties in the top 10" in summary
    audit = pd.read_csv(folder / "out" / "audit" / "conventions.csv")
    tie_rows = audit[(audit.measure == "map") & audit.convention.str.startswith("tie_")]
    assert (
        f"MAP changes by up to {tie_rows['difference'].abs().max():.4g} with the tie-break"
        in summary
    )
    assert "flips under tie_rank" in summary  # the re-broken run's rank column reorders the runs


def test_audit_prepares_each_run_once(tmp_path, monkeypatch):
    """`irscore audit` scores a run, checks it and counts its ties from one preparation of
    it with the qrels (`prepare._prepared` builds every one): two runs, two preparations,
    where it made three per run before."""
    from irscore.engine.ranking import prepare

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "x").write_text("1 Q0 a 1 1.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 2.0 x\n")
    (tmp_path / "y").write_text("1 Q0 b 1 2.0 y\n1 Q0 a 2 1.0 y\n2 Q0 c 1 2.0 y\n")
    made = []
    real = prepare._prepared
    monkeypatch.setattr(prepare, "_prepared", lambda *a, **k: made.append(1) or real(*a, **k))
    argv = ["audit", *(str(tmp_path / n) for n in "qxy"), "--out", str(tmp_path / "out")]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main([*argv, "--B", "100"]) == 0
    assert len(made) == 2
