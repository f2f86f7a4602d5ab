"""Okapi BM25 with Lucene's idf, ln(1 + (N - n + 0.5) / (n + 0.5)), which is never negative."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from irscore.pipeline.retrievers.base import Params, Retriever, check_number
from irscore.pipeline.retrievers.index import TermIndex


@dataclass(frozen=True)
class BM25LuceneParams(Params):
    """k1: tf saturation; b: length normalisation."""

    k1: float = 1.2
    b: float = 0.75

    def __post_init__(self) -> None:
        check_number("bm25_lucene", "k1", self.k1, 0.0)
        check_number("bm25_lucene", "b", self.b, 0.0, 1.0)


class BM25Lucene(Retriever):
    """score(d, q) = sum over query tokens t of idf_t tf (k1 + 1) / (tf + k1 (1 - b + b |d|/avgdl)).

    idf_t = ln(1 + (N - n_t + 0.5) / (n_t + 0.5)); tf is t's count in d, |d|
    the number of d's analyzed tokens (after stopping) and avgdl their mean
    over the collection; a query term repeated k times counts k times, as a
    query parser's repeated clauses do. Lucene's one-byte length encoding is
    not reproduced: |d| is exact. Vectorised over the sparse index.
    """

    name = "bm25_lucene"
    params_class = BM25LuceneParams

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        k1, b = float(self.params.k1), float(self.params.b)
        n_t = index.doc_freq()
        idf = np.log1p((index.n_docs - n_t + 0.5) / (n_t + 0.5))
        weights = index.counts.astype(np.float64)
        lengths = np.asarray(weights.sum(axis=1)).ravel()
        norm = k1 * (1.0 - b + b * lengths / lengths.mean())
        rows = np.repeat(np.arange(index.n_docs), np.diff(weights.indptr))
        tf = weights.data
        weights.data = idf[weights.indices] * tf * (k1 + 1.0) / (tf + norm[rows])
        query = index.query_counts(queries).astype(np.float64)
        return (query @ weights.T).toarray()
