"""Every family of peer names irscore reads, for `irscore measures` and for the table of
docs/measure-names.md (which `scripts/measure_names.py` writes from here, and the
README's short table from that page): its syntax, the irscore measure, its parameters,
the peer and the implementation the peer would use, the convention that implies,
example names, and any difference irscore keeps from the peer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from irscore.engine.measures.peer_common import IRM, IRM_CWL, IRM_GDEVAL, IRM_SORTED, RANX

_TIES = "ties: on tied scores ranx's order is numba's unstable sort (below)"
_GDEVAL = (
    "gdeval prints 5 decimals (checked to 5e-6); it refuses grades above 4 and topic ids "
    "that are not numbers, irscore does not"
)
_PYNDEVAL = (
    "ir_measures' pyndeval provider hands its sorted run to the first of several "
    "(rel, alpha, beta) in one call only: irscore gives each its own value; judged_only "
    "is not read"
)


@dataclass(frozen=True)
class NameFamily:
    """A family of peer names, for `irscore measures`: the syntax, the irscore measure it
    is, its parameters, the peer, the implementation the peer uses, and its convention;
    for docs/measure-names.md, example names and the difference irscore keeps."""

    syntax: str
    measure: str
    parameters: str
    peer: str
    provider: str
    changes: tuple[tuple[str, Any], ...]
    examples: tuple[str, ...] = ()
    difference: str = "none"


def _irm(syntax, measure, parameters, provider, changes, examples, difference="none"):
    return NameFamily(syntax, measure, parameters, "ir_measures", provider, changes,
                      examples, difference)  # fmt: skip


def _ranx(syntax, measure, parameters, examples, difference=_TIES):
    return NameFamily(syntax, measure, parameters, "ranx", "ranx", RANX, examples, difference)


NAME_FAMILIES = (
    _irm(
        "P@k, P(rel=r)@k",
        "P_k",
        "k, rel, judged_only",
        "pytrec_eval",
        IRM,
        ("P@5", "P(rel=2)@5", "P(judged_only=True)@5"),
    ),
    _irm(
        "AP, AP@k, AP(rel=r)",
        "map, map_cut_k",
        "k, rel, judged_only",
        "pytrec_eval",
        IRM,
        ("AP", "MAP", "AP@100", "AP(rel=2)"),
    ),
    _irm(
        "RR, RR(rel=r)",
        "recip_rank",
        "rel, judged_only",
        "pytrec_eval",
        IRM,
        ("RR", "MRR", "RR(rel=2)"),
    ),
    _irm("RR@k", "recip_rank_cut_k", "k, rel", "msmarco", IRM_SORTED, ("RR@10",)),
    _irm("R@k", "recall_k", "k, rel, judged_only", "pytrec_eval", IRM, ("R@100", "R(rel=2)@5")),
    _irm(
        "nDCG, nDCG@k",
        "ndcg, ndcg_cut_k",
        "k, judged_only",
        "pytrec_eval",
        IRM,
        ("nDCG", "nDCG@10"),
    ),
    _irm(
        "nDCG(gains={g:v,...})[@k]",
        "ndcg_MAP, ndcg_cut_gains_MAP@k",
        "gains, k",
        "pytrec_eval",
        IRM,
        ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})"),
        "the map's grades are whole numbers of 0 or more",
    ),
    _irm(
        "nDCG(dcg='exp-log2')@k",
        "ndcg_exp_cut_k",
        "k",
        "gdeval",
        IRM_GDEVAL,
        ("nDCG(dcg='exp-log2')@10",),
        _GDEVAL,
    ),
    _irm(
        "nDCG(dcg='exp-log2')",
        "ndcg_exp",
        "",
        "ranx (gdeval needs a cut-off)",
        RANX,
        ("nDCG(dcg='exp-log2')",),
        _TIES,
    ),
    _irm("ERR@k", "err_k", "k", "gdeval", IRM_GDEVAL, ("ERR@20",), _GDEVAL),
    _irm(
        "Judged, Judged@k",
        "judged_rate_k",
        "k",
        "judged",
        IRM_SORTED,
        ("Judged@10", "Judged"),
        "none (without a cut-off: over the documents retrieved; trec_eval-style `judged_10` "
        "is irscore's other judged measure: judged grades only, over k)",
    ),
    _irm(
        "RBP(rel=r[,p=x])",
        "rbp_bin_p=x",
        "p (0.8), rel",
        "cwl_eval",
        IRM_CWL,
        ("RBP(rel=1)", "RBP(rel=2,p=0.5)"),
        "cwl_eval reads at most 1000 documents a topic (`max_n`); irscore reads them all "
        "(at most p^1000 more)",
    ),
    _irm(
        "RBP[(p=x)]",
        "rbp_p=x",
        "p (0.8)",
        "no default provider: trec_eval 10 rbp",
        IRM,
        ("RBP(p=0.8)", "RBP"),
        "ir_measures' default pipeline has no provider for graded RBP (its trectools "
        "provider is disabled); irscore computes trec_eval 10's `rbp` (grades divided by "
        "the topic's largest) with ir_measures' default p, 0.8, over every qrels topic; "
        "no peer to check it against",
    ),
    _irm(
        "RPrec, Rprec(rel=r)",
        "Rprec",
        "rel, judged_only",
        "pytrec_eval",
        IRM,
        ("RPrec", "Rprec(rel=2)"),
        "`Rprec` itself is trec_eval's name: trec_eval's topics",
    ),
    _irm(
        "Success@k",
        "success_k",
        "k, rel, judged_only",
        "pytrec_eval",
        IRM,
        ("Success@10", "Success(rel=2)@10"),
    ),
    _irm("Bpref, BPref", "bpref", "rel", "pytrec_eval", IRM, ("Bpref", "BPref")),
    _irm(
        "NumRet, NumRelRet",
        "num_ret, num_rel_ret",
        "rel",
        "pytrec_eval",
        IRM,
        ("NumRet", "NumRelRet", "NumRet(rel=2)"),
    ),
    _irm(
        "NumRel",
        "num_rel",
        "",
        "pytrec_eval",
        (),
        ("NumRel",),
        "summed over the topics both sides have, as pytrec_eval's values are; no rows for "
        "the others",
    ),
    _irm(
        "NumQ",
        "num_q",
        "",
        "pytrec_eval",
        (),
        ("NumQ",),
        "the topics both sides have, as pytrec_eval counts them",
    ),
    _irm(
        "SetP, SetP(relative=True), SetRelP",
        "set_P, set_relative_P",
        "rel, relative, judged_only",
        "pytrec_eval",
        IRM,
        ("SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP"),
    ),
    _irm("SetR", "set_recall", "rel", "pytrec_eval", IRM, ("SetR", "SetR(rel=2)")),
    _irm(
        "SetF[(beta=b)]",
        "set_F, set_F_b",
        "rel, beta, judged_only",
        "pytrec_eval",
        IRM,
        ("SetF", "SetF(beta=0.5)"),
    ),
    _irm("SetAP", "set_map", "rel, judged_only", "pytrec_eval", IRM, ("SetAP", "SetAP(rel=2)")),
    _irm(
        "IPrec@r",
        "iprec_at_recall_r",
        "recall level, rel, judged_only",
        "pytrec_eval",
        IRM,
        ("IPrec@0.25", "IPrec(rel=2)@0.1"),
        "none (the level read to 2 decimals, as pytrec_eval's name iprec_at_recall_%.2f)",
    ),
    _irm(
        "infAP(rel=r)",
        "infAP",
        "rel",
        "pytrec_eval",
        IRM,
        ("infAP(rel=2)",),
        "`infAP` itself is trec_eval's name: trec_eval's topics",
    ),
    _irm(
        "ERR_IA@k",
        "err_ia_k",
        "k, rel",
        "pyndeval",
        IRM_SORTED,
        ("ERR_IA@20", "ERR_IA(rel=2)@5"),
        f"at k = 1 ndeval leaves ERR-IA unnormalised, irscore does not; {_PYNDEVAL}",
    ),
    _irm(
        "alpha_nDCG@k",
        "alpha_ndcg_k",
        "k, rel (alpha 0.5)",
        "pyndeval",
        IRM_SORTED,
        ("alpha_nDCG@20", "α_nDCG@5"),
        f"alpha other than 0.5 is not read; {_PYNDEVAL}",
    ),
    _irm(
        "NRBP",
        "nrbp",
        "rel, alpha, beta",
        "pyndeval",
        IRM_SORTED,
        ("NRBP", "NRBP(alpha=0.25,beta=0.8)"),
        _PYNDEVAL,
    ),
    _irm(
        "nERR_IA@k",
        "nerr_ia_k",
        "k, rel",
        "pyndeval",
        IRM_SORTED,
        ("nERR_IA@20",),
        f"over ndeval's greedy ideal ranking; {_PYNDEVAL}",
    ),
    _irm(
        "AP_IA, MAP_IA",
        "ap_ia",
        "rel",
        "pyndeval",
        IRM_SORTED,
        ("AP_IA", "MAP_IA(rel=2)"),
        _PYNDEVAL,
    ),
    _irm(
        "nNRBP",
        "nnrbp",
        "rel, alpha, beta",
        "pyndeval",
        IRM_SORTED,
        ("nNRBP",),
        f"a topic without a relevant subtopic: ndeval 0/0 (NaN), irscore 0; {_PYNDEVAL}",
    ),
    _irm("P_IA@k", "p_ia_k", "k, rel", "pyndeval", IRM_SORTED, ("P_IA@10",), _PYNDEVAL),
    _irm("StRecall@k", "strec_k", "k, rel", "pyndeval", IRM_SORTED, ("StRecall@10",), _PYNDEVAL),
    _irm(
        "INST(max_rel=m)",
        "inst_T=t,...",
        "T (1), min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("INST(max_rel=3)", "INST(T=2.0,max_rel=3)"),
    ),
    _irm(
        "INSQ(max_rel=m)",
        "insq_T=t,...",
        "T (1), min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("INSQ(max_rel=3)",),
    ),
    _irm(
        "BPM(max_rel=m)@k",
        "bpm_k=k,...",
        "k, T (1), min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("BPM(max_rel=3)@10", "BPM(T=2.0,max_rel=1)@20"),
    ),
    _irm(
        "NERR8(max_rel=m)@k, NERR9(max_rel=m)@k",
        "nerr8_k=k,..., nerr9_k=k,...",
        "k, min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("NERR8(max_rel=3)@10", "NERR9(max_rel=3)@10"),
    ),
    _irm(
        "NERR10(max_rel=m), NERR11(max_rel=m)",
        "nerr10_p=p,..., nerr11_T=t,...",
        "p (0.9) / T (1), min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("NERR10(p=0.8,max_rel=3)", "NERR11(T=2.0,max_rel=3)"),
    ),
    _irm(
        "SDCG(max_rel=m)@k",
        "sdcg_k=k,...",
        "k, min_rel (0), max_rel",
        "cwl_eval",
        IRM_CWL,
        ("SDCG(max_rel=3)@10",),
    ),
    _irm(
        "Compat[(p=x,normalize=b)]",
        "compat_p=x",
        "p (0.95), normalize (True)",
        "compat",
        IRM_SORTED,
        ("Compat", "Compat(p=0.8)", "Compat(normalize=False)"),
        "the ideal ranking orders documents of one grade by the run's score, a document "
        "not retrieved as 0.0: where two tie, compat keeps the qrels' order and irscore "
        "puts the retrieved first, then docno order",
    ),
    _irm(
        "Accuracy[(rel=r)][@k]",
        "accuracy, accuracy_k=k",
        "k, rel",
        "accuracy",
        (("score_precision", "float64"), ("tie_break", "file_order")),
        ("Accuracy", "Accuracy(rel=2)", "Accuracy@10"),
        "a topic without a relevant document in its top k has no value (NaN; the mean is "
        "over the others, as the provider's); a top k without a non-relevant document: "
        "irscore 1, ir_measures raises ZeroDivisionError; asked beside another provider's "
        "measure, ir_measures' default pipeline gives the topics without a value 0, irscore "
        "does not",
    ),
    _ranx("ndcg@k", "ndcg_cut_k", "k", ("ndcg@10",)),
    _ranx("ndcg_burges[@k]", "ndcg_exp, ndcg_exp_cut_k", "k", ("ndcg_burges", "ndcg_burges@10")),
    _ranx("dcg@k", "dcg_cut_k", "k", ("dcg@10",)),
    _ranx("dcg_burges[@k]", "dcg_exp, dcg_exp_cut_k", "k", ("dcg_burges", "dcg_burges@10")),
    _ranx("map@k", "map_cut_k", "k, -lN", ("map@100", "map@10-l2")),
    _ranx("mrr, mrr@k", "recip_rank, recip_rank_cut_k", "k, -lN", ("mrr", "mrr@10")),
    _ranx("precision, precision@k", "set_P, P_k", "k, -lN", ("precision", "precision@5")),
    _ranx("recall@k", "recall_k", "k, -lN", ("recall@100",)),
    _ranx("hit_rate@k", "success_k", "k, -lN", ("hit_rate@10",)),
    _ranx("hits@k", "hits_k", "k, -lN", ("hits@10",), f"averaged over topics; {_TIES}"),
    _ranx("f1, f1@k", "set_F, F1_k", "k, -lN", ("f1", "f1@10")),
    _ranx("r-precision", "Rprec", "-lN", ("r-precision",)),
    _ranx(
        "rbp@p",
        "rbp_grade_p=0.p",
        "p (as digits), -lN",
        ("rbp@95", "rbp@8-l2"),
        f"ranx's `rbp.95` is trec_eval's -m syntax in irscore (`rbp.p=0.95`): write "
        f"`rbp@95`; {_TIES}",
    ),
)
