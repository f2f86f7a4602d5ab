"""ir_measures and ranx names against the peers' own code, on generated collections with
ties, scores equal only in float32, negative grades, a judged topic without results, a
topic without relevant documents and a run topic without judgments: irscore's value is
the peer's, per topic and for the mean, to 1e-9 (gdeval prints 5 decimals: to 5e-6).

ranx breaks ties with numba's unstable sort, which no convention reproduces: its runs
here have no tied scores (docs/measure-names.md says so). ranx runs with numba's JIT off
(its same Python code, without minutes of compilation on a fresh machine).
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

import irscore

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# ir_measures' names whose default provider irscore reproduces (trec_eval's own names,
# such as Rprec, keep trec_eval's meaning and are not among them)
IR_MEASURES = [
    "P@5",
    "P(rel=2)@5",
    "P(judged_only=True)@5",
    "AP",
    "MAP",
    "AP@10",
    "AP(rel=2)",
    "RR",
    "MRR",
    "RR(rel=2)",
    "RR@3",
    "RR@10",
    "R@10",
    "nDCG",
    "nDCG@10",
    "nDCG(gains={0:0,1:1,2:3,3:7})@10",
    "nDCG(gains={0:0,1:1,2:3,3:7})",
    "nDCG(dcg='exp-log2')@10",
    "ERR@10",
    "ERR@20",
    "Judged@5",
    "Judged@10",
    "RBP(rel=1)",
    "RBP(rel=2,p=0.5)",
    "RPrec",
    "Success@5",
    "Success(rel=2)@10",
    "Bpref",
    "NumRet",
    "NumRelRet",
    "NumRel",
    "NumQ",
    "NumRet(rel=2)",
    "SetP",
    "SetP(rel=2)",
    "SetP(relative=True)",
    "SetP(judged_only=True)",
    "SetR",
    "SetR(rel=2)",
    "SetF",
    "SetF(beta=0.5)",
    "SetF(rel=2,beta=2.0)",
    "SetAP",
    "SetAP(rel=2)",
    "IPrec@0.25",
    "IPrec(rel=2)@0.1",
    "IPrec@1.0",
    "infAP(rel=2)",
    "Judged",
    "R(rel=2)@5",
    "P(judged_only=True)@4",
    "Rprec(rel=2)",
    "INST(max_rel=3)",
    "INST(T=2.0,max_rel=2)",
    "INSQ(max_rel=3)",
    "BPM(max_rel=3)@10",
    "BPM(T=2.0,max_rel=2)@5",
    "NERR8(max_rel=3)@10",
    "NERR9(max_rel=3)@5",
    "NERR10(p=0.8,max_rel=3)",
    "NERR11(T=2.0,max_rel=3)",
    "SDCG(max_rel=3)@10",
    "SDCG(min_rel=1,max_rel=3)@5",
    "Compat",
    "Compat(p=0.8)",
    "Compat(normalize=False)",
]
GDEVAL = {"nDCG(dcg='exp-log2')@10", "ERR@10", "ERR@20"}  # printed with %.5f
RANX = [
    "ndcg@10",
    "ndcg_burges",
    "ndcg_burges@10",
    "map@10",
    "map@10-l2",
    "mrr",
    "mrr@3",
    "precision",
    "precision@5",
    "precision@5-l2",
    "recall@10",
    "hit_rate@5",
    "hits@5",
    "f1",
    "f1@5",
    "r-precision",
    "dcg@5",
    "dcg@10",
    "dcg_burges",
    "dcg_burges@5",
    "rbp@95",
    "rbp@8-l2",
]
SEEDS = (1, 2, 3, 4)


def collection(seed: int, ties: bool) -> tuple[dict, dict]:
    """Topics 1-10 judged (9 without results, 10 without a relevant document), 1-8 and
    11 (without judgments) retrieved; grades -1..3; with `ties`, scores on a coarse grid
    and two that differ only beyond float32 precision, else all scores distinct."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(30)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for topic in range(1, 12):
        qid = str(topic)
        if topic <= 10:
            judged = rng.choice(30, size=int(rng.integers(3, 16)), replace=False)
            grades = rng.choice([-1, 0, 1, 2, 3], size=len(judged), p=[0.1, 0.4, 0.25, 0.15, 0.1])
            if topic == 10:
                grades = np.minimum(grades, 0)
            qrels[qid] = {docs[j]: int(g) for j, g in zip(judged, grades, strict=True)}
        if topic == 9:
            continue
        n = int(rng.integers(1, 26))
        chosen = rng.choice(30, size=n, replace=False)
        if ties:
            scores = list(rng.integers(0, 6, size=n) / 4)
            if n >= 2:
                scores[0], scores[1] = 0.7, 0.7 + 1e-12  # one tie in float32 only
        else:
            scores = list(rng.permutation(n) / n + rng.random() / 100)
        run[qid] = {docs[c]: float(s) for c, s in zip(chosen, scores, strict=True)}
    return qrels, run


def irscore_values(qrels: dict, run: dict, names: list[str]) -> dict[str, dict[str, float]]:
    """{name: {topic: value}} with `all` for the mean."""
    table = irscore.evaluate(qrels, run, measures=names)
    out: dict[str, dict[str, float]] = {}
    for measure, topic, value in zip(table["measure"], table["topic"], table["value"], strict=True):
        out.setdefault(str(measure), {})[str(topic)] = float(value)
    return out


def _close(name: str, mine: dict[str, float], theirs: dict[str, float], tolerance: float):
    """Every topic either side has (a topic one side lacks is 0 there), and the mean."""
    for topic in sorted(set(mine) | set(theirs)):
        a, b = mine.get(topic, 0.0), theirs.get(topic, 0.0)
        assert abs(a - b) <= tolerance, f"{name} topic {topic}: irscore {a}, peer {b}"


@pytest.mark.parametrize("seed", SEEDS)
def test_ir_measures_names_equal_ir_measures(seed):
    import ir_measures

    qrels, run = collection(seed, ties=True)
    mine = irscore_values(qrels, run, IR_MEASURES)
    for name in IR_MEASURES:
        measure = ir_measures.parse_measure(name)
        theirs = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
        theirs["all"] = float(ir_measures.calc_aggregate([measure], qrels, run)[measure])
        _close(name, mine[name], theirs, 5e-6 if name in GDEVAL else 1e-9)


@pytest.fixture(scope="module")
def ranx():
    """ranx, imported once; with numba's JIT off unless numba is already loaded (numba
    reads the setting when it is imported; the environment is restored after)."""
    before = os.environ.get("NUMBA_DISABLE_JIT")
    if "numba" not in sys.modules:
        os.environ["NUMBA_DISABLE_JIT"] = "1"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import ranx
    finally:
        if before is None:
            os.environ.pop("NUMBA_DISABLE_JIT", None)
        else:
            os.environ["NUMBA_DISABLE_JIT"] = before
    return ranx


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_names_equal_ranx(ranx, seed):
    qrels, run = collection(seed, ties=False)
    mine = irscore_values(qrels, run, RANX)
    ranx_run = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(ranx.Qrels(qrels), ranx_run, RANX, make_comparable=True)
    for name in RANX:
        theirs = {str(q): float(v) for q, v in ranx_run.scores[name].items()}
        theirs["all"] = float(ranx_run.mean_scores[name])
        _close(name, mine[name], theirs, 1e-9)


def test_ranx_tie_order_is_not_irscore_s():
    # why the ranx runs have no ties: on tied scores its order is numba's unstable sort,
    # and irscore's (docno descending) can put another document first
    qrels, run = {"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}}
    assert irscore_values(qrels, run, ["mrr"])["mrr"]["all"] == 0.5  # b first


ACCURACY = ["Accuracy", "Accuracy(rel=2)", "Accuracy@5"]


@pytest.mark.parametrize("seed", SEEDS)
def test_accuracy_equals_ir_measures(seed):
    # ir_measures' accuracy provider gives no value to a topic without a relevant document
    # in its top k (irscore: NaN), and divides 0 by 0 on a topic whose top k is all
    # relevant (ZeroDivisionError: such a call is left out; irscore gives 1)
    import ir_measures

    qrels, run = collection(seed, ties=True)
    mine = irscore_values(qrels, run, ACCURACY)
    compared = 0
    for name in ACCURACY:
        measure = ir_measures.parse_measure(name)
        try:
            theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
            mean = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        except ZeroDivisionError:
            continue
        defined = {t: v for t, v in mine[name].items() if t != "all" and not np.isnan(v)}
        assert set(defined) == set(theirs), name
        _close(name, defined, theirs, 1e-12)
        assert mine[name]["all"] == pytest.approx(mean, abs=1e-12), name
        compared += 1
    assert compared
