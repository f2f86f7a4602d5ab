"""Retrieval models, one per module, and the registry mapping a model name to its class.

Adding a model: write `retrievers/<name>.py` with a `Retriever` subclass whose
`name` is <name>, and list it in `REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irscore.retrievers.base import Params, Retriever
from irscore.retrievers.bim import BIM
from irscore.retrievers.bm25 import BM25
from irscore.retrievers.bm25_lucene import BM25Lucene
from irscore.retrievers.index import TermIndex
from irscore.retrievers.ql import QueryLikelihood
from irscore.retrievers.sklearn_tfidf import SklearnTfIdf
from irscore.retrievers.tfidf import TfIdf

REGISTRY: dict[str, type[Retriever]] = {
    cls.name: cls for cls in (BIM, TfIdf, BM25, QueryLikelihood, BM25Lucene, SklearnTfIdf)
}

__all__ = ["REGISTRY", "Params", "Retriever", "TermIndex", "make_retriever"]


def make_retriever(model: str, params: Mapping[str, Any] | None = None) -> Retriever:
    """The named model with its parameters validated."""
    if model not in REGISTRY:
        raise ValueError(f"unknown retriever model {model!r} (known: {', '.join(REGISTRY)})")
    return REGISTRY[model].from_config(params)
