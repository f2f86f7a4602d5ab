"""ir_measures 0.4.3's measure names (`nDCG@10`, `P(rel=2)@5`, `SetF(beta=0.5)`,
`IPrec@0.25`), each read as an irscore measure under the convention of the provider
ir_measures' default pipeline picks for it (runtime, pytrec_eval, cwl_eval, compat,
pyndeval, judged, msmarco, gdeval, accuracy, ranx: the first that supports the measure
with its parameters). Each reader takes the name, its `@` text and its parameters."""

from __future__ import annotations

from typing import Any

from irscore.engine.measures.peer_common import (
    IRM,
    IRM_CWL,
    IRM_GDEVAL,
    IRM_SORTED,
    RANX,
    PeerName,
    PeerNameError,
    judged_only,
    need_k,
    no_k,
    number,
    peer,
    rel,
    take,
    whole,
)

RBP_PERSISTENCE = 0.8  # ir_measures' default p (trec_eval 10's rbp: 0.9)
# ir_measures' other spellings of the same measures
ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Recall": "R", "RPrec": "Rprec"}
ALIASES |= {"BPref": "Bpref", "Precision": "P", "MAP_IA": "AP_IA", "α_nDCG": "alpha_nDCG"}
ALIASES |= {"α_DCG": "alpha_DCG"}


def cutoff(name: str, at: str | None) -> int | None:
    """The whole-number cut-off after `@`, or None without one."""
    if at is None:
        return None
    if not at.isdigit():
        raise PeerNameError(f"measure {name!r}: the cut-off must be a whole number")
    return need_k(name, int(at))


def _binary(family: str, cut_family: str | None, cut_required: bool = False):
    """A reader of a pytrec_eval measure with rel, judged_only and perhaps a cut-off."""

    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        p = take(name, params, {"rel": 1, "judged_only": False})
        changes = (*IRM, *rel(name, p["rel"]), *judged_only(name, p["judged_only"]))
        k = cutoff(name, at)
        if cut_required:
            k = need_k(name, k)
        if k is None:
            return peer(name, family, None, family, changes)
        if cut_family is None:
            raise PeerNameError(f"measure {name!r}: ir_measures' default provider takes no cut-off")
        return peer(name, cut_family, str(k), f"{cut_family}_{k}", changes)

    return read


def _rr(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    k = cutoff(name, at)
    if k is None:
        return _binary("recip_rank", None)(name, at, params)
    p = take(name, params, {"rel": 1})
    changes = (*IRM_SORTED, *rel(name, p["rel"]))
    return peer(name, "recip_rank_cut", str(k), f"recip_rank_cut_{k}", changes)


def _ndcg(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"dcg": "log2", "gains": None, "judged_only": False})
    changes = (*IRM, *judged_only(name, p["judged_only"]))
    k = cutoff(name, at)
    if p["dcg"] == "exp-log2":
        if p["gains"] is not None or p["judged_only"]:
            raise PeerNameError(f"measure {name!r}: gdeval and ranx take no gains or judged_only")
        if k is None:  # gdeval needs a cut-off: ir_measures' ranx provider (ndcg_burges)
            return peer(name, "ndcg_exp", None, "ndcg_exp", RANX)
        return peer(name, "ndcg_exp_cut", str(k), f"ndcg_exp_cut_{k}", IRM_GDEVAL)
    if p["dcg"] != "log2":
        raise PeerNameError(f"measure {name!r}: dcg is log2 or exp-log2")
    if p["gains"] is not None:
        gains = _gain_text(name, p["gains"])
        if k is None:
            return peer(name, "ndcg", gains, f"ndcg_{gains}", changes)
        return peer(name, "ndcg_cut_gains", f"{gains}@{k}", f"ndcg_cut_gains_{gains}@{k}", changes)
    if k is None:
        return peer(name, "ndcg", None, "ndcg", changes)
    return peer(name, "ndcg_cut", str(k), f"ndcg_cut_{k}", changes)


def _gain_text(name: str, gains: Any) -> str:
    """An ir_measures gain map as trec_eval's `level=gain` text (grades below 0 are
    unjudged in trec_eval, which gives them no gain, as pytrec_eval does)."""
    if not isinstance(gains, dict) or any(level < 0 for level in gains):
        raise PeerNameError(f"measure {name!r}: gains maps grades of 0 or more to gains")
    return ",".join(f"{level}={gain}" for level, gain in sorted(gains.items()))


def _err(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    take(name, params, {})
    k = need_k(name, cutoff(name, at))
    return peer(name, "err", str(k), f"err_{k}", IRM_GDEVAL)


# the judged provider without a cut-off divides by the documents retrieved: a cut-off
# no ranking reaches (2^31 - 1, the most documents a topic can hold) is the same
WHOLE_RANKING = 2**31 - 1


def _judged(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    take(name, params, {})
    k = cutoff(name, at) or WHOLE_RANKING
    return peer(name, "judged_rate", str(k), f"judged_rate_{k}", IRM_SORTED)


def _rbp(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"p": RBP_PERSISTENCE, "rel": None})
    if at is not None:
        raise PeerNameError(f"measure {name!r}: ir_measures' RBP providers take no cut-off")
    text = f"p={number(name, 'p', p['p'], 0, 1)!r}"
    if p["rel"] is None:  # graded: no provider of ir_measures' default pipeline has it
        return peer(name, "rbp", text, f"rbp_{text}", IRM)
    changes = (*IRM_CWL, *rel(name, p["rel"]))
    return peer(name, "rbp_bin", text, f"rbp_bin_{text}", changes)


def _counts(family: str, with_rel: str | None, changes=IRM):
    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        no_k(name, at)
        p = take(name, params, {"rel": None} if with_rel else {})
        if p.get("rel") is None:
            return peer(name, family, None, family, changes)
        return peer(name, with_rel, None, with_rel, (*changes, *rel(name, p["rel"])))

    return read


def _num_rel_ret(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    return _counts("num_rel_ret", "num_rel_ret")(name, at, {"rel": 1, **params})


def _num_rel(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    # pytrec_eval's num_rel of the topics both sides have; ir_measures' sum adds nothing
    # for the others, so the topics are trec_eval's; pytrec_eval reads rel=1 only
    if take(name, params, {"rel": 1})["rel"] != 1:
        raise PeerNameError(f"measure {name!r}: ir_measures' providers take rel=1 only")
    return _counts("num_rel", None, ())(name, at, {})


def _num_q(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    # 1 for each topic of both the run and the qrels, summed: trec_eval's num_q
    return _counts("num_q", None, ())(name, at, params)


def _set_p(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"rel": 1, "relative": False, "judged_only": False})
    no_k(name, at)
    family = "set_relative_P" if p["relative"] is True else "set_P"
    if not isinstance(p["relative"], bool):
        raise PeerNameError(f"measure {name!r}: relative must be True or False")
    changes = (*IRM, *rel(name, p["rel"]), *judged_only(name, p["judged_only"]))
    return peer(name, family, None, family, changes)


def _set_f(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"rel": 1, "beta": 1.0, "judged_only": False})
    no_k(name, at)
    beta = number(name, "beta", p["beta"], 0, None)
    changes = (*IRM, *rel(name, p["rel"]), *judged_only(name, p["judged_only"]))
    if beta == 1.0:
        return peer(name, "set_F", None, "set_F", changes)
    return peer(name, "set_F", repr(beta), f"set_F_{beta!r}", changes)


def _iprec(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"rel": 1, "judged_only": False})
    try:
        recall = float(at) if at is not None else None
    except ValueError:
        recall = None
    if recall is None or not 0 <= recall <= 1:
        raise PeerNameError(f"measure {name!r} needs a recall level from 0 to 1: IPrec@0.5")
    level = f"{recall:.2f}"  # pytrec_eval's name for it, iprec_at_recall_%.2f
    changes = (*IRM, *rel(name, p["rel"]), *judged_only(name, p["judged_only"]))
    return peer(name, "iprec_at_recall", level, f"iprec_at_recall_{level}", changes)


def _rel_only(family: str, convention: tuple[tuple[str, Any], ...] = IRM):
    """A reader of a measure whose one parameter is rel (pytrec_eval's, unless told)."""

    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        no_k(name, at)
        changes = (*convention, *rel(name, take(name, params, {"rel": 1})["rel"]))
        return peer(name, family, None, family, changes)

    return read


def _recall(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    return _binary("recall", "recall", cut_required=True)(name, at, params)


def _diversity(family: str, alpha: bool = False):
    """A reader of a pyndeval measure at a cut-off (ndeval's, with rel; alpha 0.5 only)."""

    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        p = take(name, params, {"rel": 1, **({"alpha": 0.5} if alpha else {})})
        if p.get("alpha", 0.5) != 0.5:
            raise PeerNameError(f"measure {name!r}: irscore computes alpha=0.5 only")
        k = need_k(name, cutoff(name, at))
        return peer(name, family, str(k), f"{family}_{k}", (*IRM_SORTED, *rel(name, p["rel"])))

    return read


def _nrbp(family: str):
    """A reader of pyndeval's NRBP or nNRBP (rel, alpha, beta)."""

    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        p = take(name, params, {"rel": 1, "alpha": 0.5, "beta": 0.5})
        no_k(name, at)
        alpha, beta = (number(name, key, p[key], 0, 1) for key in ("alpha", "beta"))
        changes = (*IRM_SORTED, *rel(name, p["rel"]))
        if (alpha, beta) == (0.5, 0.5):
            return peer(name, family, None, family, changes)
        text = f"alpha={alpha!r},beta={beta!r}"
        return peer(name, family, text, f"{family}_{text}", changes)

    return read


def _cwl(family: str, *names: str):
    """A reader of a cwl_eval measure (INST, INSQ, BPM, NERR8-11, SDCG): max_rel given,
    min_rel 0 by default, `names` its own parameters (`k` its cut-off, required)."""
    defaults = {"T": 1.0, "p": 0.9, "dcg": "log2"}

    def read(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
        own = {key: defaults[key] for key in names if key != "k"}
        p = take(name, params, {**own, "min_rel": 0, "max_rel": None})
        k = cutoff(name, at)
        if "k" in names:
            k = need_k(name, k)
        else:
            no_k(name, at)
        if p["max_rel"] is None:
            raise PeerNameError(f"measure {name!r} needs max_rel, the highest grade: max_rel=3")
        low, high = (whole(name, key, p[key], -(2**31)) for key in ("min_rel", "max_rel"))
        if not low < high:
            raise PeerNameError(f"measure {name!r}: min_rel must be below max_rel")
        if p.pop("dcg", "log2") != "log2":
            raise PeerNameError(f"measure {name!r}: dcg is log2")
        values = [f"k={k}"] if k is not None else []
        values += [f"{key}={number(name, key, p[key], 0, None)!r}" for key in own if key != "dcg"]
        text = ",".join([*values, f"min_rel={low}", f"max_rel={high}"])
        return peer(name, family, text, f"{family}_{text}", IRM_CWL)

    return read


def _compat(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"p": 0.95, "normalize": True})
    no_k(name, at)
    if not isinstance(p["normalize"], bool):
        raise PeerNameError(f"measure {name!r}: normalize must be True or False")
    text = f"p={number(name, 'p', p['p'], 0, 1)!r}" + ("" if p["normalize"] else ",normalize=0")
    # the provider sorts the run by docno, then (stably) by score: ties by docno ascending
    return peer(name, "compat", text, f"compat_{text}", IRM_SORTED)


# the accuracy provider sorts by score alone (stably: ties in the run's order) and scores
# the run's topics that have judgments
_ACCURACY = (("score_precision", "float64"), ("tie_break", "file_order"))


def _accuracy(name: str, at: str | None, params: dict[str, Any]) -> PeerName:
    p = take(name, params, {"rel": 1})
    whole(name, "rel", p["rel"], 1)
    k = cutoff(name, at)
    text = None if k is None else f"k={k}"
    printed = "accuracy" if text is None else f"accuracy_{text}"
    return peer(name, "accuracy", text, printed, (*_ACCURACY, *rel(name, p["rel"])))


READERS = {
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
    "NumRel": _num_rel,
    "NumQ": _num_q,
    "SetP": _set_p,
    "SetRelP": lambda name, at, params: _set_p(name, at, {"relative": True, **params}),
    "SetR": _rel_only("set_recall"),
    "SetF": _set_f,
    "SetAP": _binary("set_map", None),
    "IPrec": _iprec,
    "infAP": _rel_only("infAP"),
    # pyndeval: ndeval's measures over every qrels topic; pyndeval sorts by (-score, docno)
    "ERR_IA": _diversity("err_ia"),
    "alpha_nDCG": _diversity("alpha_ndcg", alpha=True),
    "NRBP": _nrbp("nrbp"),
    "nNRBP": _nrbp("nnrbp"),
    "nERR_IA": _diversity("nerr_ia"),
    "AP_IA": _rel_only("ap_ia", IRM_SORTED),
    "P_IA": _diversity("p_ia"),
    "StRecall": _diversity("strec"),
    # cwl_eval: C/W/L measures over every qrels topic, ties in the run's order
    "INST": _cwl("inst", "T"),
    "INSQ": _cwl("insq", "T"),
    "BPM": _cwl("bpm", "k", "T"),
    "NERR8": _cwl("nerr8", "k"),
    "NERR9": _cwl("nerr9", "k"),
    "NERR10": _cwl("nerr10", "p"),
    "NERR11": _cwl("nerr11", "T"),
    "SDCG": _cwl("sdcg", "k", "dcg"),
    "Compat": _compat,
    "Accuracy": _accuracy,
}
