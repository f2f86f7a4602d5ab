"""Measure names as ir_measures and ranx write them (`nDCG@10`, `P(rel=2)@5`, `mrr@10`),
each read as an irscore measure plus the convention that peer's implementation follows,
so that the value is the peer's own.

A name trec_eval uses (`map`, `Rprec`, `P_10`, `bpref`, `ndcg_cut_10`) is read as
trec_eval's before anything here is tried: the drop-in comes first. The facts
about each peer come from its source (ir_measures 0.4.3's providers and its
default provider order; ranx 0.3.21's metrics with `make_comparable=True`);
docs/measure-names.md lists them with the differences that remain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from irscore.engine.measures import irm_names, ranx_names
from irscore.engine.measures.irm_names import RBP_PERSISTENCE as IRM_RBP_PERSISTENCE
from irscore.engine.measures.peer_common import (
    IRM,
    IRM_CWL,
    IRM_GDEVAL,
    IRM_SORTED,
    RANX,
    PeerName,
    PeerNameError,
    irm_params,
)
from irscore.engine.measures.requests import MeasureError

__all__ = ["IRM_RBP_PERSISTENCE", "MeasureError", "PeerName", "PeerNameError", "parse_peer_name"]


@dataclass(frozen=True)
class NameFamily:
    """A family of peer names, for `irscore measures`: the syntax, the irscore measure it
    is, its parameters, the peer, the implementation the peer uses, and its convention."""

    syntax: str
    measure: str
    parameters: str
    peer: str
    provider: str
    changes: tuple[tuple[str, Any], ...]


NAME_FAMILIES = (
    NameFamily("P@k, P(rel=r)@k", "P_k", "k, rel", "ir_measures", "pytrec_eval", IRM),
    NameFamily(
        "AP, AP@k, AP(rel=r)", "map, map_cut_k", "k, rel", "ir_measures", "pytrec_eval", IRM
    ),
    NameFamily("RR, RR(rel=r)", "recip_rank", "rel", "ir_measures", "pytrec_eval", IRM),
    NameFamily("RR@k", "recip_rank_cut_k", "k, rel", "ir_measures", "msmarco", IRM_SORTED),
    NameFamily("R@k", "recall_k", "k", "ir_measures", "pytrec_eval", IRM),
    NameFamily("nDCG, nDCG@k", "ndcg, ndcg_cut_k", "k", "ir_measures", "pytrec_eval", IRM),
    NameFamily(
        "nDCG(gains={g:v,...})[@k]",
        "ndcg_MAP, ndcg_cut_gains_MAP@k",
        "gains, k",
        "ir_measures",
        "pytrec_eval",
        IRM,
    ),
    NameFamily(
        "nDCG(dcg='exp-log2')@k", "ndcg_exp_cut_k", "k", "ir_measures", "gdeval", IRM_GDEVAL
    ),
    NameFamily("ERR@k", "err_k", "k", "ir_measures", "gdeval", IRM_GDEVAL),
    NameFamily("Judged@k", "judged_rate_k", "k", "ir_measures", "judged", IRM_SORTED),
    NameFamily(
        "RBP(rel=r[,p=x])", "rbp_bin_p=x", "p (0.8), rel", "ir_measures", "cwl_eval", IRM_CWL
    ),
    NameFamily(
        "RBP[(p=x)]",
        "rbp_p=x",
        "p (0.8)",
        "ir_measures",
        "no default provider: trec_eval 10 rbp",
        IRM,
    ),
    NameFamily("RPrec, Rprec(rel=r)", "Rprec", "rel", "ir_measures", "pytrec_eval", IRM),
    NameFamily("Success@k", "success_k", "k, rel", "ir_measures", "pytrec_eval", IRM),
    NameFamily("Bpref, BPref", "bpref", "rel", "ir_measures", "pytrec_eval", IRM),
    NameFamily(
        "NumRet, NumRelRet", "num_ret, num_rel_ret", "rel", "ir_measures", "pytrec_eval", IRM
    ),
    NameFamily("NumRel", "num_rel", "", "ir_measures", "pytrec_eval", ()),
    NameFamily("ndcg@k", "ndcg_cut_k", "k", "ranx", "ranx", RANX),
    NameFamily("ndcg_burges[@k]", "ndcg_exp, ndcg_exp_cut_k", "k", "ranx", "ranx", RANX),
    NameFamily("map@k", "map_cut_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("mrr, mrr@k", "recip_rank, recip_rank_cut_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("precision, precision@k", "set_P, P_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("recall@k", "recall_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("hit_rate@k", "success_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("hits@k", "hits_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("f1, f1@k", "set_F, F1_k", "k, -lN", "ranx", "ranx", RANX),
    NameFamily("r-precision", "Rprec", "-lN", "ranx", "ranx", RANX),
)

# ir_measures: a head (NERR8, alpha_nDCG, α_nDCG), (params), @ a cut-off or a recall level
_IRM_NAME = re.compile(r"(?P<head>[^\W\d]\w*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<at>[0-9.]+))?")
_RANX_NAME = re.compile(r"(?P<head>[a-z][a-z0-9_-]*?)(?:@(?P<k>[0-9]+))?(?:-l(?P<rel>[0-9]+))?")
_RANX_RBP = re.compile(r"rbp[.@](?P<p>[0-9]+)(?:-l(?P<rel>[0-9]+))?")


def parse_peer_name(name: str) -> PeerName | None:
    """The PeerName of an ir_measures or ranx name, None for a name of neither syntax;
    PeerNameError for a known name with a parameter irscore cannot reproduce."""
    irm = _IRM_NAME.fullmatch(name)
    head = irm and irm_names.ALIASES.get(irm["head"], irm["head"])
    if irm and head in irm_names.READERS:
        params = irm_params(name, irm["params"] or "")
        return irm_names.READERS[head](name, irm["at"], params)
    rbp = _RANX_RBP.fullmatch(name)
    if rbp:
        return ranx_names.rbp(name, rbp["p"], int(rbp["rel"]) if rbp["rel"] else 1)
    ranx = _RANX_NAME.fullmatch(name)
    if ranx and ranx["head"] in ranx_names.READERS:
        k = int(ranx["k"]) if ranx["k"] else None
        level = int(ranx["rel"]) if ranx["rel"] else 1
        return ranx_names.READERS[ranx["head"]](name, k, level)
    return None


def peer_examples() -> list[str]:
    """The peers' names at common cut-offs, for suggestions."""
    heads = [*irm_names.READERS, *irm_names.ALIASES, *ranx_names.READERS]
    return heads + [f"{head}@{k}" for head in heads for k in (5, 10, 20, 100)]
