"""Okapi BM25 as implemented by rank_bm25.BM25Okapi."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

from irscore.pipeline.retrievers.base import Params, Retriever, check_number
from irscore.pipeline.retrievers.index import TermIndex


@dataclass(frozen=True)
class BM25Params(Params):
    """k1: tf saturation; b: length normalisation; epsilon: floor of negative idf, as a
    fraction of the mean idf (rank_bm25's ATIRE-style idf)."""

    k1: float = 1.2
    b: float = 0.75
    epsilon: float = 0.25

    def __post_init__(self) -> None:
        check_number("bm25", "k1", self.k1, 0.0)
        check_number("bm25", "b", self.b, 0.0, 1.0)
        check_number("bm25", "epsilon", self.epsilon, 0.0)


class BM25(Retriever):
    """rank_bm25's BM25Okapi over the analyzed documents.

    idf_t = ln(N - n_t + 0.5) - ln(n_t + 0.5), negative values replaced by
    epsilon * mean idf; a query term repeated k times counts k times.
    get_scores(query) adds each term's scores to zeros in query order; here each
    distinct term is scored once (get_scores([term])) and added in the same order,
    which gives the same bits in a fraction of the time (terms repeat across queries).
    """

    name = "bm25"
    params_class = BM25Params

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        p = self.params
        model = BM25Okapi([list(d) for d in index.doc_tokens], k1=p.k1, b=p.b, epsilon=p.epsilon)
        terms = dict.fromkeys(term for query in queries for term in query)
        by_term = {term: model.get_scores([term]) for term in terms}
        scores = np.zeros((len(queries), index.n_docs))
        for row, query in zip(scores, queries, strict=True):
            for term in query:
                row += by_term[term]
        return scores
