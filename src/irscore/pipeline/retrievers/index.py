"""The shared sparse doc-term matrix every retriever scores against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse


@dataclass(frozen=True, eq=False)
class TermIndex:
    """Term counts of a collection: rows are documents, columns sorted distinct terms.

    `doc_tokens` keeps the analyzed documents for models that need them whole
    (rank_bm25 builds its own statistics from them).
    """

    terms: np.ndarray  # sorted distinct terms (str)
    counts: sparse.csr_matrix  # (n_docs, n_terms) term frequencies, int64
    doc_tokens: tuple[tuple[str, ...], ...]

    @classmethod
    def build(cls, doc_tokens: Sequence[Sequence[str]]) -> TermIndex:
        """Index analyzed documents; term ids follow sorted term order (deterministic)."""
        lengths = np.fromiter((len(d) for d in doc_tokens), dtype=np.int64, count=len(doc_tokens))
        flat = [t for d in doc_tokens for t in d]
        # Python sorts str by code point, as np.unique does; a dict maps tokens to ids
        # (np.unique sorted fixed-width copies of every token: 0.6 s with long tokens).
        vocabulary = sorted(set(flat))
        ids = {term: i for i, term in enumerate(vocabulary)}
        cols = np.fromiter((ids[t] for t in flat), dtype=np.int64, count=len(flat))
        terms = np.array(vocabulary, dtype=str)
        rows = np.repeat(np.arange(len(doc_tokens)), lengths)
        counts = sparse.csr_matrix(
            (np.ones(len(flat), dtype=np.int64), (rows, cols)),
            shape=(len(doc_tokens), len(terms)),
        )
        counts.sum_duplicates()
        counts.sort_indices()
        return cls(terms, counts, tuple(tuple(d) for d in doc_tokens))

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    def doc_freq(self) -> np.ndarray:
        """Number of documents containing each term."""
        return np.diff(self.counts.tocsc().indptr)

    def query_counts(self, queries: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        """(n_queries, n_terms) term counts of analyzed queries; unknown terms are dropped."""
        lengths = np.fromiter((len(q) for q in queries), dtype=np.int64, count=len(queries))
        flat = np.array([t for q in queries for t in q], dtype=str)
        rows = np.repeat(np.arange(len(queries)), lengths)
        cols = np.searchsorted(self.terms, flat)
        known = cols < len(self.terms)
        known[known] = self.terms[cols[known]] == flat[known]
        counts = sparse.csr_matrix(
            (np.ones(int(known.sum()), dtype=np.int64), (rows[known], cols[known])),
            shape=(len(queries), len(self.terms)),
        )
        counts.sum_duplicates()
        counts.sort_indices()
        return counts

    def matches(self, queries: Sequence[Sequence[str]]) -> np.ndarray:
        """(n_queries, n_docs) bool: the document shares at least one term with the query."""
        shared = binary(self.query_counts(queries)) @ binary(self.counts).T
        return shared.toarray() > 0


def binary(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """The same sparsity pattern with every stored value 1.0."""
    out = matrix.astype(np.float64)
    out.data[:] = 1.0
    return out
