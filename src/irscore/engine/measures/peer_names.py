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

from irscore.engine.measures import irm_names, ranx_names
from irscore.engine.measures.irm_names import RBP_PERSISTENCE as IRM_RBP_PERSISTENCE
from irscore.engine.measures.name_families import NAME_FAMILIES, NameFamily
from irscore.engine.measures.peer_common import (
    PeerName,
    PeerNameError,
    irm_params,
)
from irscore.engine.measures.requests import MeasureError

__all__ = [
    "IRM_RBP_PERSISTENCE",
    "NAME_FAMILIES",
    "MeasureError",
    "NameFamily",
    "PeerName",
    "PeerNameError",
    "parse_peer_name",
]


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
