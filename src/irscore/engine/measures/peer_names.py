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

from irscore.engine.measures.requests import MeasureError

# ir_measures averages over every qrels topic: a topic the run lacks scores the measure's
# default (0); its pytrec_eval provider is trec_eval 9 (float32 scores, docno descending)
_IRM = (("topics", "all_qrels"),)
# its msmarco (RR@k) and judged (Judged@k) providers sort by (-score, docno) in Python
_IRM_SORTED = (*_IRM, ("score_precision", "float64"), ("tie_break", "docno_asc"))
# gdeval.pl (ERR@k, nDCG(dcg=exp-log2)@k) compares Perl numbers: doubles, docno descending
_IRM_GDEVAL = (*_IRM, ("score_precision", "float64"))
# cwl_eval (RBP(rel=k)) sorts by score with Python's stable sort: ties in the run's order
_IRM_CWL = (*_IRM, ("score_precision", "float64"), ("tie_break", "file_order"))
# ranx with make_comparable=True: every qrels topic, float64 scores; its tie order is
# numba's unstable sort, which no convention reproduces (irscore keeps docno descending)
_RANX = (("topics", "all_qrels"), ("score_precision", "float64"))

IRM_RBP_PERSISTENCE = 0.8  # ir_measures' default p (trec_eval 10's rbp: 0.9)


class PeerNameError(MeasureError):
    """A name in a peer's syntax with a parameter irscore cannot reproduce."""


@dataclass(frozen=True)
class PeerName:
    """One measure named the way a peer names it: the name printed (`name`), the irscore
    family computing it with its -m parameter text (`params`, None for its defaults),
    irscore's printed name of that one measure, and the convention decisions of the
    peer's implementation (`changes`)."""

    name: str
    family: str
    params: str | None
    printed: str
    changes: tuple[tuple[str, Any], ...]
    peer: str


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
    NameFamily("P@k, P(rel=r)@k", "P_k", "k, rel", "ir_measures", "pytrec_eval", _IRM),
    NameFamily(
        "AP, AP@k, AP(rel=r)", "map, map_cut_k", "k, rel", "ir_measures", "pytrec_eval", _IRM
    ),
    NameFamily("RR, RR(rel=r)", "recip_rank", "rel", "ir_measures", "pytrec_eval", _IRM),
    NameFamily("RR@k", "recip_rank_cut_k", "k, rel", "ir_measures", "msmarco", _IRM_SORTED),
    NameFamily("R@k", "recall_k", "k", "ir_measures", "pytrec_eval", _IRM),
    NameFamily("nDCG, nDCG@k", "ndcg, ndcg_cut_k", "k", "ir_measures", "pytrec_eval", _IRM),
    NameFamily(
        "nDCG(gains={g:v,...})[@k]",
        "ndcg_MAP, ndcg_cut_gains_MAP@k",
        "gains, k",
        "ir_measures",
        "pytrec_eval",
        _IRM,
    ),
    NameFamily(
        "nDCG(dcg='exp-log2')@k", "ndcg_exp_cut_k", "k", "ir_measures", "gdeval", _IRM_GDEVAL
    ),
    NameFamily("ERR@k", "err_k", "k", "ir_measures", "gdeval", _IRM_GDEVAL),
    NameFamily("Judged@k", "judged_rate_k", "k", "ir_measures", "judged", _IRM_SORTED),
    NameFamily(
        "RBP(rel=r[,p=x])", "rbp_bin_p=x", "p (0.8), rel", "ir_measures", "cwl_eval", _IRM_CWL
    ),
    NameFamily(
        "RBP[(p=x)]",
        "rbp_p=x",
        "p (0.8)",
        "ir_measures",
        "no default provider: trec_eval 10 rbp",
        _IRM,
    ),
    NameFamily("RPrec, Rprec(rel=r)", "Rprec", "rel", "ir_measures", "pytrec_eval", _IRM),
    NameFamily("Success@k", "success_k", "k, rel", "ir_measures", "pytrec_eval", _IRM),
    NameFamily("Bpref, BPref", "bpref", "rel", "ir_measures", "pytrec_eval", _IRM),
    NameFamily(
        "NumRet, NumRelRet", "num_ret, num_rel_ret", "rel", "ir_measures", "pytrec_eval", _IRM
    ),
    NameFamily("NumRel", "num_rel", "", "ir_measures", "pytrec_eval", ()),
    NameFamily("ndcg@k", "ndcg_cut_k", "k", "ranx", "ranx", _RANX),
    NameFamily("ndcg_burges[@k]", "ndcg_exp, ndcg_exp_cut_k", "k", "ranx", "ranx", _RANX),
    NameFamily("map@k", "map_cut_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("mrr, mrr@k", "recip_rank, recip_rank_cut_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("precision, precision@k", "set_P, P_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("recall@k", "recall_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("hit_rate@k", "success_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("hits@k", "hits_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("f1, f1@k", "set_F, F1_k", "k, -lN", "ranx", "ranx", _RANX),
    NameFamily("r-precision", "Rprec", "-lN", "ranx", "ranx", _RANX),
)

_IRM_NAME = re.compile(r"(?P<head>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[0-9]+))?")
_RANX_NAME = re.compile(r"(?P<head>[a-z][a-z0-9_-]*?)(?:@(?P<k>[0-9]+))?(?:-l(?P<rel>[0-9]+))?")
_ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Recall": "R", "RPrec": "Rprec"}
_ALIASES |= {"BPref": "Bpref", "Precision": "P"}


def parse_peer_name(name: str) -> PeerName | None:
    """The PeerName of an ir_measures or ranx name, None for a name of neither syntax;
    PeerNameError for a known name with a parameter irscore cannot reproduce."""
    irm = _IRM_NAME.fullmatch(name)
    if irm and _ALIASES.get(irm["head"], irm["head"]) in _IRM_READERS:
        head = _ALIASES.get(irm["head"], irm["head"])
        k = int(irm["k"]) if irm["k"] else None
        params = _irm_params(name, irm["params"] or "")
        return _IRM_READERS[head](name, k, params)
    ranx = _RANX_NAME.fullmatch(name)
    if ranx and ranx["head"] in _RANX_READERS:
        k = int(ranx["k"]) if ranx["k"] else None
        rel = int(ranx["rel"]) if ranx["rel"] else 1
        return _RANX_READERS[ranx["head"]](name, k, rel)
    return None


def _irm_params(name: str, text: str) -> dict[str, Any]:
    """`rel=2,p=0.8,gains={0:0,1:1}` as a dict: whole numbers, decimals, a gain map,
    True/False, or a word, quoted as ir_measures writes it (dcg='exp-log2') or not."""
    params: dict[str, Any] = {}
    for item in re.findall(r"[^,{}]+=\{[^}]*\}|[^,]+", text):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key in params:
            raise PeerNameError(f"{name!r}: {item!r} is not one NAME=VALUE parameter")
        params[key] = _irm_value(name, key, value)
    return params


def _irm_value(name: str, key: str, value: str) -> Any:
    if value.startswith("{"):
        pairs = [pair.partition(":") for pair in value[1:-1].split(",") if pair.strip()]
        if not pairs or any(not sep for _, sep, _ in pairs):
            raise PeerNameError(f"{name!r}: {key} must be a map like {{0:0,1:1,2:3}}")
        try:
            return {int(level): int(gain) for level, _, gain in pairs}
        except ValueError:
            raise PeerNameError(f"{name!r}: {key} maps whole grades to whole gains") from None
    if value in ("True", "False"):
        return value == "True"
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]  # ir_measures quotes words: dcg='exp-log2
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _take(name: str, params: dict[str, Any], allowed: dict[str, Any]) -> dict[str, Any]:
    """The parameters with their defaults; one irscore does not reproduce is an error."""
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) or "none"
        raise PeerNameError(
            f"measure {name!r}: irscore does not reproduce {', '.join(unknown)} "
            f"(its parameters here: {takes})"
        )
    return {**allowed, **params}


def _rel(name: str, value: Any) -> tuple[tuple[str, Any], ...]:
    """The convention change of a `rel` parameter (none for the default, 1)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise PeerNameError(f"measure {name!r}: rel must be a whole number of 0 or more")
    return () if value == 1 else (("rel_level", value),)


def _judged_only(name: str, value: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, bool):
        raise PeerNameError(f"measure {name!r}: judged_only must be True or False")
    return (("unjudged", "removed"),) if value else ()


def _need_k(name: str, k: int | None) -> int:
    if k is None:
        raise PeerNameError(f"measure {name!r} needs a cut-off: {name}@10")
    if k < 1:
        raise PeerNameError(f"measure {name!r}: the cut-off must be 1 or more")
    return k


def _peer(name, family, params, printed, changes, peer="ir_measures") -> PeerName:
    return PeerName(name, family, params, printed, tuple(sorted(changes)), peer)


def _binary(family: str, cut_family: str | None, cut_required: bool = False):
    """A reader of an ir_measures measure with rel, judged_only and perhaps a cut-off."""

    def read(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
        p = _take(name, params, {"rel": 1, "judged_only": False})
        changes = (*_IRM, *_rel(name, p["rel"]), *_judged_only(name, p["judged_only"]))
        if cut_required:
            k = _need_k(name, k)
        if k is None:
            return _peer(name, family, None, family, changes)
        if cut_family is None:
            raise PeerNameError(f"measure {name!r}: ir_measures' default provider takes no cut-off")
        return _peer(name, cut_family, str(k), f"{cut_family}_{k}", changes)

    return read


def _rr(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    if k is None:
        return _binary("recip_rank", None)(name, k, params)
    p = _take(name, params, {"rel": 1})
    changes = (*_IRM_SORTED, *_rel(name, p["rel"]))
    return _peer(name, "recip_rank_cut", str(k), f"recip_rank_cut_{k}", changes)


def _recall(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    p = _take(name, params, {"judged_only": False})
    k = _need_k(name, k)
    return _peer(
        name, "recall", str(k), f"recall_{k}", (*_IRM, *_judged_only(name, p["judged_only"]))
    )


def _ndcg(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    p = _take(name, params, {"dcg": "log2", "gains": None, "judged_only": False})
    changes = (*_IRM, *_judged_only(name, p["judged_only"]))
    if p["dcg"] == "exp-log2":
        if p["gains"] is not None or p["judged_only"]:
            raise PeerNameError(f"measure {name!r}: gdeval takes no gains or judged_only")
        k = _need_k(name, k)
        return _peer(name, "ndcg_exp_cut", str(k), f"ndcg_exp_cut_{k}", _IRM_GDEVAL)
    if p["dcg"] != "log2":
        raise PeerNameError(f"measure {name!r}: dcg is log2 or exp-log2")
    if p["gains"] is not None:
        gains = _gain_text(name, p["gains"])
        if k is None:
            return _peer(name, "ndcg", gains, f"ndcg_{gains}", changes)
        return _peer(name, "ndcg_cut_gains", f"{gains}@{k}", f"ndcg_cut_gains_{gains}@{k}", changes)
    if k is None:
        return _peer(name, "ndcg", None, "ndcg", changes)
    return _peer(name, "ndcg_cut", str(k), f"ndcg_cut_{k}", changes)


def _gain_text(name: str, gains: Any) -> str:
    """An ir_measures gain map as trec_eval's `level=gain` text (grades below 0 are
    unjudged in trec_eval, which gives them no gain, as pytrec_eval does)."""
    if not isinstance(gains, dict) or any(level < 0 for level in gains):
        raise PeerNameError(f"measure {name!r}: gains maps grades of 0 or more to gains")
    return ",".join(f"{level}={gain}" for level, gain in sorted(gains.items()))


def _err(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    _take(name, params, {})
    k = _need_k(name, k)
    return _peer(name, "err", str(k), f"err_{k}", _IRM_GDEVAL)


def _judged(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    _take(name, params, {})
    k = _need_k(name, k)
    return _peer(name, "judged_rate", str(k), f"judged_rate_{k}", _IRM_SORTED)


def _rbp(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    p = _take(name, params, {"p": IRM_RBP_PERSISTENCE, "rel": None})
    if k is not None:
        raise PeerNameError(f"measure {name!r}: ir_measures' RBP providers take no cut-off")
    persistence = p["p"]
    if not isinstance(persistence, int | float) or not 0 < persistence < 1:
        raise PeerNameError(f"measure {name!r}: p must be a number between 0 and 1")
    text = f"p={persistence}"
    if p["rel"] is None:  # graded: no provider of ir_measures' default pipeline has it
        return _peer(name, "rbp", text, f"rbp_{text}", _IRM)
    changes = (*_IRM_CWL, *_rel(name, p["rel"]))
    return _peer(name, "rbp_bin", text, f"rbp_bin_{text}", changes)


def _counts(family: str, with_rel: str | None, changes=_IRM):
    def read(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
        if k is not None:
            raise PeerNameError(f"measure {name!r} takes no cut-off")
        p = _take(name, params, {"rel": None} if with_rel else {})
        if p.get("rel") is None:
            return _peer(name, family, None, family, changes)
        return _peer(name, with_rel, None, with_rel, (*changes, *_rel(name, p["rel"])))

    return read


def _num_rel_ret(name: str, k: int | None, params: dict[str, Any]) -> PeerName:
    return _counts("num_rel_ret", "num_rel_ret")(name, k, {"rel": 1, **params})


_IRM_READERS = {
    "P": _binary("P", "P", cut_required=True),
    "AP": _binary("map", "map_cut"),
    "RR": _rr,
    "R": _recall,
    "nDCG": _ndcg,
    "ERR": _err,
    "Judged": _judged,
    "RBP": _rbp,
    "Rprec": _binary("Rprec", None),
    "Success": _binary("success", "success", cut_required=True),
    "Bpref": _counts("bpref", "bpref"),
    "NumRet": _counts("num_ret", "num_rel_ret"),
    "NumRelRet": _num_rel_ret,
    # pytrec_eval's num_rel of the topics both sides have; ir_measures' sum adds nothing
    # for the others, so the topics are trec_eval's
    "NumRel": _counts("num_rel", None, ()),
}


def _ranx(family: str | None, cut_family: str | None, binary: bool = True):
    """A reader of a ranx metric: `name`, `name@k`, and `-lN` for the binary ones."""

    def read(name: str, k: int | None, rel: int) -> PeerName:
        if rel != 1 and not binary:
            raise PeerNameError(f"measure {name!r}: irscore reproduces -l only for binary metrics")
        changes = (*_RANX, *(_rel(name, rel)))
        if k is None:
            if family is None:
                raise PeerNameError(f"measure {name!r} needs a cut-off: {name}@10")
            return _peer(name, family, None, family, changes, "ranx")
        if cut_family is None:
            raise PeerNameError(f"measure {name!r} takes no cut-off")
        return _peer(name, cut_family, str(k), f"{cut_family}_{k}", changes, "ranx")

    return read


_RANX_READERS = {
    "ndcg": _ranx("ndcg", "ndcg_cut", binary=False),
    "ndcg_burges": _ranx("ndcg_exp", "ndcg_exp_cut", binary=False),
    "map": _ranx("map", "map_cut"),
    "mrr": _ranx("recip_rank", "recip_rank_cut"),
    "precision": _ranx("set_P", "P"),
    "recall": _ranx("set_recall", "recall"),
    "hit_rate": _ranx(None, "success"),
    "hits": _ranx(None, "hits"),  # `hits` alone is irscore's family (trec_eval's syntax)
    "f1": _ranx("set_F", "F1"),
    "r-precision": _ranx("Rprec", None),
}


def peer_examples() -> list[str]:
    """The peers' names at common cut-offs, for suggestions."""
    heads = [*_IRM_READERS, *_ALIASES, *_RANX_READERS]
    return heads + [f"{head}@{k}" for head in heads for k in (5, 10, 20, 100)]
