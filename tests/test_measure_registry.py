"""The registry is the one list of measures: the config schema, the docs and the
derived lists agree with it, and the dispatch reaches every declared family."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml
from doc_pages import page

from irscore.engine.evaluate import evaluate
from irscore.engine.measures import MeasureError, MeasureSpec, spec_from_config
from irscore.engine.measures.registry import (
    AGGREGATES,
    ALL_FAMILIES,
    CUTOFF_FAMILIES,
    EXPECTED_FAMILIES,
    FAMILIES,
    JUDGMENTS,
    PARAMETRISED,
    TEXT_FAMILIES,
    TREC_ORDER,
    family_of,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
MEASURES = SCHEMA["properties"]["measures"]


def _measures_valid(entry: dict) -> bool:
    try:
        jsonschema.validate(entry, MEASURES)
    except jsonschema.ValidationError:
        return False
    return True


def test_schema_names_exactly_the_registered_families():
    assert set(MEASURES["properties"]["families"]["items"]["enum"]) == set(ALL_FAMILIES)
    (pattern,) = MEASURES["patternProperties"]
    qrels = JUDGMENTS["qrels"]  # the workflow's measures: those a qrels computes
    cutoffs = set(CUTOFF_FAMILIES) & qrels
    assert set(re.fullmatch(r"\^\((.*)\)\$", pattern).group(1).split("|")) == cutoffs
    others = (set(PARAMETRISED) & qrels) - cutoffs - TEXT_FAMILIES  # a text: no long table
    assert set(MEASURES["properties"]) - {"families"} == others


def test_schema_accepts_every_family_and_parameter_and_rejects_unknown_ones():
    entry = {
        "families": sorted(ALL_FAMILIES),
        **{name: [1, 5] for name in CUTOFF_FAMILIES if name in JUDGMENTS["qrels"]},
        "Rprec_mult": [0.5, 1.5],
        "iprec_at_recall": [0.25, 0.5],
        "11pt_avg": [0.5, 0.25],
        **{name: {1: 3, 2: 9.5} for name in ("G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg")},
        "utility": [1, -1, 0, 0],
        "set_F": 0.5,
        "rbp": {"p": 0.8},
        "rbp_resid": {"p": 0.8},
    }
    assert {"Rprec_mult", "utility", "set_F", "relative_P"} <= set(entry)
    assert set(entry) - {"families"} == (set(PARAMETRISED) & JUDGMENTS["qrels"]) - TEXT_FAMILIES
    assert _measures_valid(entry)
    spec = spec_from_config(entry)  # what the schema lets through, the registry reads
    assert spec.relative_P == (1, 5) and spec.Rprec_mult == (0.5, 1.5)
    assert spec.utility == "1,-1,0,0" and spec.set_F == "0.5"
    assert spec.rbp == "p=0.8"
    assert not _measures_valid({"rbp": {"q": 0.8}})
    assert not _measures_valid({"bogus": [5]})
    assert not _measures_valid({"families": ["map", "bogus"]})
    assert not _measures_valid({"families": ["relstring"]})  # a text: no long table holds it
    assert not _measures_valid({"relstring": 5})
    # the preference and judgment-group measures need their own files: named, refused
    for other in ({"families": ["prefs_simp"]}, {"P_avgjg": [5]}):
        with pytest.raises(MeasureError, match="irscore evaluate -R"):
            spec_from_config(other)


@pytest.mark.parametrize("entry", [{"families": ["map", "relstring"]}, {"relstring": 5}])
def test_config_refuses_the_text_measure_and_says_where_it_is_printed(entry):
    with pytest.raises(MeasureError, match=r"relstring is text.*irscore evaluate -q -m relstring"):
        spec_from_config(entry)
    assert not _measures_valid({"utility": [1, -1, 0]})
    assert not _measures_valid({"P": [0]})


def test_readme_lists_the_families_with_an_expected_form():
    text = " ".join(page("conventions.md").split())
    listed = re.search(r"`expected` has closed forms for (.*?)\.", text).group(1)
    names = set(re.split(r", | and ", listed))
    assert names == set(EXPECTED_FAMILIES)


def test_print_order_is_trec_evals():
    # measures.c of trec_eval 9.0.8, its te_trec_measures[] up to num_nonrel_judged_ret
    assert TREC_ORDER == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
        "relstring",
        "recall",
        "infAP",
        "gm_bpref",
        "Rprec_mult",
        "utility",
        "11pt_avg",
        "binG",
        "G",
        "ndcg",
        "ndcg_rel",
        "Rndcg",
        "ndcg_cut",
        "map_cut",
        "relative_P",
        "success",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ]


def test_printed_names_map_back_to_their_family():
    cases = {
        "P_10": "P",
        "relative_P_5": "relative_P",
        "ndcg_exp_cut_5": "ndcg_exp_cut",
        "ndcg_cut_5": "ndcg_cut",
        "num_rel_ret": "num_rel_ret",
        "num_rel": "num_rel",
        "map_cut_10": "map_cut",
        "utility_1,-1,0,0": "utility",
        "iprec_at_recall_0.10": "iprec_at_recall",
        "Rprec_mult_0.20": "Rprec_mult",
    }
    assert {name: family_of(name).name for name in cases} == cases


def test_every_declared_family_is_computed_under_its_names():
    qrels = pd.DataFrame({"topic": ["1"] * 3, "docno": ["a", "b", "c"], "grade": [2, 0, 1]})
    run = pd.DataFrame(
        {
            "topic": ["1"] * 3,
            "docno": ["a", "b", "d"],
            "rank": [1, 2, 3],
            "score": [3.0, 2.0, 1.0],
            "tag": ["t"] * 3,
        }
    )
    table = evaluate(qrels, run, spec=MeasureSpec(families=ALL_FAMILIES))
    printed = {family_of(m).name for m in table["measure"].unique()}
    assert printed == set(ALL_FAMILIES)
    for family in FAMILIES.values():
        assert family.aggregate in AGGREGATES
        assert (family.aggregate == "none") == family.text
    assert np.isfinite(table["value"]).all()


@pytest.mark.parametrize("name", sorted(EXPECTED_FAMILIES))
def test_expected_forms_are_declared_only_where_ordered_ones_are(name):
    assert FAMILIES[name].compute is not None
