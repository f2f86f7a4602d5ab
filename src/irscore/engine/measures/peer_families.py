"""The families the peers' names brought that no trec_eval name computes (beside those
declared with the family they vary in `registry`): each computed only when asked for by
name, each declared once here and listed in `registry.FAMILIES` after trec_eval's."""

from __future__ import annotations

from irscore.engine.measures import accuracy, compat, cwl, dcg, diversity
from irscore.engine.measures.family import Family, Params

_CUT = Params("cutoffs", (10,))
_P = Params("named", names=("p",))
_RELS = ("min_rel", "max_rel")  # cwl_eval's gain scale


def _cwl(name: str, names: tuple[str, ...], peer: str) -> Family:
    """A C/W/L measure of cwl_eval, its parameters named (`-m inst.T=2,max_rel=3`)."""
    params = Params("named", names=(*names, *_RELS))
    return Family(
        name,
        cwl.measure(name),
        params,
        trec_eval=(),
        pytrec_eval=(),
        by_name=True,
        peer=f"ir_measures {peer}",
    )


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
    _cwl("inst", ("T",), "INST"),
    _cwl("insq", ("T",), "INSQ"),
    _cwl("bpm", ("k", "T"), "BPM"),
    _cwl("nerr8", ("k",), "NERR8"),
    _cwl("nerr9", ("k",), "NERR9"),
    _cwl("nerr10", ("p",), "NERR10"),
    _cwl("nerr11", ("T",), "NERR11"),
    _cwl("sdcg", ("k",), "SDCG"),
    Family(
        "compat",
        compat.compat,
        Params("named", names=("p", "normalize")),
        trec_eval=(),
        pytrec_eval=(),
        by_name=True,
        peer="ir_measures Compat",
    ),
    Family(
        "accuracy",
        accuracy.accuracy,
        Params("named", names=("k",)),
        aggregate="mean_defined",
        trec_eval=(),
        pytrec_eval=(),
        by_name=True,
        peer="ir_measures Accuracy",
    ),
    *(
        Family(
            name,
            kernel,
            params,
            trec_eval=(),
            pytrec_eval=False,
            judgments="subtopics",
            by_name=True,
            peer=f"ir_measures {peer}",
        )
        for name, kernel, params, peer in (
            ("nerr_ia", diversity.nerr_ia, Params("cutoffs", diversity.CUTOFFS), "nERR_IA@k"),
            ("nnrbp", diversity.nnrbp, Params("named", names=("alpha", "beta")), "nNRBP"),
            ("ap_ia", diversity.ap_ia, None, "AP_IA"),
        )
    ),
)
