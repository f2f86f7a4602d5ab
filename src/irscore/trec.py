"""Strict readers and writers for TREC qrels and run files.

A malformed line is never skipped: it raises `TrecFormatError` naming the
file, the line number, the problem and the line itself. Blank lines and lines
whose first non-blank character is `#` are comments. Topic ids and docnos stay
strings. Valid files take a fast path through pandas' C parser; anything
unusual falls back to a line-by-line reader, which is the authority on what
is valid and produces the exact error.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

QRELS_COLUMNS = ["topic", "docno", "grade"]
RUN_COLUMNS = ["topic", "docno", "rank", "score", "tag"]

_COMMENT = re.compile(rb"(?:^|\n)[ \t\r\f\v]*#")
_GRADE = re.compile(r"[+-]?[0-9]{1,15}")
# A digit, `_`, a digit; written literal-first, so the regex engine skips ahead to each
# `_` (16x faster on a 10 MB run whose tag has one on every line).
_UNDERSCORE = re.compile(rb"_(?<=[0-9]_)[0-9]")
_ASCII_SPACE = re.compile(r"[ \t\r\f\v]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class TrecFormatError(ValueError):
    """A qrels or run file that does not parse; names file, line and problem."""

    def __init__(self, path: str | os.PathLike, line_no: int, problem: str, line: str = ""):
        self.path = str(path)
        self.line_no = line_no
        self.problem = problem
        self.line = line
        where = f"{self.path}:{line_no}" if line_no else self.path
        quoted = f": {line!r}" if line else ""
        super().__init__(f"{where}: {problem}{quoted}")


def read_qrels(path: str | os.PathLike) -> pd.DataFrame:
    """Read `topic iteration docno grade` lines into columns topic, docno, grade (int64).

    A docno judged twice for one topic is an error (trec_eval refuses it too).
    """
    frame = _fast_columns(path, 4, {})
    if frame is not None and not frame[3].str.fullmatch(_GRADE.pattern).all():
        frame = None
    if frame is None:
        frame = _slow_columns(path, 4, _check_qrels_fields)
    qrels = pd.DataFrame(
        {
            "topic": frame[0],
            "docno": frame[2],
            "grade": np.asarray(frame[3].to_numpy(), dtype=np.int64),
        }
    )
    duplicated = qrels.duplicated(["topic", "docno"])
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        topic, docno = qrels.at[row, "topic"], qrels.at[row, "docno"]
        line_no, line = _line_of_record(path, row)
        raise TrecFormatError(
            path, line_no, f"document {docno} is judged twice for topic {topic}", line
        )
    qrels.attrs["source"] = str(path)
    return qrels


def read_run(path: str | os.PathLike) -> pd.DataFrame:
    """Read `topic Q0 docno rank score tag` lines, in file order.

    Columns: topic, docno, rank (int64; a whole number, `3.0` allowed since
    trec_eval ignores the column), score (float64, finite), tag. The row
    position is the file order, which the `file_order` tie-break uses.
    """
    frame = _fast_columns(path, 6, {3: np.float64, 4: np.float64})
    if frame is not None and not (_whole(frame[3]) and np.isfinite(frame[4].to_numpy()).all()):
        frame = None
    if frame is None:
        frame = _slow_columns(path, 6, _check_run_fields)
    run = pd.DataFrame(
        {
            "topic": frame[0],
            "docno": frame[2],
            "rank": np.asarray(frame[3].to_numpy(), dtype=np.float64).astype(np.int64),
            "score": np.asarray(frame[4].to_numpy(), dtype=np.float64),
            "tag": frame[5],
        }
    )
    run.attrs["source"] = str(path)
    return run


def write_run(path: str | os.PathLike, run: pd.DataFrame) -> None:
    """Write a run in TREC format, rows in the given order; scores as repr(float).

    The file appears whole or not at all (written to a temporary file, then renamed).
    """
    lines = (
        f"{t} Q0 {d} {int(r)} {float(s)!r} {g}\n"
        for t, d, r, s, g in zip(
            run["topic"], run["docno"], run["rank"], run["score"], run["tag"], strict=True
        )
    )
    write_lines_atomically(path, lines)


def write_qrels(path: str | os.PathLike, qrels: pd.DataFrame) -> None:
    """Write qrels as `topic 0 docno grade`, rows in the given order."""
    lines = (
        f"{t} 0 {d} {int(g)}\n"
        for t, d, g in zip(qrels["topic"], qrels["docno"], qrels["grade"], strict=True)
    )
    write_lines_atomically(path, lines)


def copy_checked_run(source: str | os.PathLike, target: str | os.PathLike) -> None:
    """Copy a run file byte for byte after reading it strictly (a bad line stops the copy)."""
    read_run(source)
    write_lines_atomically(target, [Path(source).read_text(encoding="utf-8")])


def float_text(value: float) -> str:
    """A float as the shortest text that reads back to the same double (repr)."""
    return repr(float(value))


def write_lines_atomically(path: str | os.PathLike, lines: Iterable[str]) -> None:
    """Write lines to `path` through a temporary file in the same folder, then rename."""
    with atomic_output(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.writelines(lines)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside `path` to write to; renamed to `path` when the block
    succeeds, removed when it fails, so `path` appears whole or not at all."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would hide results from others
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _fast_columns(
    path: str | os.PathLike, ncols: int, numeric: dict[int, type]
) -> pd.DataFrame | None:
    """Parse a well-formed file in C; None when anything needs the careful reader.

    Files separated by single spaces go through Arrow's multi-threaded reader,
    with topics and docnos dictionary-encoded (pandas categoricals); other
    spacing through pandas' C parser, where one spare column catches lines
    with too many fields. A value that does not convert, a comment, or an
    underscore inside a number sends the file to the careful reader.
    """
    data = Path(path).read_bytes()
    if (
        (b"#" in data and _COMMENT.search(data))
        or (b"_" in data and _UNDERSCORE.search(data))
        or b"\x0b" in data
        or b"\x0c" in data
        or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n"))
    ):
        return None
    if _single_spaced(data):
        return _arrow_columns(data, ncols, numeric)
    dtypes: dict[int, Any] = dict.fromkeys(range(ncols + 1), str)
    dtypes.update(numeric)
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            sep=r"\s+",
            header=None,
            names=list(range(ncols + 1)),
            dtype=dtypes,
            na_filter=False,
            engine="c",
            encoding="utf-8",
            skip_blank_lines=True,
            quoting=3,  # csv.QUOTE_NONE: quotes are ordinary characters in TREC files
        )
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OverflowError):
        return None
    if len(frame) and ((frame[ncols] != "").any() or (frame[ncols - 1] == "").any()):
        return None
    return frame


def _single_spaced(data: bytes) -> bool:
    """True when no byte but a space can separate fields and lines end in a bare newline.

    (Vertical tabs and form feeds never reach here: they go to the careful reader.)

    Double or leading spaces need no check here: they make empty fields, so
    the column count is wrong and Arrow refuses the file.
    """
    return not any(byte in data for byte in (b"\t", b"\r"))


def _arrow_columns(data: bytes, ncols: int, numeric: dict[int, type]) -> pd.DataFrame | None:
    """Arrow's CSV reader on a single-spaced file; None on any parse or conversion error."""
    names = [str(i) for i in range(ncols)]
    types = {str(i): pa.dictionary(pa.int32(), pa.string()) for i in range(ncols)}
    types.update({str(i): pa.from_numpy_dtype(t) for i, t in numeric.items()})
    try:
        table = pa_csv.read_csv(
            io.BytesIO(data),
            read_options=pa_csv.ReadOptions(column_names=names),
            parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    frame = table.to_pandas()
    frame.columns = range(ncols)
    return frame


def _whole(column: pd.Series) -> bool:
    """True when every value is a whole number that int64 holds exactly."""
    values = column.to_numpy(dtype=np.float64)
    return bool((np.isfinite(values) & (np.floor(values) == values)).all()) and bool(
        (np.abs(values) < 2.0**53).all()
    )


def _data_lines(path: str | os.PathLike) -> Iterator[tuple[int, str, list[str]]]:
    """Yield (line number, line, fields) for every non-blank, non-comment line."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line_no = data.count(b"\n", 0, err.start) + 1
        start = data.rfind(b"\n", 0, err.start) + 1
        end = data.find(b"\n", err.start)
        line = data[start : len(data) if end < 0 else end].decode("utf-8", "backslashreplace")
        raise TrecFormatError(path, line_no, "not valid UTF-8", line) from None
    for line_no, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        fields = _ASCII_SPACE.split(line.strip(" \t\r\f\v"))
        fields = [] if fields == [""] else fields
        if not fields or fields[0].startswith("#"):
            continue
        yield line_no, line, fields


def _slow_columns(path: str | os.PathLike, ncols: int, check) -> pd.DataFrame:
    """Line-by-line reader: validates every line and raises at the first bad one."""
    rows = []
    for line_no, line, fields in _data_lines(path):
        if len(fields) != ncols:
            raise TrecFormatError(
                path, line_no, f"expected {ncols} columns, found {len(fields)}", line
            )
        problem = check(fields)
        if problem:
            raise TrecFormatError(path, line_no, problem, line)
        rows.append(fields)
    return pd.DataFrame(rows, columns=list(range(ncols)), dtype=object)


def _check_qrels_fields(fields: list[str]) -> str | None:
    if not _GRADE.fullmatch(fields[3]):
        return f"grade {fields[3]!r} is not an integer of at most 15 digits"
    return None


def _is_whole(value: float) -> bool:
    return math.isfinite(value) and value.is_integer() and abs(value) < 2.0**53


def _check_run_fields(fields: list[str]) -> str | None:
    if not _DECIMAL.fullmatch(fields[3]) or not _is_whole(float(fields[3])):
        return f"rank {fields[3]!r} is not a whole number"
    if not _DECIMAL.fullmatch(fields[4]):
        return f"score {fields[4]!r} is not a finite decimal number"
    if not math.isfinite(float(fields[4])):
        return f"score {fields[4]!r} is not a finite number"
    return None


def _line_of_record(path: str | os.PathLike, record: int) -> tuple[int, str]:
    """The line number and text of the record-th data line (0-based) of a file."""
    for index, (line_no, line, _fields) in enumerate(_data_lines(path)):
        if index == record:
            return line_no, line
    return 0, ""
