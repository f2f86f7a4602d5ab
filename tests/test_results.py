"""The `Results` view: means, per-topic values and the conventions, read from long tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from irscore.analysis.results import Results
from irscore.engine.evaluate import evaluate
from irscore.engine.output.long_table import read_long_table, write_long_table
from irscore.engine.ranking.conventions import conventions_from_config
from irscore.engine.reading.trec import read_qrels, read_run
from irscore.report.settings import HEADLINE, MEASURES

CONVENTIONS = {"reference": {}, "asc": {"tie_break": "docno_asc"}, "both": {"depth": 1}}
# Topic 1: R = 1; a and b tie at 1.0; trec_eval ranks b first (docno descending): AP 1/2,
# docno_asc ranks a first: AP 1. Topic 2: R = 1, c at rank 1: AP 1 under both.
QRELS = "1 0 a 1\n2 0 c 1\n"
RUN = "1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 2.0 r\n2 Q0 d 2 1.0 r\n"


@pytest.fixture
def results(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "s").write_text(RUN.replace(" r\n", " s\n").replace("1 Q0 b 2", "1 Q0 b 0"))
    qrels = read_qrels(tmp_path / "q")
    grid = conventions_from_config(CONVENTIONS)
    paths = []
    for name in ("r", "s"):
        path = tmp_path / f"{name}.tsv"
        write_long_table(str(path), evaluate(qrels, read_run(tmp_path / name), grid, run_name=name))
        paths.append(str(path))
    return Results.read(paths, CONVENTIONS)


def test_means_and_per_topic_by_hand(results):
    assert results.runs == ["r", "s"]
    # reference: (1/2 + 1) / 2 = 0.75; docno ascending: (1 + 1) / 2 = 1
    assert results.mean("r", "map") == 0.75
    assert results.mean("r", "map", "asc") == 1.0
    # depth 1: topic 1 keeps only b (not relevant): AP 0; topic 2: 1 -> 0.5
    assert results.mean("r", "map", "both") == 0.5
    assert np.isnan(results.mean("r", "no_such_measure"))
    assert results.per_topic("r", "map").to_dict() == {"1": 0.5, "2": 1.0}
    frame = results.means(["map", "recip_rank"])
    assert list(frame.index) == ["r", "s"] and list(frame.columns) == ["map", "recip_rank"]
    assert frame.loc["r", "recip_rank"] == (1 / 2 + 1) / 2  # topic 1: b (not relevant) first
    with pytest.raises(KeyError, match="run r: no nope under convention reference"):
        results.means(["map", "nope"])


def test_conventions_parsed_and_single_changes(results):
    assert [c.name for c in results.conventions] == ["reference", "asc", "both"]
    assert results.single_change("tie_break") == {"docno_desc": "reference", "docno_asc": "asc"}
    assert results.interpolations == {"trec_eval9": "reference"}


def test_subset_plus_and_means_only(results, tmp_path):
    assert results.subset(["s"]).runs == ["s"]
    means_only = Results([read_long_table(str(tmp_path / "r.tsv"), means_only=True)])
    assert means_only.mean("r", "map") == 0.75
    assert results.subset(["s"]).plus(means_only).runs == ["s", "r"]
    with pytest.raises(ValueError, match="run 'r' is given twice"):
        results.plus(means_only)
    assert isinstance(results.table("r"), pd.DataFrame)


def test_audit_shows_the_workflows_default_headline():
    with open("config.yaml", encoding="utf-8") as stream:
        config = yaml.safe_load(stream)
    assert config["headline"] == HEADLINE, "irscore audit's HEADLINE follows config.yaml's"
    assert config["measures"] == MEASURES, "irscore audit's MEASURES follow config.yaml's"
