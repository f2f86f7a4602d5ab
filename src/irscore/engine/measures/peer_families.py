"""The families the peers' names brought that no trec_eval name computes (beside those
declared with the family they vary in `registry`): each computed only when asked for by
name, each declared once here and listed in `registry.FAMILIES` after trec_eval's."""

from __future__ import annotations

from irscore.engine.measures import dcg
from irscore.engine.measures.family import Family, Params

_CUT = Params("cutoffs", (10,))
_P = Params("named", names=("p",))

DECLARATIONS = (
    Family(
        "dcg_cut", dcg.dcg_cut, _CUT, trec_eval=(), pytrec_eval=(), by_name=True, peer="ranx dcg@k"
    ),
    Family(
        "dcg_exp", dcg.dcg_exp, trec_eval=(), pytrec_eval=(), by_name=True, peer="ranx dcg_burges"
    ),
    Family(
        "dcg_exp_cut",
        dcg.dcg_exp_cut,
        _CUT,
        trec_eval=(),
        pytrec_eval=(),
        by_name=True,
        peer="ranx dcg_burges@k",
    ),
    Family(
        "rbp_grade",
        dcg.rbp_grade,
        _P,
        trec_eval=(),
        pytrec_eval=(),
        by_name=True,
        peer="ranx rbp.95",
    ),
)
