"""Runs sharded by query: the index built once, each shard's queries retrieved by a job of
its own, and the shards merged into the run the unsharded job would have written.

The queries, in the run's topic order (plain string order), are cut into N
contiguous groups of sizes differing by at most one; each query is scored on
its own against the whole collection, so the merged run is the unsharded run,
byte for byte. Every file carries what the next step checks: the index its
documents' and analyzer's fingerprint, each shard its topics and counts.
"""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irscore.engine.reading.trec import atomic_output, write_json_atomically, write_lines_atomically
from irscore.pipeline.analyzers import Analyzer
from irscore.pipeline.exports import read_docs, read_queries, sha256_file
from irscore.pipeline.retrieve import (
    RetrieverSpec,
    build_index,
    retrieve_indexed,
    run_lines,
    run_manifest,
)

INDEX_FORMAT = "irscore-index-1"


class ShardError(ValueError):
    """A shard, an index or a merge whose inputs do not fit together."""


def shard_topics(topics: Sequence[str], shards: int, shard: int) -> list[str]:
    """The topics of shard `shard` (0-based) of `shards`: a contiguous block of the topics
    in string order, the blocks' sizes differing by at most one."""
    if not 0 <= shard < shards:
        raise ShardError(f"shard {shard} is not one of 0..{shards - 1}")
    ordered = sorted(topics)
    bounds = np.linspace(0, len(ordered), shards + 1).round().astype(int)
    return ordered[bounds[shard] : bounds[shard + 1]]


def build_index_file(
    *, docs: str | os.PathLike, analyzer: Mapping[str, Any] | None, index: str | os.PathLike
) -> None:
    """Analyze and index the documents once; the file records the documents' sha256 and
    the analyzer's choices, which each shard job checks against its own."""
    chosen = Analyzer.from_config(analyzer)
    docnos, term_index = build_index(read_docs(docs), chosen)
    content = {
        "format": INDEX_FORMAT,
        "docs_sha256": {Path(docs).name: sha256_file(docs)},
        "analyzer": chosen.describe(),
        "docnos": docnos,
        "index": term_index,
    }
    with atomic_output(index) as tmp, open(tmp, "wb") as out:
        pickle.dump(content, out, protocol=5)


def _load_index(path: str | os.PathLike, analyzer: Analyzer) -> dict[str, Any]:
    """The index file, refused unless it is one and was built with this analyzer."""
    with open(path, "rb") as stream:
        content = pickle.load(stream)  # our own file, written by build_index_file
    if not isinstance(content, dict) or content.get("format") != INDEX_FORMAT:
        raise ShardError(f"{path}: not an irscore index file")
    if content["analyzer"] != analyzer.describe():
        raise ShardError(f"{path}: built with another analyzer than the run's; rebuild it")
    return content


def retrieve_shard_to_files(
    *,
    index: str | os.PathLike,
    queries: str | os.PathLike,
    run: str | os.PathLike,
    summary: str | os.PathLike,
    name: str,
    spec: Mapping[str, Any],
    analyzer: Mapping[str, Any] | None,
    shard: int,
) -> dict[str, Any]:
    """Retrieve one shard's queries against the shared index: its run lines and a summary
    (its topics, counts and the inputs' sha256) for the merge to check."""
    checked = RetrieverSpec.from_config(name, spec)
    chosen = Analyzer.from_config(analyzer)
    content = _load_index(index, chosen)
    query_table = read_queries(queries)
    topics = shard_topics(list(query_table["topic"]), checked.shards, shard)
    mine = query_table[query_table["topic"].isin(set(topics))].reset_index(drop=True)
    frame = retrieve_indexed(
        content["docnos"],
        content["index"],
        mine,
        chosen,
        checked.model,
        checked.params,
        depth=checked.depth,
        scope=checked.scope,
        tag=name,
    )
    write_lines_atomically(run, run_lines(frame, checked.score_format))
    facts = {
        "shard": shard,
        "shards": checked.shards,
        "topics": topics,
        "retrieved": sorted(set(frame["topic"])),
        "lines": len(frame),
        "documents": len(content["docnos"]),
        "inputs_sha256": {**content["docs_sha256"], Path(queries).name: sha256_file(queries)},
    }
    write_json_atomically(summary, facts)
    return facts


def merge_shards_to_files(
    *,
    shard_runs: Sequence[str | os.PathLike],
    summaries: Sequence[str | os.PathLike],
    queries: str | os.PathLike,
    run: str | os.PathLike,
    manifest: str | os.PathLike,
    name: str,
    spec: Mapping[str, Any],
    analyzer: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """Concatenate the shards' runs in shard order (their topics are consecutive blocks)
    into the run and its manifest, after checking that the shards are all there, each
    whole, from the same inputs, and together cover every query exactly once."""
    checked = RetrieverSpec.from_config(name, spec)
    facts = [json.loads(Path(path).read_text(encoding="utf-8")) for path in summaries]
    query_topics = list(read_queries(queries)["topic"])
    queries_name, queries_sha256 = Path(queries).name, sha256_file(queries)
    if len(facts) != checked.shards or [f["shard"] for f in facts] != list(range(checked.shards)):
        raise ShardError(f"run {name}: expected shards 0..{checked.shards - 1} in order")
    covered = [topic for f in facts for topic in f["topics"]]
    if covered != sorted(query_topics):
        raise ShardError(f"run {name}: the shards do not cover the queries of {queries} once each")
    texts = []
    for path, f in zip(shard_runs, facts, strict=True):
        if f["shards"] != checked.shards or f["inputs_sha256"].get(queries_name) != queries_sha256:
            raise ShardError(f"{path}: retrieved for another configuration or other queries")
        if f["inputs_sha256"] != facts[0]["inputs_sha256"]:
            raise ShardError(f"{path}: retrieved from another index than shard 0")
        text = Path(path).read_text(encoding="utf-8")
        if text.count("\n") != f["lines"]:
            raise ShardError(f"{path}: {text.count(chr(10))} lines, its summary says {f['lines']}")
        texts.append(text)
    write_lines_atomically(run, texts)
    content = run_manifest(
        name,
        checked,
        Analyzer.from_config(analyzer),
        documents=facts[0]["documents"],
        lines=sum(f["lines"] for f in facts),
        queries=query_topics,
        retrieved={topic for f in facts for topic in f["retrieved"]},
        inputs_sha256=facts[0]["inputs_sha256"],
    )
    write_json_atomically(manifest, content)
    return content
