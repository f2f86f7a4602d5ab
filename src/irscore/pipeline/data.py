"""The collection (Cranfield by default) exported to plain, deterministic files.

By default ir_datasets downloads Cranfield as usual. With a local copy of
the raw files, each is checked against its pinned sha256, copied into a
private IR_DATASETS_HOME under the names ir_datasets caches them as, and the
same ir_datasets parser reads them from there. A local collection folder
(docs.jsonl, queries.tsv, qrels; config `dataset: {folder, sha256}`) is
checked against its pins and read directly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from irscore.engine.reading.trec import QRELS_COLUMNS, read_qrels
from irscore.pipeline.exports import (
    DOC_FIELDS,
    QUERY_FIELDS,
    Collection,
    json_objects,
    read_queries,
    sha256_file,
    write_exports,
)

DATASET = "cranfield"
# Raw file name -> the name ir_datasets caches it as under $IR_DATASETS_HOME/cranfield/.
RAW_FILES = {"cran.all.1400": "docs.txt", "cran.qry": "queries.txt", "cranqrel": "qrels.txt"}
# The files of a local collection folder: docs (`doc_id` plus text fields, one JSON
# object a line), queries (`topic<TAB>text`) and qrels (TREC: `topic 0 docno grade`).
LOCAL_FILES = ("docs.jsonl", "queries.tsv", "qrels")

# Where ir_datasets downloads cran.tar.gz from (its etc/downloads.json), and its mirror.
DOWNLOAD_URL = "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/cran.tar.gz"
DOWNLOAD_HOSTS = (("ir.dcs.gla.ac.uk", 80), ("mirror.ir-datasets.com", 443))

log = logging.getLogger(__name__)


class DownloadError(RuntimeError):
    """The collection is neither cached nor downloadable (no network)."""


class SourceFileError(ValueError):
    """A raw Cranfield file that is missing or whose sha256 differs from the pinned value."""

    def __init__(
        self,
        path: str | os.PathLike,
        expected: str,
        actual: str | None,
        pinned_in: str = "cranfield_sha256",
    ):
        self.path = str(path)
        self.expected = expected
        self.actual = actual
        found = "file is missing" if actual is None else f"sha256 is {actual}"
        super().__init__(
            f"{self.path}: {found}, expected sha256 {expected} (pinned in config {pinned_in})"
        )


def verify_sources(cranfield_dir: str | os.PathLike, sha256: Mapping[str, str]) -> dict[str, str]:
    """Check the three raw files in `cranfield_dir` against their pinned sha256.

    Raises SourceFileError for a missing or altered file, ValueError when the
    pins do not name exactly the three raw files.
    """
    if set(sha256) != set(RAW_FILES):
        raise ValueError(
            f"cranfield_sha256 must pin exactly {sorted(RAW_FILES)}, got {sorted(sha256)}"
        )
    for name in RAW_FILES:
        path = Path(cranfield_dir) / name
        actual = sha256_file(path) if path.is_file() else None
        if actual != sha256[name]:
            raise SourceFileError(path, sha256[name], actual)
    return {name: sha256[name] for name in RAW_FILES}


def verify_local_collection(folder: str | os.PathLike, sha256: Mapping[str, str]) -> dict[str, str]:
    """Check a local collection folder: each of LOCAL_FILES present, with its pinned sha256.

    Raises ValueError naming every missing file at once, or when the pins do not name
    exactly LOCAL_FILES; SourceFileError for the first altered file.
    """
    if set(sha256) != set(LOCAL_FILES):
        raise ValueError(
            f"dataset.sha256 must pin exactly {list(LOCAL_FILES)}, got {sorted(sha256)}"
        )
    missing = [name for name in LOCAL_FILES if not (Path(folder) / name).is_file()]
    if missing:
        raise ValueError(
            f"{folder}: the collection folder has no {', '.join(missing)} "
            f"(it must hold {', '.join(LOCAL_FILES)})"
        )
    for name in LOCAL_FILES:
        path = Path(folder) / name
        actual = sha256_file(path)
        if actual != sha256[name]:
            raise SourceFileError(path, sha256[name], actual, "dataset.sha256")
    return {name: sha256[name] for name in LOCAL_FILES}


def ir_datasets_query_field(dataset_id: str, query_field: str | None = None) -> str:
    """Check, from ir_datasets' registry alone (no download), that `dataset_id` names a
    dataset with documents, queries and qrels; return the query field that is the text:
    `query_field` if given, else `text`, else `title` (TREC topics), whichever it has.

    Raises ValueError naming the unknown ID (with close ones), what the dataset lacks,
    or its query fields.
    """
    import difflib

    import ir_datasets

    registry = ir_datasets.registry
    if dataset_id not in registry:
        close = difflib.get_close_matches(dataset_id, list(registry), n=3, cutoff=0.6)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise ValueError(
            f"dataset.ir_datasets: {dataset_id!r} is not a dataset ir_datasets "
            f"{ir_datasets.__version__} knows{hint} (https://ir-datasets.com/ lists them)"
        )
    dataset = registry[dataset_id]
    parts = {"docs": dataset.has_docs, "queries": dataset.has_queries, "qrels": dataset.has_qrels}
    lacks = [part for part, has in parts.items() if not has()]
    if lacks:
        raise ValueError(f"dataset.ir_datasets: {dataset_id!r} has no {', '.join(lacks)}")
    fields = [name for name in dataset.queries_cls()._fields if name != "query_id"]
    if query_field is None:
        query_field = next((name for name in ("text", "title") if name in fields), None)
        if query_field is None:
            raise ValueError(
                f"dataset.query_field: {dataset_id!r} queries have no text or title field; "
                f"name one of {', '.join(fields)}"
            )
    elif query_field not in fields:
        raise ValueError(
            f"dataset.query_field: {dataset_id!r} queries have no field {query_field!r}; "
            f"they have {', '.join(fields)}"
        )
    return query_field


def load_ir_datasets(dataset_id: str, query_field: str | None = None) -> Collection:
    """Documents (doc_id as docno, plus every string field), queries (`query_field`, see
    `ir_datasets_query_field`) and qrels of an ir_datasets dataset, which downloads
    and checks its files as usual (against the hashes it pins itself)."""
    query_field = ir_datasets_query_field(dataset_id, query_field)
    import ir_datasets

    dataset = ir_datasets.load(dataset_id)
    annotations = dataset.docs_cls().__annotations__
    texts = [name for name, kind in annotations.items() if name != "doc_id" and kind is str]
    docs = pd.DataFrame(
        [(doc.doc_id, *(getattr(doc, name) for name in texts)) for doc in dataset.docs_iter()],
        columns=["docno", *texts],
    )
    queries = pd.DataFrame(
        [(q.query_id, getattr(q, query_field)) for q in dataset.queries_iter()],
        columns=QUERY_FIELDS,
    )
    qrels = pd.DataFrame(
        [(r.query_id, r.doc_id, r.relevance) for r in dataset.qrels_iter()],
        columns=QRELS_COLUMNS,
    )
    return Collection(docs, queries, qrels, {}, ir_datasets.__version__)


def export_ir_datasets(
    dataset_id: str,
    query_field: str | None,
    *,
    qrels: str | os.PathLike,
    queries: str | os.PathLike,
    docs: str | os.PathLike,
    manifest: str | os.PathLike,
) -> dict[str, Any]:
    """Load an ir_datasets dataset (see `load_ir_datasets`) and write the four exports as
    `export_cranfield` does; the manifest names the dataset by its ID."""
    collection = load_ir_datasets(dataset_id, query_field)
    return write_exports(
        collection, dataset_id, qrels=qrels, queries=queries, docs=docs, manifest=manifest
    )


def load_local(folder: str | os.PathLike, sha256: Mapping[str, str]) -> Collection:
    """Read a local collection folder after checking its files against their pins.

    docs.jsonl: one object a line with a string `doc_id` and string text fields,
    which keep their names (an analyzer's `fields` name them); `docno` is reserved.
    """
    pinned = verify_local_collection(folder, sha256)
    docs = _read_local_docs(Path(folder) / "docs.jsonl")
    queries = read_queries(Path(folder) / "queries.tsv")
    qrels = read_qrels(Path(folder) / "qrels")
    collection = Collection(docs, queries, qrels, pinned, None)
    if {name: sha256_file(Path(folder) / name) for name in LOCAL_FILES} != pinned:
        raise RuntimeError(f"{folder}: a file changed while it was read")
    return collection


def _read_local_docs(path: Path) -> pd.DataFrame:
    """docs.jsonl of a collection folder -> `docno` then the text fields, sorted by name
    (a field a document lacks is an empty string); a bad line is an error naming it."""
    records: list[dict[str, str]] = []
    seen: set[str] = set()
    for where, record in json_objects(path, "doc_id"):
        doc_id = record.pop("doc_id")
        if not doc_id or any(c.isspace() for c in doc_id):
            raise ValueError(f"{where}: doc_id {doc_id!r} is empty or holds a space")
        if doc_id in seen:
            raise ValueError(f"{where}: doc_id {doc_id!r} appears twice")
        if "docno" in record:
            raise ValueError(f"{where}: `docno` is reserved; name the document by doc_id")
        for name, value in record.items():
            if not isinstance(value, str):
                raise ValueError(f"{where}: field {name!r} is not a string: {value!r}")
        seen.add(doc_id)
        records.append({"docno": doc_id, **record})
    if not records:
        raise ValueError(f"{path}: no documents")
    names = sorted({name for record in records for name in record} - {"docno"})
    columns = ["docno", *names]
    return pd.DataFrame(
        [[record.get(name, "") for name in columns] for record in records], columns=columns
    )


def local_copy(configured: str | os.PathLike | None) -> str | None:
    """The local copy of the raw files: $CRANFIELD_DIR if non-empty, else the configured
    folder, else None (download). A relative path is relative to the working directory."""
    return os.environ.get("CRANFIELD_DIR") or (str(configured) if configured else None)


def seeded_matches(home: str | os.PathLike, sha256: Mapping[str, str]) -> bool:
    """Whether `home`/cranfield/ holds the three raw files with their pinned sha256."""
    folder = Path(home) / DATASET
    return all(
        (folder / cached).is_file() and sha256_file(folder / cached) == sha256.get(raw)
        for raw, cached in RAW_FILES.items()
    )


def check_download_reachable(timeout: float = 5.0) -> None:
    """Fail within seconds, in one paragraph, when ir_datasets has no cached copy and
    neither Cranfield's download host nor its mirror can be reached."""
    home = Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets") / DATASET
    if all((home / cached).is_file() for cached in RAW_FILES.values()):
        return
    errors = []
    for host, port in DOWNLOAD_HOSTS:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            return
        except OSError as err:
            errors.append(f"{host}: {err}")
    raise DownloadError(
        f"Cranfield could not be downloaded: ir_datasets fetches {DOWNLOAD_URL} or its "
        f"mirror, and neither host answers ({'; '.join(errors)}). Without network access, "
        "point the workflow at a local copy of the three raw files (cran.all.1400, "
        "cran.qry, cranqrel), which is checked against the sha256 values pinned in "
        "config.yaml: CRANFIELD_DIR=/path/to/cranfield make results"
    )


def seed_home(cranfield_dir: str | os.PathLike, home: str | os.PathLike) -> Path:
    """A fresh `home`/cranfield/ holding copies (contents only, no mode bits) of the raw files."""
    target = Path(home) / DATASET
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for raw, cached in RAW_FILES.items():
        shutil.copyfile(Path(cranfield_dir) / raw, target / cached)
    return target


def load_cranfield(
    cranfield_dir: str | os.PathLike | None = None,
    sha256: Mapping[str, str] | None = None,
    home: str | os.PathLike | None = None,
) -> Collection:
    """Parse Cranfield with `ir_datasets.load("cranfield")`.

    With `cranfield_dir`, the raw files are verified against `sha256`, seeded into
    `home` and read from there; ir_datasets must not have been imported
    before in this process with another home (it binds the path at import).
    Without it (None or empty), a copy seeded into `home` before that still matches
    `sha256` is read again (the copy is data, not a path); else ir_datasets uses its
    usual home and downloads if needed, after a quick check that it can.
    """
    if cranfield_dir:
        if sha256 is None or home is None:
            raise ValueError("a local Cranfield copy needs its sha256 pins and a private home")
        pinned = verify_sources(cranfield_dir, sha256)
        seeded = seed_home(cranfield_dir, home)
        log.info("seeded %s from %s", seeded, cranfield_dir)
    elif sha256 is not None and home is not None and seeded_matches(home, sha256):
        pinned = {name: sha256[name] for name in RAW_FILES}
        seeded = Path(home) / DATASET
        log.info("no local copy given: reading the copy seeded before in %s", seeded)
    else:
        check_download_reachable()
        return _parse(expected_dir=None)
    with _ir_datasets_home(Path(home).resolve()):
        collection = _parse(expected_dir=seeded.resolve())
    if collection.source_sha256 != pinned:
        raise RuntimeError(f"the files ir_datasets read in {seeded} differ from the pinned sha256")
    return collection


def export_cranfield(
    *,
    qrels: str | os.PathLike,
    queries: str | os.PathLike,
    docs: str | os.PathLike,
    manifest: str | os.PathLike,
    cranfield_dir: str | os.PathLike | None = None,
    sha256: Mapping[str, str] | None = None,
    home: str | os.PathLike | None = None,
) -> dict[str, Any]:
    """Load Cranfield (see `load_cranfield`) and write the four exports; returns the manifest.

    qrels: `topic 0 docno grade`, every judgment in source order. queries:
    `topic<TAB>text`, line breaks and tabs in the text replaced by spaces.
    docs: one JSON object per document (its fields), sorted keys. manifest:
    counts, sha256 of sources and exports, ir_datasets version; no paths or
    timestamps, so identical inputs give identical bytes. `home`, the private
    IR_DATASETS_HOME for a local copy, defaults to `ir_datasets_home/` beside
    the manifest.
    """
    if home is None:
        home = Path(manifest).parent / "ir_datasets_home"
    collection = load_cranfield(cranfield_dir, sha256, home)
    return write_exports(
        collection, DATASET, qrels=qrels, queries=queries, docs=docs, manifest=manifest
    )


def export_local(
    folder: str | os.PathLike,
    sha256: Mapping[str, str],
    *,
    qrels: str | os.PathLike,
    queries: str | os.PathLike,
    docs: str | os.PathLike,
    manifest: str | os.PathLike,
) -> dict[str, Any]:
    """Load a local collection folder (see `load_local`) and write the four exports as
    `export_cranfield` does; the manifest names the dataset `local`, not its path."""
    collection = load_local(folder, sha256)
    return write_exports(
        collection, "local", qrels=qrels, queries=queries, docs=docs, manifest=manifest
    )


def _parse(expected_dir: Path | None) -> Collection:
    """Read the dataset through ir_datasets (imported here, after IR_DATASETS_HOME is set)."""
    import ir_datasets

    dataset = ir_datasets.load(DATASET)
    if expected_dir is not None:
        reads = Path(dataset.docs_path(force=False)).resolve()
        if reads.parent != expected_dir:
            raise RuntimeError(
                f"ir_datasets reads {reads}, not the seeded copy in {expected_dir}: it was "
                "imported before IR_DATASETS_HOME was set; load in a fresh process"
            )
    docs = pd.DataFrame(
        [(d.doc_id, d.title, d.text, d.author, d.bib) for d in dataset.docs_iter()],
        columns=DOC_FIELDS,
    )
    queries = pd.DataFrame(
        [(q.query_id, q.text) for q in dataset.queries_iter()], columns=QUERY_FIELDS
    )
    qrels = pd.DataFrame(
        [(r.query_id, r.doc_id, r.relevance) for r in dataset.qrels_iter()],
        columns=QRELS_COLUMNS,
    )
    cached = {
        "cran.all.1400": dataset.docs_path(),
        "cran.qry": dataset.queries_path(),
        "cranqrel": dataset.qrels_path(),
    }
    log.info("ir_datasets %s read %s", ir_datasets.__version__, sorted(map(str, cached.values())))
    source_sha256 = {name: sha256_file(path) for name, path in cached.items()}
    return Collection(docs, queries, qrels, source_sha256, ir_datasets.__version__)


@contextlib.contextmanager
def _ir_datasets_home(home: Path) -> Iterator[None]:
    """Set IR_DATASETS_HOME within the block, restoring the previous value after."""
    previous = os.environ.get("IR_DATASETS_HOME")
    os.environ["IR_DATASETS_HOME"] = str(home)
    try:
        yield
    finally:
        if previous is None:
            del os.environ["IR_DATASETS_HOME"]
        else:
            os.environ["IR_DATASETS_HOME"] = previous
