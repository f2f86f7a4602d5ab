"""Binary Independence Model without relevance information (Robertson-Sparck Jones idf)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irscore.pipeline.retrievers.base import Retriever
from irscore.pipeline.retrievers.index import TermIndex, binary


class BIM(Retriever):
    """score(d, q) = sum over distinct query terms t in d of ln((N - n_t + 0.5) / (n_t + 0.5)).

    N is the number of documents and n_t the document frequency of t. Term
    frequencies play no part, so many documents tie exactly; the ties are
    kept as they are (no perturbation). Terms in more than half of the
    documents weigh negatively.
    """

    name = "bim"

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        n_t = index.doc_freq()
        idf = np.log((index.n_docs - n_t + 0.5) / (n_t + 0.5))
        weighted_query = binary(index.query_counts(queries)).multiply(idf).tocsr()
        return (weighted_query @ binary(index.counts).T).toarray()
