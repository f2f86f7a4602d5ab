"""The files the data step exports (docs.jsonl, queries.tsv, qrels.txt and manifest.json),
written from a loaded collection and read back by the steps after it."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from irscore.engine.reading.trec import write_json_atomically, write_lines_atomically, write_qrels

DOC_FIELDS = ["docno", "title", "text", "author", "bib"]
QUERY_FIELDS = ["topic", "text"]
# Characters that would break a `topic<TAB>text` line; each becomes one space.
_LINE_BREAKS = str.maketrans({"\n": " ", "\r": " ", "\t": " "})

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Collection:
    """Documents (DOC_FIELDS), queries (topic, text), qrels (topic, docno, grade) and
    the sha256 of the raw files they were parsed from."""

    docs: pd.DataFrame
    queries: pd.DataFrame
    qrels: pd.DataFrame
    source_sha256: dict[str, str]
    ir_datasets_version: str | None


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_exports(
    collection: Collection,
    dataset: str,
    *,
    qrels: str | os.PathLike,
    queries: str | os.PathLike,
    docs: str | os.PathLike,
    manifest: str | os.PathLike,
) -> dict[str, Any]:
    """Write a collection's four exports (see `export_cranfield`); returns the manifest."""
    write_qrels(qrels, collection.qrels)
    write_lines_atomically(
        queries,
        (
            f"{topic}\t{text.translate(_LINE_BREAKS)}\n"
            for topic, text in zip(collection.queries.topic, collection.queries.text, strict=True)
        ),
    )
    write_lines_atomically(
        docs,
        (json.dumps(record, sort_keys=True) + "\n" for record in _records(collection.docs)),
    )
    exports = {Path(p).name: sha256_file(p) for p in (docs, qrels, queries)}
    content = _manifest(collection, dataset, exports)
    write_json_atomically(manifest, content)
    log.info("exported %s", json.dumps(content["counts"], sort_keys=True))
    return content


def _records(docs: pd.DataFrame) -> Iterator[dict[str, str]]:
    for row in docs.itertuples(index=False):
        yield dict(zip(docs.columns, row, strict=True))


def _manifest(collection: Collection, dataset: str, exports: dict[str, str]) -> dict[str, Any]:
    grades = collection.qrels.grade.value_counts()
    return {
        "counts": {
            "documents": len(collection.docs),
            "grades": {str(g): int(n) for g, n in sorted(grades.items())},
            "judgments": len(collection.qrels),
            "queries": len(collection.queries),
            "relevant_judgments": int((collection.qrels.grade >= 1).sum()),  # grade >= 1
            "topics": int(collection.qrels.topic.nunique()),
        },
        "dataset": dataset,
        "exports_sha256": exports,
        "ir_datasets_version": collection.ir_datasets_version,
        "source_sha256": collection.source_sha256,
    }


def read_docs(path: str | os.PathLike) -> pd.DataFrame:
    """Read docs.jsonl into columns DOC_FIELDS then any other fields (sorted), in file
    order; absent fields other than docno are empty strings."""
    records = [record for _, record in json_objects(path, "docno")]
    extra = sorted({name for record in records for name in record} - set(DOC_FIELDS))
    columns = DOC_FIELDS + extra
    return pd.DataFrame(
        [[record.get(name, "") for name in columns] for record in records], columns=columns
    )


def json_objects(path: str | os.PathLike, key: str) -> Iterator[tuple[str, dict]]:
    """Each line of a JSON-lines file as (`path:line`, its object), an object with a
    string `key`; anything else is an error naming the line."""
    with open(path, encoding="utf-8") as stream:
        for line_no, line in enumerate(stream, start=1):
            where = f"{path}:{line_no}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{where}: not a JSON object: {err}") from None
            if not isinstance(record, dict) or not isinstance(record.get(key), str):
                raise ValueError(f"{where}: expected an object with a string {key}")
            yield where, record


def read_queries(path: str | os.PathLike) -> pd.DataFrame:
    """Read queries.tsv (`topic<TAB>text`) into columns topic, text, in file order."""
    rows = []
    with open(path, encoding="utf-8") as stream:
        for line_no, line in enumerate(stream, start=1):
            topic, tab, text = line.rstrip("\n").partition("\t")
            if not tab or not topic:
                raise ValueError(f"{path}:{line_no}: expected 'topic<TAB>text', got {line!r}")
            rows.append((topic, text))
    return pd.DataFrame(rows, columns=QUERY_FIELDS)


def documents_in(manifest: str | os.PathLike) -> int:
    """The number of documents in the collection, as the data step's manifest records it."""
    with open(manifest, encoding="utf-8") as stream:
        return int(json.load(stream)["counts"]["documents"])
