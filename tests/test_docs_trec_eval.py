"""docs/trec_eval.md says what irscore does for each of trec_eval's features: its claims
about options, nicknames and measures checked against the code."""

from __future__ import annotations

import re
from pathlib import Path

from irscore.cli import build_parser
from irscore.engine.measures.registry import FAMILIES, NICKNAMES

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "trec_eval.md").read_text()
# trec_eval.c's getopt string (9.0.8 and 10.0): every short option it takes
TREC_EVAL_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"


def _evaluate_options() -> set[str]:
    parser = build_parser()
    evaluate = parser._subparsers._group_actions[0].choices["evaluate"]
    return {s for action in evaluate._actions for s in action.option_strings}


def test_every_trec_eval_option_has_a_row():
    rows = re.findall(r"^\| `(-[A-Za-z])", PAGE, flags=re.MULTILINE)
    assert set(rows) >= {f"-{c}" for c in TREC_EVAL_OPTIONS.replace(":", "")}


def test_the_options_the_page_calls_the_same_are_taken():
    taken = _evaluate_options()
    for option in "qnmclJMNRTZDvh":
        assert f"-{option}" in taken
    assert "-o" not in taken  # the page: an unknown option
    assert "--verbose" in taken


def test_nicknames_and_measures_named():
    listed = re.search(r"with every nickname: (.*?) \|", PAGE).group(1)
    assert set(re.findall(r"`(\w+)`", listed)) == set(NICKNAMES)
    outside = re.search(r"\*\*Outside `all_trec`\*\*: (.*?) computed", PAGE, re.S).group(1)
    names = set(re.findall(r"`(\w+)`", outside)) - {"ndcg"}
    assert names == {"dcg", "ideal_dcg", "yaap"} and names <= set(FAMILIES)
    for name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg"):
        assert name in PAGE and FAMILIES[name].judgments == "qrels_jg"
    assert sum(FAMILIES[n].judgments == "prefs" for n in FAMILIES) == 14  # "the fourteen"
