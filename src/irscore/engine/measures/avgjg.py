"""The judgment-group measures (m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c) on the
ranking of one (topic, judgment group): map, P and Rprec_mult under their own names.
`irscore.engine.judgment_groups` scores each group as a topic and averages a topic's groups."""

from __future__ import annotations

import numpy as np

from irscore.engine.measures import ap, expected, precision
from irscore.engine.measures.ranking import Context, Ranking


def _renamed(values: dict[str, np.ndarray], old: str, new: str) -> dict[str, np.ndarray]:
    return {new + name[len(old) :]: array for name, array in values.items()}


def map_avgjg(r: Ranking, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return _renamed(ap.map_(r, ctx, None), "map", "map_avgjg")


def p_avgjg(r: Ranking, ctx: Context, cutoffs: tuple[int, ...]) -> dict[str, np.ndarray]:
    return _renamed(precision.precision_at(r, ctx, cutoffs), "P", "P_avgjg")


def rprec_mult_avgjg(r: Ranking, ctx: Context, fractions: tuple[float, ...]):
    """P at (long)(m * R + 0.9) of the group's R; trec_eval names it `%s_%3.2f` cut to
    len(name) + 9 characters, as Rprec_mult."""
    values = precision.rprec_mult(r, ctx, fractions)
    return {
        f"Rprec_mult_avgjg_{m:3.2f}"[: len("Rprec_mult_avgjg") + 9]: values[name]
        for m, name in zip(fractions, values, strict=True)
    }


def expected_map_avgjg(t: expected.Tied, ctx: Context, params: None) -> dict[str, np.ndarray]:
    return _renamed(expected.map_(t, ctx, None), "map", "map_avgjg")


def expected_p_avgjg(t: expected.Tied, ctx: Context, cutoffs: tuple[int, ...]):
    return _renamed(expected.precision_at(t, ctx, cutoffs), "P", "P_avgjg")
