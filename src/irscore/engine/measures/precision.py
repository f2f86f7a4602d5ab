"""Precision and recall: at cut-offs, at R and its multiples, of the whole retrieved set,
the first relevant document (recip_rank, success) and utility."""

from __future__ import annotations

import numpy as np

from irscore.engine.measures.ranking import Context, Ranking, at_cutoff, per_ranking, safe_divide

UTILITY_DEFAULT = (1.0, -1.0, 0.0, 0.0)  # a, b, c, d weights of trec_eval's utility
SET_F_DEFAULT = 1.0  # beta of set_F


@per_ranking
def reciprocal_rank(r: Ranking) -> np.ndarray:
    """1 / rank of the first relevant retrieved document, 0 when there is none."""
    rel_rows = r.rel_rows
    topics, first = np.unique(r.topic_of_row[rel_rows], return_index=True)
    out = np.zeros(len(r.topics))
    out[topics] = 1.0 / r.rank[rel_rows[first]]
    return out


def rprec_mult_cutoffs(fraction: float, num_rel: np.ndarray) -> np.ndarray:
    """Rprec_mult's cut-off for a multiple of R: (long)(fraction * R + 0.9), as trec_eval."""
    return np.trunc(fraction * num_rel.astype(np.float64) + 0.9).astype(np.int64)


def rprec_mult_name(fraction: float) -> str:
    """trec_eval's name: `%s_%3.2f` into a buffer of len(name) + 10 bytes (so cut short)."""
    return f"Rprec_mult_{fraction:3.2f}"[: len("Rprec_mult") + 9]


def parameter_name(family: str, text: str | None) -> str:
    """`utility` / `set_F` as trec_eval names them: with `_params` when params were given."""
    return family if text is None else f"{family}_{text}"


def _float_params(text: str | None, default: tuple[float, ...]) -> tuple[float, ...]:
    return default if text is None else tuple(float(v) for v in text.split(","))


def rprec(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"Rprec": safe_divide(at_cutoff(r, r.cumrel, r.num_rel), r.num_rel)}


def recip_rank(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"recip_rank": reciprocal_rank(r)}


def precision_at(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"P_{k}": at_cutoff(r, r.cumrel, k) / k for k in cutoffs}


def recall_at(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"recall_{k}": safe_divide(at_cutoff(r, r.cumrel, k), r.num_rel) for k in cutoffs}


def rprec_mult(r: Ranking, ctx: Context, fractions: tuple[float, ...]) -> dict[str, np.ndarray]:
    out = {}
    for fraction in fractions:
        # cut-off 0 (or below, for a negative multiple) leaves trec_eval's 0
        cutoff = rprec_mult_cutoffs(fraction, r.num_rel)
        found = at_cutoff(r, r.cumrel, cutoff)
        out[rprec_mult_name(fraction)] = safe_divide(found, np.maximum(cutoff, 0))
    return out


def utility(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    """a * rel_ret + b * nonrel_ret + c * rel_missed + d * nonrel_missed (trec_eval's)."""
    a, b, c, d = _float_params(text, UTILITY_DEFAULT)
    num_ret, num_rel, num_rel_ret = r.lengths.astype(np.float64), r.num_rel, r.num_rel_ret
    nonrel_ret, rel_missed = num_ret - num_rel_ret, num_rel - num_rel_ret
    rest = ctx.collection_size + num_rel_ret - num_ret - num_rel  # -N's size, or 0
    value = a * num_rel_ret + b * nonrel_ret + c * rel_missed + d * rest
    return {parameter_name("utility", text): value}


def relative_precision(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {
        f"relative_P_{k}": safe_divide(at_cutoff(r, r.cumrel, k), np.minimum(k, r.num_rel))
        for k in cutoffs
    }


def success(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {f"success_{k}": (at_cutoff(r, r.cumrel, k) > 0).astype(np.float64) for k in cutoffs}


def set_precision(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"set_P": safe_divide(r.num_rel_ret, r.lengths)}


def set_relative_precision(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"set_relative_P": safe_divide(r.num_rel_ret, np.minimum(r.lengths, r.num_rel))}


def set_recall(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return {"set_recall": safe_divide(r.num_rel_ret, r.num_rel)}


def set_map(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    num_rel_ret = r.num_rel_ret
    return {"set_map": safe_divide(num_rel_ret * num_rel_ret, r.lengths * r.num_rel)}


def set_f(r: Ranking, ctx: Context, text: str | None) -> dict[str, np.ndarray]:
    (beta,) = _float_params(text, (SET_F_DEFAULT,))
    precision = safe_divide(r.num_rel_ret, r.lengths)
    recall = safe_divide(r.num_rel_ret, r.num_rel)
    with np.errstate(invalid="ignore", divide="ignore"):  # as C, for a beta < 0
        f_value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return {parameter_name("set_F", text): np.where(r.num_rel_ret > 0, f_value, 0.0)}
