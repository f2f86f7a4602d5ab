"""scikit-learn's TF-IDF with all its defaults, ranked by cosine similarity."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irscore.pipeline.retrievers.base import Retriever
from irscore.pipeline.retrievers.index import TermIndex


class SklearnTfIdf(Retriever):
    """`TfidfTransformer()` fitted on the document counts, `cosine_similarity` with the queries.

    sklearn's defaults: weight = tf * (ln((1 + N) / (1 + df)) + 1), each vector
    L2-normalised. `TfidfVectorizer()` is CountVectorizer() followed by this
    transformer, so with the analyzer that mirrors CountVectorizer's (lowercase,
    tokens `(?u)\\b\\w\\w+\\b`, nothing else) the scores are TfidfVectorizer()'s
    on the raw text, up to the order in which a norm's squares are summed (a
    last-bit difference; on Cranfield every score prints the same with 8
    decimals, which tests/test_analyzers.py checks).
    """

    name = "sklearn_tfidf"

    def score(self, index: TermIndex, queries: Sequence[Sequence[str]]) -> np.ndarray:
        # Imported here: importing sklearn takes seconds that no other model should pay.
        from sklearn.feature_extraction.text import TfidfTransformer
        from sklearn.metrics.pairwise import cosine_similarity

        transformer = TfidfTransformer().fit(index.counts)
        docs = transformer.transform(index.counts)
        return cosine_similarity(transformer.transform(index.query_counts(queries)), docs)
