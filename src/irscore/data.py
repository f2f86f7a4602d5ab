"""The Cranfield collection through ir_datasets, exported to plain, deterministic files.

By default ir_datasets downloads the collection as usual. With a local copy of
the raw files, each is checked against its pinned sha256, copied into a
private IR_DATASETS_HOME under the names ir_datasets caches them as, and the
same ir_datasets parser reads them from there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from irscore.trec import QRELS_COLUMNS, write_lines_atomically, write_qrels

DATASET = "cranfield"
# Raw file name -> the name ir_datasets caches it as under $IR_DATASETS_HOME/cranfield/.
RAW_FILES = {"cran.all.1400": "docs.txt", "cran.qry": "queries.txt", "cranqrel": "qrels.txt"}
DOC_FIELDS = ["docno", "title", "text", "author", "bib"]
QUERY_FIELDS = ["topic", "text"]
# Characters that would break a `topic<TAB>text` line; each becomes one space.
_LINE_BREAKS = str.maketrans({"\n": " ", "\r": " ", "\t": " "})

# Where ir_datasets downloads cran.tar.gz from (its etc/downloads.json), and its mirror.
DOWNLOAD_URL = "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/cran.tar.gz"
DOWNLOAD_HOSTS = (("ir.dcs.gla.ac.uk", 80), ("mirror.ir-datasets.com", 443))

log = logging.getLogger(__name__)


class DownloadError(RuntimeError):
    """The collection is neither cached nor downloadable (no network)."""


class SourceFileError(ValueError):
    """A raw Cranfield file that is missing or whose sha256 differs from the pinned value."""

    def __init__(self, path: str | os.PathLike, expected: str, actual: str | None):
        self.path = str(path)
        self.expected = expected
        self.actual = actual
        found = "file is missing" if actual is None else f"sha256 is {actual}"
        super().__init__(
            f"{self.path}: {found}, expected sha256 {expected} (pinned in config cranfield_sha256)"
        )


@dataclass(frozen=True)
class Collection:
    """Documents (DOC_FIELDS), queries (topic, text), qrels (topic, docno, grade) and
    the sha256 of the raw files they were parsed from."""

    docs: pd.DataFrame
    queries: pd.DataFrame
    qrels: pd.DataFrame
    source_sha256: dict[str, str]
    ir_datasets_version: str


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    docs: one JSON object per document (DOC_FIELDS), sorted keys. manifest:
    counts, sha256 of sources and exports, ir_datasets version; no paths or
    timestamps, so identical inputs give identical bytes. `home`, the private
    IR_DATASETS_HOME for a local copy, defaults to `ir_datasets_home/` beside
    the manifest.
    """
    if home is None:
        home = Path(manifest).parent / "ir_datasets_home"
    collection = load_cranfield(cranfield_dir, sha256, home)
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
    content = _manifest(collection, {Path(p).name: sha256_file(p) for p in (docs, qrels, queries)})
    write_lines_atomically(manifest, [json.dumps(content, sort_keys=True, indent=2) + "\n"])
    log.info("exported %s", json.dumps(content["counts"], sort_keys=True))
    return content


def read_docs(path: str | os.PathLike) -> pd.DataFrame:
    """Read docs.jsonl into columns DOC_FIELDS, in file order; absent fields other than
    docno are empty strings."""
    records = []
    with open(path, encoding="utf-8") as stream:
        for line_no, line in enumerate(stream, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{line_no}: not a JSON object: {err}") from None
            if not isinstance(record, dict) or not isinstance(record.get("docno"), str):
                raise ValueError(f"{path}:{line_no}: expected an object with a string docno")
            records.append([record.get(name, "") for name in DOC_FIELDS])
    return pd.DataFrame(records, columns=DOC_FIELDS)


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


def _records(docs: pd.DataFrame) -> Iterator[dict[str, str]]:
    for row in docs.itertuples(index=False):
        yield dict(zip(DOC_FIELDS, row, strict=True))


def documents_in(manifest: str | os.PathLike) -> int:
    """The number of documents in the collection, as the data step's manifest records it."""
    with open(manifest, encoding="utf-8") as stream:
        return int(json.load(stream)["counts"]["documents"])


def _manifest(collection: Collection, exports: dict[str, str]) -> dict[str, Any]:
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
        "dataset": DATASET,
        "exports_sha256": exports,
        "ir_datasets_version": collection.ir_datasets_version,
        "source_sha256": collection.source_sha256,
    }
