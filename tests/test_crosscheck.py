"""The pytrec_eval cross-check can fail: a wrong or missing value stops the evaluate job.

pytrec_eval's evaluator is wrapped so that it returns one deliberately wrong
(or missing) value; the workflow's entry point must then raise, naming the
topic and the measure, and leave no cross-check file behind (the Snakemake job
fails and the workflow stops).
"""

from __future__ import annotations

import pandas as pd
import pytest
import pytrec_eval

from irscore.pipeline.crosscheck import CrossCheckError, evaluate_and_crosscheck_files

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n"
RUN = "1 Q0 b 1 0.9 r\n1 Q0 a 2 0.8 r\n1 Q0 c 3 0.7 r\n2 Q0 d 1 0.5 r\n"
MEASURES = {"P": [1, 5], "recall": [5], "ndcg_cut": [5]}


def tampering_evaluator(change):
    """A RelevanceEvaluator whose results pass through `change(results)` first."""
    real = pytrec_eval.RelevanceEvaluator

    class Tampered:
        def __init__(self, *args, **kwargs):
            self.inner = real(*args, **kwargs)

        def evaluate(self, run):
            results = self.inner.evaluate(run)
            change(results)
            return results

    return Tampered


@pytest.fixture
def job(tmp_path):
    """The evaluate job's entry point on a two-topic collection; returns the output paths."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    outputs = {"eval": tmp_path / "eval.tsv", "check": tmp_path / "check.tsv"}

    def run() -> dict:
        evaluate_and_crosscheck_files(
            str(tmp_path / "qrels.txt"),
            str(tmp_path / "r.run"),
            str(outputs["eval"]),
            str(outputs["check"]),
            run_name="r",
            conventions={"reference": None},
            measures_config=MEASURES,
        )
        return outputs

    return run


def test_untouched_pytrec_eval_agrees_on_the_expected_measures(job):
    table = pd.read_csv(job()["check"], sep="\t", dtype={"topic": str})
    assert table["agrees"].all()
    # topic 1: a relevant at rank 2 of b, a, c; c (grade 2) at 3; R = 2: AP = (1/2 + 2/3) / 2
    ap = table[(table["topic"] == "1") & (table["measure"] == "map")].iloc[0]
    assert ap["irscore"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert ap["pytrec_eval"] == pytest.approx(ap["irscore"], abs=1e-12)
    compared = set(table["measure"])
    families = {"map", "P_1", "P_5", "recall_5", "ndcg", "ndcg_cut_5", "bpref", "Rprec"}
    assert families | {"recip_rank", "iprec_at_recall_0.50", "num_rel_ret"} <= compared
    assert set(table["topic"]) == {"1", "2", "all"}


def test_a_wrong_value_stops_the_job(job, monkeypatch):
    # 1e-6 off: invisible at trec_eval's 4 printed decimals, far beyond the 1e-9 tolerance
    def nudge(results):
        results["1"]["map"] += 1e-6

    monkeypatch.setattr(pytrec_eval, "RelevanceEvaluator", tampering_evaluator(nudge))
    with pytest.raises(CrossCheckError) as caught:
        job()
    message = str(caught.value)
    # the topic's value and, through it, the mean over topics
    assert "disagree on 2 of" in message
    assert "topic 1 map:" in message and "topic all map:" in message


def test_the_job_writes_no_crosscheck_file_when_values_disagree(job, tmp_path, monkeypatch):
    def nudge(results):
        results["2"]["P_5"] = 0.5  # one relevant document at rank 1: P@5 is 1/5, not 1/2

    monkeypatch.setattr(pytrec_eval, "RelevanceEvaluator", tampering_evaluator(nudge))
    with pytest.raises(CrossCheckError, match=r"topic 2 P_5: irscore 0\.2, pytrec_eval 0\.5"):
        job()
    assert not (tmp_path / "check.tsv").exists()


def test_a_value_missing_from_pytrec_eval_is_a_disagreement(job, monkeypatch):
    def drop(results):
        del results["1"]["recip_rank"]

    monkeypatch.setattr(pytrec_eval, "RelevanceEvaluator", tampering_evaluator(drop))
    with pytest.raises(CrossCheckError, match=r"topic 1 recip_rank: irscore 0\.5, pytrec_eval nan"):
        job()


def test_a_difference_within_the_tolerance_is_agreement(job, monkeypatch):
    def nudge(results):
        results["1"]["map"] += 1e-12

    monkeypatch.setattr(pytrec_eval, "RelevanceEvaluator", tampering_evaluator(nudge))
    assert job()["check"].is_file()
