"""Per-topic retrieval measures: one declaration per family (`registry`), the kernels by
kind (`counts`, `precision`, `ap`, `dcg`, `interpolation`, the tie-aware `expected`
forms), the parsing of measure requests (`requests`) and of ir_measures / ranx names
(`peer_names`), and the groups of measures a call scores under one convention each
(`groups`), and the table of every name irscore accepts (`catalogue`, which
`irscore.measures()` returns).

The arithmetic follows trec_eval 9.0.x (m_*.c), including its order of
operations, so that the reference convention agrees with it to the last bit.

A room of the engine above system/ and reading/, which it may import (it needs
neither: a measure reads the `Ranking` that ranking/, above it, makes).
"""

from irscore.engine.measures.aggregation import aggregate
from irscore.engine.measures.dcg import discounted_gain, gains_of, ideal_dcg, ideal_terms
from irscore.engine.measures.interpolation import RECALL_LEVELS
from irscore.engine.measures.ranking import Context, Ranking
from irscore.engine.measures.registry import (
    ALL_FAMILIES,
    FAMILIES,
    MIN_GEO_MEAN,
    TREC_FAMILIES,
    compute,
    family_of,
)
from irscore.engine.measures.requests import (
    MeasureError,
    MeasureSpec,
    parse_requests,
    spec_from_config,
)

__all__ = [
    "ALL_FAMILIES",
    "FAMILIES",
    "MIN_GEO_MEAN",
    "RECALL_LEVELS",
    "TREC_FAMILIES",
    "Context",
    "MeasureError",
    "MeasureSpec",
    "Ranking",
    "aggregate",
    "compute",
    "discounted_gain",
    "family_of",
    "gains_of",
    "ideal_dcg",
    "ideal_terms",
    "parse_requests",
    "spec_from_config",
]
