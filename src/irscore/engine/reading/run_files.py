"""Runs as JSON (pytrec_eval's and ranx's `{qid: {docno: score}}`, or ranxhub's
`{"run": {...}, "metadata": {...}}`) and as Parquet (ranx's columns `q_id`, `doc_id`,
`score`, or any the Python API accepts), read and written.

The readers recognise them by content (Parquet's `PAR1` magic, JSON's leading `{`),
read every byte once, and check every value as strictly as a TREC line (the Python
API's checks, `irscore.engine.reading.inputs`): an error names the file, the topic and docno (JSON)
or the row (Parquet), and what is wrong. A document's rank is its position within its
topic in the file's order; the tag is ranxhub's run name, a `tag` column, or the
file's name.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import pyarrow as pa

from irscore.engine.reading.errors import InputError
from irscore.engine.reading.formats import Layout
from irscore.engine.reading.skipped_lines import SkippedLines

if TYPE_CHECKING:
    import pandas as pd

    from irscore.engine.reading.trec import Records

PARQUET_MAGIC = b"PAR1"
JSON_RUN = Layout("json", ("topic", "docno", "score"))
PARQUET_RUN = Layout("parquet", ("topic", "docno", "score"))


_NOT_FIRST = b" \t\r\n\f\v#\xef"  # a first byte that starts no record line (or a BOM)


def kind_of(head: bytes) -> str | None:
    """`parquet` or `json` from a run file's first (decompressed) bytes, else None."""
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"{":
        return "json"
    return None


def plain_trec(head: bytes, fmt: str = "auto") -> bool:
    """True when a run file whose bytes begin with `head` (its first line whole) is plain
    TREC text in TREC's run layout: not compressed, JSON or Parquet, and its first line
    a record (no byte order mark, header, comment or blank line first). Readers that
    take such a file's lines as they come (several runs parsed as one, a run cut in
    two) ask it of the file's beginning."""
    from irscore.engine.reading import formats, streams

    first = head.split(b"\n", 1)[0]
    if fmt not in ("auto", "trec") or not first or first[0] in _NOT_FIRST:
        return False
    if any(head.startswith(magic) for magic in streams.MAGIC) or kind_of(head):
        return False
    try:
        return formats.detect(first.decode("utf-8"), "run", fmt) == formats.TREC_RUN
    except (UnicodeDecodeError, formats.FormatError):
        return False


def read(stream: BinaryIO, name: str, compression: str | None, fmt: str = "auto") -> Records | None:
    """The run `name` as the readers' Records when it is JSON or Parquet (by content, or
    as `fmt` names it), else None, having only peeked at the stream (a pipe can still be
    read as TREC, CSV or TSV text by `trec`)."""
    head = stream.peek(64)[:64] if hasattr(stream, "peek") else b""
    kind = fmt if fmt in ("json", "parquet") else kind_of(head)
    if kind is None:
        return None
    data = stream.read()  # every byte, once
    frame, layout = (_from_json if kind == "json" else _from_parquet)(data, name)
    return _records(frame, name, layout, compression)


def _from_json(data: bytes, name: str) -> tuple[pd.DataFrame, Layout]:
    """A JSON run's rows, checked; ranxhub's wrapper names the run."""
    from irscore.engine.reading.inputs import run_frame

    try:
        content = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: not UTF-8 text (byte {err.start + 1})") from None
    except json.JSONDecodeError as err:
        raise InputError(
            f"{name}: not JSON: {err.msg} (line {err.lineno}, column {err.colno})"
        ) from None
    if not isinstance(content, dict):
        raise InputError(f"{name}: a JSON run is an object {{qid: {{docno: score}}}}")
    tag = None
    if _is_ranxhub(content):
        metadata = content.get("metadata", {})
        found = metadata.get("run", {}).get("name") if isinstance(metadata, dict) else None
        tag, content = found if isinstance(found, str) and found else None, content["run"]
    for topic, docs in content.items():
        if not isinstance(docs, dict):
            raise InputError(
                f"{name}: topic {topic!r} maps to {_kind(docs)}, not an object {{docno: score}}"
            )
        for docno, score in docs.items():
            if isinstance(score, bool) or not isinstance(score, int | float):
                raise InputError(
                    f"{name}: topic {topic!r}, docno {docno!r}: score {score!r} is not a number"
                )
    if not content or not any(content.values()):
        raise InputError(f"{name}: the JSON run has no document")
    frame = run_frame(content, name)
    frame["tag"] = _tag(name) if tag is None else tag
    frame.attrs["source"] = name
    return frame, JSON_RUN


def _is_ranxhub(content: dict) -> bool:
    """True for ranxhub's `{"run": {qid: {docno: score}}, "metadata": {...}}`."""
    run = content.get("run")
    return (
        set(content) <= {"run", "metadata"}
        and isinstance(run, dict)
        and all(isinstance(docs, dict) for docs in run.values())
    )


def _from_parquet(data: bytes, name: str) -> tuple[pd.DataFrame, Layout]:
    """A Parquet run's rows, checked (ranx's column names, or the Python API's)."""
    import pyarrow.parquet as pq

    from irscore.engine.reading.inputs import run_frame

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError) as err:
        raise InputError(f"{name}: not a readable Parquet file ({err})") from None
    frame = table.to_pandas()
    renamed = {"q_id": "topic"} if "q_id" in frame.columns else {}
    tagged = any(alias in frame.columns for alias in ("tag", "run_id", "run"))
    checked = run_frame(frame.rename(columns=renamed), name)
    if not tagged:
        checked["tag"] = _tag(name)
    checked.attrs["source"] = name
    return checked, PARQUET_RUN


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string"}.get(type(value), type(value).__name__)


def _tag(name: str) -> str:
    """A run's tag from its file name, as a TREC run without tags gets one."""
    from irscore.engine.reading.columns import _tag_of

    return _tag_of(name)


def _records(frame: pd.DataFrame, name: str, layout: Layout, compression: str | None) -> Records:
    """The checked rows as the readers' Records (topic and tag dictionary-encoded)."""
    from irscore.engine.reading import trec

    table = pa.table(
        {
            "topic": _dictionary(frame["topic"]),
            "docno": pa.array(frame["docno"].astype(str).to_numpy(dtype=object), pa.string()),
            "rank": pa.array(frame["rank"].to_numpy(dtype=np.int64).astype(np.int32)),
            "score": pa.array(frame["score"].to_numpy(dtype=np.float64)),
            "tag": _dictionary(frame["tag"]),
        }
    )
    return trec.Records(table, name, layout, SkippedLines.none(), compression)


def _dictionary(column: pd.Series) -> pa.DictionaryArray:
    import pandas as pd

    codes, labels = pd.factorize(column.astype(str))
    return pa.DictionaryArray.from_arrays(
        pa.array(codes.astype(np.int32)), pa.array(list(labels), pa.string())
    )


def write(path: str | os.PathLike, run: pd.DataFrame) -> None:
    """A run frame (topic, docno, score; rank and tag if it has them) written as its
    file name says: `.json` as `{qid: {docno: score}}` (pytrec_eval's and ranx's), in
    rank order; `.parquet` with ranx's columns q_id, doc_id, score (and rank, tag);
    atomically (nothing half-written is left behind)."""
    from irscore.engine.reading.trec import atomic_output

    suffix = Path(path).suffix.lower()
    if suffix not in (".json", ".parquet", ".parq"):
        raise ValueError(f"{path}: a run is written as .json or .parquet (trec.write_run: TREC)")
    order = run.sort_values(["topic", "rank"], kind="stable") if "rank" in run else run
    with atomic_output(path) as tmp:
        if suffix == ".json":
            nested: dict[str, dict[str, float]] = {}
            for topic, docno, score in zip(
                order["topic"].astype(str), order["docno"].astype(str), order["score"], strict=True
            ):
                nested.setdefault(topic, {})[docno] = float(score)
            tmp.write_text(json.dumps(nested) + "\n", encoding="utf-8")
        else:
            import pyarrow.parquet as pq

            columns = {"q_id": "topic", "doc_id": "docno", "score": "score"}
            columns.update({c: c for c in ("rank", "tag") if c in order})
            table = pa.table(
                {
                    new: order[old].astype(str) if new in ("q_id", "doc_id", "tag") else order[old]
                    for new, old in columns.items()
                }
            )
            pq.write_table(table, tmp)
