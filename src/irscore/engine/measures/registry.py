"""One declaration per measure family: every fact irscore needs about a measure.

A family's declaration says how its -m parameters parse (and their default),
how its per-topic values aggregate over topics, whether trec_eval prints it per
topic, whether it is a count, whether trec_eval / pytrec_eval compute it, the
function computing it on an ordered ranking and its tie-aware expected form.
A family whose per-topic value is text (relstring) has no `all` value and no
place in a long table: only trec_eval's text layout prints it (`irscore
evaluate -q`).
The order of the declarations is the print order: trec_eval's (measures.c),
irscore's extras after the family they vary. Every list of measures elsewhere
is derived from here, so adding a measure is one declaration in this file.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from irscore.engine.measures import (
    ap,
    avgjg,
    counts,
    dcg,
    diversity,
    expected,
    interpolation,
    peer_families,
    precision,
    prefs,
    strings,
)
from irscore.engine.measures.family import Family, Params
from irscore.engine.measures.ranking import Context, Ranking

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval's default multiples of R for Rprec_mult (written as literals: 3 * 0.2 != 0.6)
RPREC_MULT_CUTOFFS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
MIN_GEO_MEAN = 0.00001
AGGREGATES = ("mean", "sum", "geometric", "count", "relevant", "none", "mean_defined")


def _cutoffs(default: tuple[int, ...] = DEFAULT_CUTOFFS) -> Params:
    return Params("cutoffs", default)


_DIVERSITY = Params("cutoffs", diversity.CUTOFFS)  # ndeval's 5, 10, 20
_P = Params("named", names=("p",))  # rbp's persistence, `-m rbp.p=0.8`
_GAINS = Params("gains")  # `-m ndcg.1=3,2=9`: the gain of each level the map names


def _nothing(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    """runid: a line of text in the summary, no values."""
    return {}


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("runid", _nothing, official=True, pytrec_eval=()),
        Family(
            "num_q",
            counts.num_q,
            aggregate="count",
            printed_per_topic=False,
            integer=True,
            official=True,
            expected=expected.num_q,
        ),
        Family(
            "num_ret",
            counts.num_ret,
            aggregate="sum",
            integer=True,
            official=True,
            expected=expected.num_ret,
        ),
        Family(
            "num_rel",
            counts.num_rel,
            aggregate="relevant",
            integer=True,
            official=True,
            expected=expected.num_rel,
        ),
        Family(
            "num_rel_ret",
            counts.num_rel_ret,
            aggregate="sum",
            integer=True,
            official=True,
            expected=expected.num_rel_ret,
        ),
        Family("map", ap.map_, official=True, expected=expected.map_),
        Family(
            "gm_map",
            ap.gm_map,
            aggregate="geometric",
            topic_rows=False,
            printed_per_topic=False,
            official=True,
        ),
        Family("Rprec", precision.rprec, official=True, expected=expected.rprec),
        Family("bpref", ap.bpref_, official=True),
        Family("recip_rank", precision.recip_rank, official=True, expected=expected.recip_rank),
        Family(
            "recip_rank_cut",
            precision.recip_rank_cut,
            _cutoffs((10,)),
            trec_eval=(),
            pytrec_eval=(),
            by_name=True,
            peer="ir_measures RR@k, ranx mrr@k",
        ),
        Family(
            "iprec_at_recall",
            interpolation.iprec_at_recall,
            Params("levels", interpolation.RECALL_LEVELS),
            official=True,
        ),
        Family(
            "P", precision.precision_at, _cutoffs(), official=True, expected=expected.precision_at
        ),
        Family(
            "relstring",
            strings.relstring,
            Params("numbers", count=1),
            aggregate="none",
            text=True,
            pytrec_eval=(),
        ),
        Family("recall", precision.recall_at, _cutoffs(), expected=expected.recall_at),
        Family("infAP", ap.infap),
        Family(
            "gm_bpref",
            ap.gm_bpref,
            aggregate="geometric",
            topic_rows=False,
            printed_per_topic=False,
        ),
        Family("Rprec_mult", precision.rprec_mult, Params("multiples", RPREC_MULT_CUTOFFS)),
        Family("utility", precision.utility, Params("numbers", count=4)),
        Family("11pt_avg", interpolation.eleven_point_average, Params("numbers")),
        Family("binG", dcg.bin_g),
        Family("G", dcg.g, _GAINS),
        Family("dcg", dcg.dcg_of, _GAINS, trec_eval=(), pytrec_eval=()),
        Family("ideal_dcg", dcg.ideal_dcg_of, _GAINS, trec_eval=(), pytrec_eval=()),
        Family("ndcg", dcg.ndcg, _GAINS, expected=expected.ndcg),
        Family("ndcg_rel", dcg.ndcg_rel, _GAINS),
        Family("Rndcg", dcg.rndcg, _GAINS),
        Family("ndcg_cut", dcg.ndcg_cut, _cutoffs(), expected=expected.ndcg_cut),
        Family("ndcg_exp", dcg.ndcg_exp, trec_eval=(), pytrec_eval=(), expected=expected.ndcg_exp),
        Family(
            "ndcg_exp_cut",
            dcg.ndcg_exp_cut,
            _cutoffs(),
            trec_eval=(),
            pytrec_eval=(),
            expected=expected.ndcg_exp_cut,
        ),
        Family(
            "ndcg_cut_gains",
            dcg.ndcg_cut_gains,
            Params("cut_gains"),
            trec_eval=(),
            pytrec_eval=(),
            by_name=True,
            peer="ir_measures nDCG(gains={...})@k",
        ),
        Family("map_cut", ap.map_cut, _cutoffs(), expected=expected.map_cut),
        Family("relative_P", precision.relative_precision, _cutoffs()),
        Family("success", precision.success, _cutoffs((1, 5, 10)), expected=expected.success),
        *(
            Family(
                name, kernel, _cutoffs((10,)), trec_eval=(), pytrec_eval=(), by_name=True, peer=peer
            )
            for name, kernel, peer in (
                ("hits", precision.hits, "ranx hits@k"),
                ("F1", precision.f1_at, "ranx f1@k"),
            )
        ),
        Family("set_P", precision.set_precision),
        Family("set_relative_P", precision.set_relative_precision),
        Family("set_recall", precision.set_recall),
        Family("set_map", precision.set_map),
        Family("set_F", precision.set_f, Params("numbers", count=1)),
        Family(
            "num_nonrel_judged_ret", counts.num_nonrel_judged_ret, aggregate="sum", integer=True
        ),
        *(
            Family(
                name,
                kernel,
                aggregate="sum" if count else "mean",
                integer=count,
                trec_eval=(),
                pytrec_eval=False,
                judgments="prefs",
            )
            for name, kernel, count in (
                ("prefs_num_prefs_poss", prefs.num_prefs_poss, True),
                ("prefs_num_prefs_ful", prefs.num_prefs_ful, True),
                ("prefs_num_prefs_ful_ret", prefs.num_prefs_ful_ret, True),
                ("prefs_simp", prefs.simp, False),
                ("prefs_pair", prefs.pair, False),
                ("prefs_avgjg", prefs.avgjg, False),
                ("prefs_avgjg_Rnonrel", prefs.avgjg_rnonrel, False),
                ("prefs_simp_ret", prefs.simp_ret, False),
                ("prefs_pair_ret", prefs.pair_ret, False),
                ("prefs_avgjg_ret", prefs.avgjg_ret, False),
                ("prefs_avgjg_Rnonrel_ret", prefs.avgjg_rnonrel_ret, False),
                ("prefs_simp_imp", prefs.simp_imp, False),
                ("prefs_pair_imp", prefs.pair_imp, False),
                ("prefs_avgjg_imp", prefs.avgjg_imp, False),
            )
        ),
        Family(
            "map_avgjg",
            avgjg.map_avgjg,
            trec_eval=(),
            pytrec_eval=False,
            expected=avgjg.expected_map_avgjg,
            judgments="qrels_jg",
        ),
        Family(
            "P_avgjg",
            avgjg.p_avgjg,
            _cutoffs(),
            trec_eval=(),
            pytrec_eval=False,
            expected=avgjg.expected_p_avgjg,
            judgments="qrels_jg",
        ),
        Family(
            "Rprec_mult_avgjg",
            avgjg.rprec_mult_avgjg,
            Params("multiples", RPREC_MULT_CUTOFFS),
            trec_eval=(),
            pytrec_eval=False,
            judgments="qrels_jg",
        ),
        Family("yaap", ap.yaap, trec_eval=(), pytrec_eval=()),
        Family("rbp", dcg.rbp, _P, trec_eval=(10,), pytrec_eval=()),
        Family("rbp_resid", dcg.rbp_residual, _P, trec_eval=(10,), pytrec_eval=()),
        Family(
            "rbp_bin",
            dcg.rbp_binary,
            _P,
            trec_eval=(),
            pytrec_eval=(),
            by_name=True,
            peer="ir_measures RBP(rel=r)",
        ),
        Family("unj", counts.unjudged, _cutoffs((5, 10, 20)), trec_eval=(10,), pytrec_eval=()),
        Family("err", dcg.err_at, _cutoffs((20,)), trec_eval=(), pytrec_eval=()),
        Family(
            "judged",
            counts.judged,
            _cutoffs((10,)),
            trec_eval=(),
            pytrec_eval=(),
            expected=expected.judged,
        ),
        Family(
            "judged_rate",
            counts.judged_rate,
            _cutoffs((10,)),
            trec_eval=(),
            pytrec_eval=(),
            by_name=True,
            peer="ir_measures Judged@k",
        ),
        *(
            Family(name, kernel, params, trec_eval=(), pytrec_eval=False, judgments="subtopics")
            for name, kernel, params in (
                ("alpha_ndcg", diversity.alpha_ndcg, _DIVERSITY),
                ("err_ia", diversity.err_ia, _DIVERSITY),
                ("nrbp", diversity.nrbp, Params("named", names=("alpha", "beta"))),
                ("p_ia", diversity.p_ia, _DIVERSITY),
                ("strec", diversity.strec, _DIVERSITY),
            )
        ),
        *peer_families.DECLARATIONS,
    )
}

# trec_eval 9's measure families in its print order, and the nicknames
TREC_ORDER = [name for name, f in FAMILIES.items() if 9 in f.trec_eval]
OFFICIAL = tuple(name for name, f in FAMILIES.items() if f.official)
ALL_TREC = {v: tuple(name for name, f in FAMILIES.items() if v in f.trec_eval) for v in (9, 10)}
IMPLEMENTED = frozenset(name for name, f in FAMILIES.items() if f.compute is not None)
TEXT_FAMILIES = frozenset(name for name, f in FAMILIES.items() if f.text)
# what each kind of judgments computes (runid and num_q: every kind)
JUDGMENTS = {
    kind: frozenset(n for n, f in FAMILIES.items() if f.judgments == kind) | {"runid", "num_q"}
    for kind in ("qrels", "prefs", "qrels_jg")
}
# the diversity measures (ndeval's), which `irscore evaluate` and the API compute from a
# qrels's subtopics (an ordinary qrels: one per topic); the workflow's config has none
SUBTOPIC_FAMILIES = frozenset(n for n, f in FAMILIES.items() if f.judgments == "subtopics")
# trec_eval's nicknames of sets of families, for each major version
NICKNAMES = {
    "official": OFFICIAL,
    "all_trec": ALL_TREC,
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_prefs": tuple(n for n in FAMILIES if n in JUDGMENTS["prefs"]),
    "prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ),
    "qrels_jg": tuple(n for n in FAMILIES if n in JUDGMENTS["qrels_jg"]),
}
# the families a long table of a qrels holds by default (runid and the texts are lines of
# the text output only; the preference and judgment-group measures need their own files;
# the peers' measures are computed when named)
BY_NAME = frozenset(name for name, f in FAMILIES.items() if f.by_name)
ALL_FAMILIES = (IMPLEMENTED & JUDGMENTS["qrels"]) - {"runid"} - TEXT_FAMILIES - BY_NAME
# the trec_eval families irscore computes: the default set
TREC_FAMILIES = frozenset(TREC_ORDER) & ALL_FAMILIES
PARAMETRISED = {name: f.params for name, f in FAMILIES.items() if f.params is not None}
CUTOFF_FAMILIES = tuple(name for name, p in PARAMETRISED.items() if p.kind == "cutoffs")
PYTREC_EVAL_FAMILIES = frozenset(name for name in ALL_FAMILIES if FAMILIES[name].pytrec_eval)
EXPECTED_FAMILIES = frozenset(name for name, f in FAMILIES.items() if f.expected is not None)


@functools.cache
def printed_family(measure: str) -> Family | None:
    """The family of a name as irscore prints it (`P_10` -> P, `ndcg_exp_cut_5` ->
    ndcg_exp_cut): the family of that name, else the longest family name followed by
    `_`; None for no such family."""
    if measure in FAMILIES:
        return FAMILIES[measure]
    prefixes = [name for name in FAMILIES if measure.startswith(name + "_")]
    return FAMILIES[max(prefixes, key=len)] if prefixes else None


@functools.cache
def family_of(measure: str) -> Family:
    """The family of a printed measure name (`printed_family`), else the family computing
    an ir_measures or ranx name (`nDCG@10` -> ndcg_cut); KeyError for neither."""
    family = printed_family(measure)
    if family is not None:
        return family
    from irscore.engine.measures.peer_names import MeasureError, parse_peer_name

    try:
        peer = parse_peer_name(measure)
    except MeasureError:
        peer = None
    if peer is None:
        raise KeyError(f"no measure family prints {measure!r}")
    return FAMILIES[peer.family]


def is_integer(measure: str) -> bool:
    """True for the counts, which trec_eval prints as integers."""
    return family_of(measure).integer


def is_text(measure: str) -> bool:
    """True for relstring, whose per-topic values are strings and which has no `all` value."""
    return family_of(measure).text


def has_topic_rows(measure: str) -> bool:
    """False for the geometric means, which exist only over topics."""
    return family_of(measure).topic_rows


def printed_per_topic(measure: str) -> bool:
    """False for what trec_eval prints only in the summary (num_q, the geometric means)."""
    return family_of(measure).printed_per_topic


def compute(
    r: Ranking, spec: Any, ctx: Context | None = None, ties: str = "ordered", text: bool = False
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Every measure of `spec` for every topic of the ranking, {name: array over topics}
    in print order, and the requested families left out (`why_not_computed` says why).

    `ties="ordered"` evaluates the ranking's one order (cut at its depth);
    `"expected"` the mean over every order of its tied groups (`expected`).
    `text`: compute the text families too (arrays of str, for trec_eval's text
    layout); without it they are left out, as a long table cannot hold them.
    """
    ctx = ctx or Context()
    if spec.collection_size:
        ctx = dataclasses.replace(ctx, collection_size=spec.collection_size)
    out: dict[str, np.ndarray] = {}
    not_computed: list[str] = []
    if ties == "expected":
        ranked: Any = expected.Tied(r, r.depth)
    else:
        ranked = r.cut.pooled
    for name, family in FAMILIES.items():
        if name not in spec.families or family.compute is None or name in SUBTOPIC_FAMILIES:
            continue  # the diversity measures read a Coverage (`compute_diversity`)
        form = family.expected if ties == "expected" else family.compute
        if ties == "expected" and family.params == _GAINS and spec.param(name) is not None:
            form = None  # the expected forms know the convention's gains, not a map's
        if form is None or (family.text and not text):
            if name != "runid":
                not_computed.append(name)
            continue
        out.update(form(ranked, ctx, spec.param(name)))
    return out, not_computed


def compute_diversity(cov: diversity.Coverage, spec: Any, ctx: Context) -> dict[str, np.ndarray]:
    """The diversity measures of `spec` for every topic of the coverage, in print order."""
    out: dict[str, np.ndarray] = {}
    for name in FAMILIES:
        if name in spec.families and name in SUBTOPIC_FAMILIES:
            out.update(FAMILIES[name].compute(cov, ctx, spec.param(name)))
    return out


def why_not_computed(name: str, ties: str) -> str:
    """Why `compute` left out the requested family `name`, for the note the user reads."""
    family = FAMILIES[name]
    if ties == "expected" and family.expected is None:
        return "has no expected-value form"
    if ties == "expected" and family.params == _GAINS:
        return "has no expected-value form with a level=gain map"
    if family.text:
        return "is text, printed only per topic in trec_eval's layout (irscore evaluate -q)"
    return "has no form"
