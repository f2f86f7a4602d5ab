"""Query likelihood with Dirichlet smoothing (Zhai & Lafferty 2001)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irscore.pipeline.retrievers.base import Params, Retriever, check_number
from irscore.pipeline.retrievers.index import TermIndex


@dataclass(frozen=True)
class QLParams(Params):
    """mu: the Dirichlet prior, in pseudo-counts of the collection model."""

    mu: float = 2000.0

    def __post_init__(self) -> None:
        check_number("ql", "mu", self.mu, 1e-9)


class QueryLikelihood(Retriever):
    """score(d, q) = sum over query tokens t of ln((tf_{t,d} + mu p_t) / (|d| + mu)).

    p_t = cf_t / |C|, the term's share of all collection tokens; a term
    repeated in the query counts each time. The sum is the log-probability of
    the query under the smoothed document model, computed as
    sum_t qtf_t [ln(mu p_t) + ln(1 + tf_{t,d} / (mu p_t))] - |q| ln(|d| + mu)
    so that only the documents' non-zero counts are touched. Query terms
    absent from the collection are dropped (p_t = 0 has no logarithm).
    """

    name = "ql"
    params_class = QLParams
    zero_without_match = False  # an unmatched document still has a (low) likelihood

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        mu = float(self.params.mu)
        counts = index.counts.astype(np.float64)
        collection = np.asarray(counts.sum(axis=0)).ravel()
        prior = mu * collection / collection.sum()
        boost = counts.copy()
        boost.data = np.log1p(boost.data / prior[boost.indices])
        query = index.query_counts(queries).astype(np.float64)
        constant = query @ np.log(prior)
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        query_length = np.asarray(query.sum(axis=1)).ravel()
        scores = (query @ boost.T).toarray()
        return scores + constant[:, None] - np.outer(query_length, np.log(lengths + mu))
