"""TF-IDF cosine in SMART notation: ltc.ltc by default, lnc.ltc and the like by config."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from irscore.pipeline.retrievers.base import Params, Retriever
from irscore.pipeline.retrievers.index import TermIndex

# SMART letters: tf (n raw, l 1 + log tf), df (n none, t log N/df), norm (n none, c cosine).
WEIGHTING = re.compile(r"[nl][nt][nc]\.[nl][nt][nc]")
LOGS = {"ln": np.log, "log10": np.log10}


@dataclass(frozen=True)
class TfIdfParams(Params):
    """weighting: SMART `document.query` letters, e.g. ltc.ltc or lnc.ltc; log: the base of
    every logarithm in the weights, ln or log10."""

    weighting: str = "ltc.ltc"
    log: str = "ln"

    def __post_init__(self) -> None:
        if not isinstance(self.weighting, str) or not WEIGHTING.fullmatch(self.weighting):
            raise ValueError(
                "retriever tfidf: parameter weighting must be SMART letters ddd.qqq "
                f"(tf n|l, df n|t, norm n|c), got {self.weighting!r}"
            )
        if self.log not in LOGS:
            raise ValueError(
                f"retriever tfidf: parameter log must be one of {', '.join(LOGS)}, got {self.log!r}"
            )


class TfIdf(Retriever):
    """The inner product of a document's and a query's SMART-weighted term vectors.

    With the default ltc.ltc, the weight of term t in a document or a query is
    (1 + ln tf) * ln(N / df_t), N documents, df_t the document frequency of t
    in the collection, and each vector is divided by its Euclidean norm: the
    cosine. lnc.ltc drops the idf on the document side. Query terms absent
    from the collection are dropped (their idf is undefined); an all-zero
    vector scores 0 against everything.
    """

    name = "tfidf"
    params_class = TfIdfParams

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        log = LOGS[self.params.log]
        idf = log(index.n_docs / index.doc_freq())
        document, query = self.params.weighting.split(".")
        docs = _weigh(index.counts, document, idf, log)
        weighted_query = _weigh(index.query_counts(queries), query, idf, log)
        return (weighted_query @ docs.T).toarray()


def _weigh(counts: sparse.csr_matrix, letters: str, idf: np.ndarray, log) -> sparse.csr_matrix:
    """Term weights by three SMART letters (tf, df, norm); zero rows stay zero."""
    tf, df, norm = letters
    weights = counts.astype(np.float64)
    if tf == "l":
        weights.data = 1.0 + log(weights.data)
    if df == "t":
        weights = weights.multiply(idf).tocsr()
    if norm == "c":
        norms = np.sqrt(np.asarray(weights.multiply(weights).sum(axis=1)).ravel())
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        weights = sparse.diags(scale) @ weights
    return weights
