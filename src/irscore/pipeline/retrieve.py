"""Rank documents for queries with a registered model: the run table and its manifest."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irscore.engine.reading.trec import RUN_COLUMNS, write_json_atomically, write_lines_atomically
from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.exports import read_docs, read_queries, sha256_file
from irscore.pipeline.retrievers import REGISTRY, TermIndex, make_retriever

SCOPES = ("matching", "all")
DEFAULT_DEPTH = 1000
DEFAULT_SCOPE = "matching"
DEFAULT_ANALYZER = "default"
# Scores are written with repr (they read back exactly) unless a run asks for a format
# spec such as ".8f", to reproduce a run file written that way.
REPR = "repr"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetrieverSpec:
    """One configured run (a `retrievers:` entry): model, its full params, the name of its
    analyzer (an `analyzers:` entry), depth, scope, the format of the scores written, and
    the number of query shards it is retrieved in (`irscore.pipeline.shards`)."""

    model: str
    params: dict[str, Any] = field(default_factory=dict)
    analyzer: str = DEFAULT_ANALYZER
    depth: int = DEFAULT_DEPTH
    scope: str = DEFAULT_SCOPE
    score_format: str = REPR
    shards: int = 1

    def __post_init__(self) -> None:
        if self.model not in REGISTRY:
            known = ", ".join(REGISTRY)
            raise ValueError(f"unknown retriever model {self.model!r} (known: {known})")
        if not isinstance(self.analyzer, str) or not self.analyzer:
            raise ValueError(f"analyzer must be the name of an analyzer, got {self.analyzer!r}")
        _check_depth_scope(self.depth, self.scope)
        _check_score_format(self.score_format)
        if isinstance(self.shards, bool) or not isinstance(self.shards, int) or self.shards < 1:
            raise ValueError(f"shards must be a positive integer, got {self.shards!r}")

    @classmethod
    def from_config(cls, name: str, config: Mapping[str, Any]) -> RetrieverSpec:
        """Validate a `retrievers.<name>` entry; unknown keys and params are errors naming them."""
        known = ("model", "params", "analyzer", "depth", "scope", "score_format", "shards")
        for key in config:
            if key not in known:
                raise ValueError(
                    f"retrievers.{name}: unknown key {key!r} (known: {', '.join(known)})"
                )
        if "model" not in config:
            raise ValueError(f"retrievers.{name}: missing key 'model'")
        try:
            params = make_retriever(config["model"], config.get("params")).params.as_dict()
            return cls(
                model=config["model"],
                params=params,
                analyzer=config.get("analyzer", DEFAULT_ANALYZER),
                depth=config.get("depth", DEFAULT_DEPTH),
                scope=config.get("scope", DEFAULT_SCOPE),
                score_format=config.get("score_format", REPR),
                shards=config.get("shards", 1),
            )
        except ValueError as err:
            raise ValueError(f"retrievers.{name}: {err}") from None


def retrieve(
    docs: pd.DataFrame,
    queries: pd.DataFrame,
    analyzer: Analyzer,
    model: str,
    params: Mapping[str, Any] | None = None,
    *,
    depth: int = DEFAULT_DEPTH,
    scope: str = DEFAULT_SCOPE,
    tag: str | None = None,
) -> pd.DataFrame:
    """Rank `docs` (a docno column plus the analyzer's fields) for `queries` (topic, text).

    Returns columns topic, docno, rank, score, tag (default: the model name),
    ordered by topic in plain string order, then score descending, ties by
    docno descending as strings (trec_eval's order); ranks 1..n in that order,
    at most `depth` per topic. scope "matching" ranks only documents sharing an
    analyzed term with the query, so a query with no matching term has no
    lines at all; scope "all" ranks every document, so such a query gets an
    all-zero ranking. Exact score ties are kept.
    """
    docnos, index = build_index(docs, analyzer)
    return retrieve_indexed(
        docnos, index, queries, analyzer, model, params, depth=depth, scope=scope, tag=tag
    )


def build_index(docs: pd.DataFrame, analyzer: Analyzer) -> tuple[np.ndarray, TermIndex]:
    """The documents' ids and the index of their analyzed text, which every model scores."""
    docnos = _unique_ids(docs, "docno")
    records = docs.to_dict("records")
    index = TermIndex.build([analyzer.tokens(analyzer.document_text(d)) for d in records])
    return docnos, index


def retrieve_indexed(
    docnos: np.ndarray,
    index: TermIndex,
    queries: pd.DataFrame,
    analyzer: Analyzer,
    model: str,
    params: Mapping[str, Any] | None = None,
    *,
    depth: int = DEFAULT_DEPTH,
    scope: str = DEFAULT_SCOPE,
    tag: str | None = None,
) -> pd.DataFrame:
    """`retrieve` on an index built beforehand (`build_index`): each query is scored
    on its own against the whole collection, so any subset of the queries gets the
    same lines as it does among all of them (what a sharded run relies on)."""
    retriever = make_retriever(model, params)
    _check_depth_scope(depth, scope)
    tag = model if tag is None else tag
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag {tag!r} must be non-empty without whitespace")
    topics = _unique_ids(queries, "topic")
    query_tokens = [analyzer.tokens(text) for text in queries["text"]]
    scores = retriever.score(index, query_tokens)
    if not np.isfinite(scores).all():
        raise ValueError(f"retriever {model} produced a non-finite score")
    if scope == "matching":
        candidates = index.matches(query_tokens)
    else:
        candidates = np.ones(scores.shape, dtype=bool)
    return _rank(scores, candidates, topics, docnos, depth, tag)


def retrieve_to_files(
    *,
    docs: str | os.PathLike,
    queries: str | os.PathLike,
    run: str | os.PathLike,
    manifest: str | os.PathLike,
    name: str,
    spec: Mapping[str, Any],
    analyzer: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Run the configured retriever `name` (its `retrievers:` entry `spec`) on the exports,
    with `analyzer`, the config of the analyzer that the entry names.

    Writes the TREC run (tag = name; scores in the entry's score_format) and a
    manifest beside it: model, full params, analyzer name and choices, depth,
    scope, score format, input checksums and counts (deterministic, sorted
    keys). Returns the manifest.
    """
    checked = RetrieverSpec.from_config(name, spec)
    chosen = Analyzer.from_config(analyzer)
    doc_table, query_table = read_docs(docs), read_queries(queries)
    frame = retrieve(
        doc_table,
        query_table,
        chosen,
        checked.model,
        checked.params,
        depth=checked.depth,
        scope=checked.scope,
        tag=name,
    )
    write_lines_atomically(run, run_lines(frame, checked.score_format))
    content = run_manifest(
        name,
        checked,
        chosen,
        documents=len(doc_table),
        lines=len(frame),
        queries=list(query_table["topic"]),
        retrieved=set(frame["topic"]),
        inputs_sha256={Path(p).name: sha256_file(p) for p in (docs, queries)},
    )
    write_json_atomically(manifest, content)
    log.info("run %s: %s", name, json.dumps(content["counts"], sort_keys=True))
    return content


def run_manifest(
    name: str,
    checked: RetrieverSpec,
    analyzer: Analyzer,
    *,
    documents: int,
    lines: int,
    queries: list[str],
    retrieved: set[str],
    inputs_sha256: dict[str, str],
) -> dict[str, Any]:
    """What a run's manifest records (`shards` only for a sharded run, so an unsharded
    run's manifest is what it always was)."""
    content = {
        "analyzer": {"name": checked.analyzer, **analyzer.describe()},
        "counts": {
            "documents": documents,
            "lines": lines,
            "queries": len(queries),
            "topics_with_lines": len(retrieved),
            "topics_without_lines": sorted(set(queries) - retrieved),
        },
        "depth": checked.depth,
        "inputs_sha256": inputs_sha256,
        "model": checked.model,
        "params": checked.params,
        "run": name,
        "scope": checked.scope,
        "score_format": checked.score_format,
    }
    if checked.shards > 1:
        content["shards"] = checked.shards
    return content


def run_lines(run: pd.DataFrame, score_format: str = REPR) -> Iterator[str]:
    """TREC run lines in the given row order, scores as repr(float) or by a format spec."""
    topics, docnos, ranks, scores, tags = (
        run[name].tolist() for name in ("topic", "docno", "rank", "score", "tag")
    )
    texts = map(repr, scores) if score_format == REPR else (format(s, score_format) for s in scores)
    # an f-string per line: str.format with {!r} took half as long again
    return (
        f"{t} Q0 {d} {r} {s} {g}\n"
        for t, d, r, s, g in zip(topics, docnos, ranks, texts, tags, strict=True)
    )


def _rank(
    scores: np.ndarray,
    candidates: np.ndarray,
    topics: np.ndarray,
    docnos: np.ndarray,
    depth: int,
    tag: str,
) -> pd.DataFrame:
    """Order the candidate (topic, doc) pairs the trec_eval way and number them per topic."""
    by_topic = np.array(sorted(range(len(topics)), key=topics.__getitem__), dtype=np.int64)
    docno_position = np.empty(len(docnos), dtype=np.int64)
    docno_position[sorted(range(len(docnos)), key=docnos.__getitem__)] = np.arange(len(docnos))
    query, doc = np.nonzero(candidates[by_topic])
    score = scores[by_topic][query, doc]
    order = np.lexsort((-docno_position[doc], -score, query))
    query, doc, score = query[order], doc[order], score[order]
    rank = np.arange(len(query)) - np.searchsorted(query, query, side="left") + 1
    keep = rank <= depth
    # object columns, as trec.read_run gives (pandas' default string dtype iterates slowly)
    return pd.DataFrame(
        {
            "topic": pd.Series(topics[by_topic][query[keep]], dtype=object),
            "docno": pd.Series(docnos[doc[keep]], dtype=object),
            "rank": rank[keep],
            "score": score[keep],
            "tag": pd.Series([tag] * int(keep.sum()), dtype=object),
        },
        columns=RUN_COLUMNS,
    )


def _check_depth_scope(depth: Any, scope: Any) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")


def _check_score_format(score_format: Any) -> None:
    """Accept "repr" or a format spec that writes a float as one number without spaces."""
    problem = f"score_format must be {REPR!r} or a float format spec such as '.8f'"
    if not isinstance(score_format, str):
        raise ValueError(f"{problem}, got {score_format!r}")
    if score_format == REPR:
        return
    try:
        text = format(-1.25, score_format)
        float(text)
    except ValueError:
        raise ValueError(f"{problem}, got {score_format!r}") from None
    if text != text.strip() or " " in text:
        raise ValueError(f"{problem} (no padding), got {score_format!r}")


def _unique_ids(table: pd.DataFrame, column: str) -> np.ndarray:
    """The id column as an object array of str; a duplicate id is an error naming it."""
    ids = np.array([str(v) for v in table[column]], dtype=object)
    duplicated = pd.Series(ids).duplicated()
    if duplicated.any():
        raise ValueError(f"duplicate {column} {ids[duplicated.to_numpy()][0]!r}")
    return ids
