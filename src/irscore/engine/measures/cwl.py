"""The C/W/L measures of cwl_eval (Azzopardi, Thomas and Moffat, SIGIR 2019) that
ir_measures' cwl_eval provider names: INST, INSQ, BPM, NERR8-NERR11 and SDCG.

A user reads rank 1, and continues from rank i to rank i + 1 with probability C(i); W(i),
the chance of reading rank i, is the product of the C above it over the sum of those
products, and the measure is the expected utility: the sum of W(i) times the gain at i.
As cwl_eval does, over a ranking of exactly 1000 ranks (its `max_n`: the run's first
1000 documents, padded with gain 0), every document costing 1, gains (grade clipped to
[min_rel, max_rel], a negative grade read as 0) scaled to [0, 1] by (g - min_rel) /
(max_rel - min_rel), and an unjudged document gaining 0 (cwl/ruler/measures/*.py).
"""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.precision import parameter_name
from irscore.engine.measures.ranking import Context, Ranking

MAX_N = 1000  # cwl_eval's ranking length (RankingMaker's max_n)
DEFAULTS = {"k": 10.0, "T": 1.0, "p": 0.9, "min_rel": 0.0, "max_rel": 1.0}


def params_of(text: str | None) -> dict[str, float]:
    """`-m inst.T=2,max_rel=3`'s parameters over their defaults (DEFAULTS)."""
    given = dict(item.split("=") for item in text.split(",")) if text else {}
    return {**DEFAULTS, **{key: float(value) for key, value in given.items()}}


def gains(r: Ranking, min_rel: float, max_rel: float) -> np.ndarray:
    """(topics x 1000) gains at ranks 1..1000: a judged grade (0 for a negative one, which
    has a qrels line) clipped and scaled to [0, 1]; an unjudged document's 0."""
    out = np.zeros((len(r.topics), MAX_N))
    pool = r.judged if r.in_pool is None else r.in_pool
    rows = np.flatnonzero(pool & (r.rank <= MAX_N))
    grade = np.where(r.judged[rows], np.maximum(r.grade[rows], 0), 0).astype(np.float64)
    scaled = (np.clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel)
    out[r.topic_of_row[rows], r.rank[rows] - 1] = scaled
    return out


def expected_utility(continuing: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Per topic, the sum over ranks of W(i) * gain(i), W from the C vector (CWLMetric's
    w_vector: the running products of C(1..i-1), 1 at rank 1, over their sum)."""
    reach = np.cumprod(continuing[:, :-1], axis=1)
    reach = np.concatenate((np.ones((len(gain), 1)), reach), axis=1)
    weights = reach / reach.sum(axis=1, keepdims=True)
    return np.einsum("ij,ij->i", weights, gain)


_RANK = np.arange(1, MAX_N + 1, dtype=np.float64)


def _insq_c(total: float) -> np.ndarray:
    """INSQ's C(i) = ((i + 2T - 1) / (i + 2T))^2."""
    return ((_RANK + 2.0 * total - 1.0) / (_RANK + 2.0 * total)) ** 2.0


def _continuing(kind: str, g: np.ndarray, p: dict[str, float]) -> np.ndarray:
    """The C vector of each measure (cwl_inst.py, cwl_insq.py, cwl_bpm.py, cwl_nerr.py,
    cwl_dcg.py), ranks i = 1..1000 in columns."""
    k, total = int(p["k"]), p["T"]
    before_k = k > _RANK  # rank i < k continues (the last rank read is k)
    if kind == "inst":
        left = total - np.cumsum(g, axis=1)
        return ((_RANK + total + left - 1.0) / (_RANK + total + left)) ** 2.0
    if kind == "insq":
        return np.broadcast_to(_insq_c(total), g.shape)
    if kind == "bpm":  # static BPM: on while the gain so far is below T and rank < k
        wanting = np.cumprod(np.cumsum(g, axis=1) < total, axis=1).astype(bool)
        return (wanting & before_k).astype(np.float64)
    if kind == "nerr8":
        return np.where(before_k, 1.0 - g, 0.0)
    if kind == "nerr9":
        return np.where(before_k, (1.0 * _RANK / (_RANK + 1.0)) * (1.0 - g), 0.0)
    if kind == "nerr10":
        return p["p"] * (1.0 - g)
    if kind == "nerr11":
        return _insq_c(total) * (1.0 - g)
    if kind == "sdcg":  # the DCG discount as a C/W/L user: log2(i + 1) / log2(i + 2)
        c = np.where(before_k, np.log2(_RANK + 1.0) / np.log2(_RANK + 2.0), 0.0)
        return np.broadcast_to(c, g.shape)
    raise ValueError(kind)


def measure(kind: str):
    """The kernel of one C/W/L family: {printed name: expected utility per topic}."""

    def compute(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
        p = params_of(text)
        g = gains(r, p["min_rel"], p["max_rel"])
        return {parameter_name(kind, text): expected_utility(_continuing(kind, g, p), g)}

    compute.__doc__ = f"cwl_eval's {kind} (see the module docstring)."
    return compute
