"""TF-IDF cosine, SMART ltc.ltc."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from irscore.retrievers.base import Retriever
from irscore.retrievers.index import TermIndex


class TfIdf(Retriever):
    """SMART ltc.ltc: cosine of log-tf x idf vectors, the same weighting on both sides.

    Weight of term t in a document or a query: (1 + ln tf) * ln(N / df_t),
    N documents, df_t the document frequency of t in the collection; each
    vector is then divided by its Euclidean norm. Query terms absent from the
    collection are dropped (their idf is undefined); an all-zero vector
    scores 0 against everything.
    """

    name = "tfidf"

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        df = index.doc_freq()
        idf = np.log(index.n_docs / df)
        docs = _ltc(index.counts, idf)
        query = _ltc(index.query_counts(queries), idf)
        return (query @ docs.T).toarray()


def _ltc(counts: sparse.csr_matrix, idf: np.ndarray) -> sparse.csr_matrix:
    """(1 + ln tf) * idf, each row divided by its Euclidean norm (zero rows stay zero)."""
    weights = counts.astype(np.float64)
    weights.data = 1.0 + np.log(weights.data)
    weights = weights.multiply(idf).tocsr()
    norms = np.sqrt(np.asarray(weights.multiply(weights).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return sparse.diags(scale) @ weights
