"""Strict readers and writers for qrels and run files.

A malformed line is never skipped: it raises `TrecFormatError` naming the
file, the line number, the problem and the line itself. Blank lines and lines
whose first non-blank character is `#` are comments. Topic ids and docnos stay
strings. Each input is read once, block by block (`irscore.engine.reading.streams`: files,
`-`, pipes, gzip/bzip2/xz by content); a block goes through Arrow's
multi-threaded CSV parser, comment lines cut out first, and only a block that
Arrow refuses (or whose values fail a check) goes to the line-by-line reader,
which is the authority on what is valid and produces the exact error (both in
`irscore.engine.reading.columns`; this module reads and writes whole files).
"""

from __future__ import annotations

import contextlib
import json
import lzma
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import pyarrow as pa

from irscore.engine.reading import errors, formats, streams
from irscore.engine.reading.careful_reader import slow_columns, utf8_error
from irscore.engine.reading.columns import (
    LABEL,
    canonical,
    check_unique_judgments,
    combine,
    fast_columns,
    narrowed,
    plain_docnos,
)
from irscore.engine.reading.errors import InputError, TrecFormatError
from irscore.engine.reading.formats import Layout, field_name
from irscore.engine.reading.skipped_lines import SkippedLines, blank_prefix, blank_suffix
from irscore.engine.system import arrow_compute as ac
from irscore.engine.system.arrays import as_arrow

if TYPE_CHECKING:  # pandas loads in `Records.frame`: `irscore evaluate` needs no DataFrame
    import pandas as pd


QRELS_COLUMNS = ["topic", "docno", "grade"]


RUN_COLUMNS = ["topic", "docno", "rank", "score", "tag"]
_BOM = b"\xef\xbb\xbf"


HEADER_HINT = (
    "a header line? TREC files have none: remove it or start it with #, "
    "or name the format with --{role}-format csv|tsv"
)


@dataclass
class Records:
    """A parsed file: one row per data line. Topics and tags are dictionary-encoded (the
    narrowest integer codes), docnos plain strings, a run's ranks int32 when they fit,
    else float64 whole numbers (`frame` gives int64).

    `skipped` holds the line numbers of lines without a record (blank lines,
    comments, a header), so a row's line number costs nothing until asked.
    `unread_rank`: the line number and text of the first line whose rank is not a
    whole number (trec_eval never reads the rank; such ranks are 0 here), or None.
    """

    table: pa.Table
    source: str
    layout: Layout
    skipped: SkippedLines
    compression: str | None = None
    bom: bool = False  # a UTF-8 byte order mark was skipped (trec_eval reads it as text)
    unread_rank: tuple[int, str] | None = None

    def check_ranks(self) -> None:
        """Refuse ranks that are not numbers, for a convention that reads them."""
        if self.unread_rank is not None:
            line_no, line = self.unread_rank
            fields = formats.split(line, self.layout.delimiter)
            value = fields[self.layout.columns.index("rank")]
            problem = (
                f"rank {errors.shown(value)!r} is not a whole number "
                "(tie-break rank reads the ranks)"
            )
            raise TrecFormatError(self.source, line_no, problem, line)

    def line_of(self, row: int) -> int:
        """The 1-based line number of record `row` (0-based)."""
        return self.skipped.line_of(row)

    def describe(self) -> str:
        """What was read, for --verbose."""
        packed = f", {self.compression}-compressed" if self.compression else ""
        if "subtopic" in self.table.column_names:
            packed += ", second column read as subtopics (topic subtopic docno grade)"
        return f"{self.source}: {self.layout.describe()}{packed}, {self.table.num_rows} records"

    def frame(self) -> pd.DataFrame:
        """The records as a DataFrame (topics, docnos and tags as categoricals)."""
        table = self.table
        if "docno" in table.column_names and not pa.types.is_dictionary(table["docno"].type):
            docnos = ac.dictionary_encode(table["docno"])
            table = table.set_column(table.column_names.index("docno"), "docno", docnos)
        if "rank" in table.column_names:
            rank = ac.cast(table["rank"], pa.int64())
            table = table.set_column(table.column_names.index("rank"), "rank", rank)
        frame = table.to_pandas()
        frame.attrs.update(source=self.source, skipped=self.skipped, bom=self.bom)
        return frame


def read_qrels(path: str | os.PathLike, fmt: str = "auto") -> pd.DataFrame:
    """Read `topic iteration docno grade` lines (or CSV/TSV `qid,docno,grade`) into
    columns topic, docno, grade (int64).

    A docno judged twice for one topic is an error (trec_eval refuses it too).
    """
    return read_qrels_records(path, fmt).frame()


def read_run(path: str | os.PathLike, fmt: str = "auto") -> pd.DataFrame:
    """Read `topic Q0 docno rank score tag` lines (or CSV/TSV/list), in file order.

    Columns: topic, docno, rank (int64; a whole number, `3.0` allowed since
    trec_eval ignores the column), score (float64, finite), tag. The row
    position is the file order, which the `file_order` tie-break uses. A file
    without scores gets score = -rank; one without ranks (or tags) gets each
    topic's rows numbered in file order (and the file's name as the tag).
    """
    return read_run_records(path, fmt).frame()


def read_qrels_records(path: str | os.PathLike, fmt: str = "auto") -> Records:
    """`read_qrels` without pandas: the Arrow table and where each record came from."""
    return _read(path, "qrels", fmt)


def read_run_records(path: str | os.PathLike, fmt: str = "auto") -> Records:
    """`read_run` without pandas: the Arrow table and where each record came from."""
    return _read(path, "run", fmt)


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
    """Read a run strictly in any format `read_run` knows (a bad line stops the copy)
    and write it as a TREC run."""
    write_run(target, read_run(source))


def float_text(value: float) -> str:
    """A float as the shortest text that reads back to the same double (repr)."""
    return repr(float(value))


def write_lines_atomically(path: str | os.PathLike, lines: Iterable[str]) -> None:
    """Write lines to `path` through a temporary file in the same folder, then rename."""
    with atomic_output(path) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.writelines(lines)


def write_json_atomically(path: str | os.PathLike, content: object) -> None:
    """Write `content` as indented JSON with sorted keys (the same bytes for the same
    content), whole or not at all."""
    write_lines_atomically(path, [json.dumps(content, sort_keys=True, indent=2) + "\n"])


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside `path` to write to; renamed to `path` when the block
    succeeds, removed when it fails, so `path` appears whole or not at all."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # ~7 ms of start-up that reading does not need

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


def _read(path: str | os.PathLike, role: str, fmt: str) -> Records:
    """Parse a whole input block by block into the role's canonical columns (a run in
    JSON or Parquet whole, `run_files`)."""
    parser = Parser(streams.display_name(path), role, fmt)
    with line_blocks(path, lambda: parser.lines) as (blocks, compression, stream):
        if role == "run" and fmt in ("auto", "json", "parquet"):
            from irscore.engine.reading import run_files

            structured = run_files.read(stream, parser.name, compression, fmt)
            if structured is not None:
                return structured
        for block in blocks:
            parser.feed(block)
    return parser.records(compression)


def data_lines(path: str | os.PathLike) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, fields split on whitespace) of each data line of a small
    input (preferences, judgment groups, z-scores), read as qrels and runs are: any
    compression, a byte order mark skipped, lines bounded; blank and `#` lines
    skipped, bytes that are not UTF-8 an error naming the line."""
    name, line_no, position = streams.display_name(path), 0, 0
    with line_blocks(path, lambda: line_no) as (blocks, _, _stream):
        for block in blocks:
            start = len(_BOM) if position == 0 and block.startswith(_BOM) else 0
            position += start
            lines = block[start:].split(b"\n")
            if block.endswith(b"\n"):
                lines.pop()  # nothing after the last line end
            for raw in lines:
                line_no += 1
                try:
                    line = raw.rstrip(b"\r").decode("utf-8")
                except UnicodeDecodeError as err:
                    raise utf8_error(name, line_no, raw, err, position) from None
                position += len(raw) + 1
                fields = formats.split(line, None)
                if fields and not fields[0].startswith("#"):
                    yield line_no, line, fields


@contextlib.contextmanager
def line_blocks(
    path: str | os.PathLike,
    lines: Callable[[], int],
    most: int | None = None,
    window: tuple[int, int | None] | None = None,
) -> Iterator[tuple[Iterator[bytes], str | None, BinaryIO]]:
    """An input's blocks of whole lines (of about `most` bytes at most, when given), its
    compression and its (decompressed) stream, which nothing has read from yet
    (`run_files` peeks at it); reading faults become one-line errors naming the input
    (`lines()` counts the lines already read, to name a line longer than the limit).
    `window`: only the bytes from its start up to its stop (an uncompressed file's)."""
    name = streams.display_name(path)
    limit = streams.max_line()
    try:
        with streams.open_input(path) as (stream, compression):
            try:
                size = streams.block_size(stream, compression)
                size = min(size, most) if most else size
                body = stream if window is None else streams.Window(stream, *window)
                yield streams.blocks(body, size, limit), compression, stream
            except streams.LineTooLong as err:
                problem = f"{err}; IRSCORE_MAX_LINE raises the limit"
                raise TrecFormatError(name, lines() + err.newlines + 1, problem) from None
            except (OSError, EOFError, lzma.LZMAError, zlib.error) as err:
                if compression is None:
                    raise
                problem = f"not a valid {compression} stream ({err})"
                raise TrecFormatError(name, 0, problem) from None
    except OSError as err:  # missing, a folder, unreadable: the input's fault, not a bug
        raise InputError(f"{name}: cannot read: {err.strerror or err}") from None


class Parser:
    """Turns blocks of whole lines into Arrow tables of raw fields, remembering skipped lines."""

    def __init__(self, name: str, role: str, fmt: str):
        self.name, self.role, self.fmt = name, role, fmt
        self.layout: Layout | None = None
        self.lines = 0  # lines before the current block
        self.offset = 0  # bytes before the current block
        self.skipped: list[SkippedLines] = []
        self.tables: list[pa.Table] = []
        self.unread_rank: list[tuple[int, str]] = []  # the first line whose rank is no number
        self.bom = False
        self.first_record = 0  # the line number of the first record, once known

    def feed(self, block: bytes) -> None:
        """Parse one block of whole lines; blank lines at its start and end are counted
        as runs (`skipped_lines`), never split into lines."""
        start = len(_BOM) if self.offset == 0 and block.startswith(_BOM) else 0
        self.bom = self.bom or start > 0
        if self.layout is None:
            start = self._detect(block, start)
        newlines = None  # the block's, counted only when the fast path has not
        if self.layout is not None and start < len(block):
            start = self._blank(block, start)
            end = blank_suffix(block, start)
        if self.layout is not None and start < len(block) and start < end:
            data = block[start:end] if start or end < len(block) else block
            before = block.count(b"\n", 0, start)
            first_line = self.lines + 1 + before
            fast = fast_columns(data, self.layout)
            if fast is None:
                try:
                    table, skipped = self._slow_block(data, first_line, self.offset + start)
                except TrecFormatError as err:
                    raise self._with_header_hint(err) from None
            else:
                table, skipped, lines = fast
                skipped = skipped.shifted(first_line)
                newlines = before + lines - (not data.endswith(b"\n"))
            table = plain_docnos(table)
            if self.role == "run":  # the Q0 column, checked, is not kept
                table = table.drop_columns([c for c in table.column_names if c.startswith("_")])
                table = narrowed(table)
            self.tables.append(table)
            self.skipped.append(skipped)
            if end < len(block):  # blank lines after the last record: one run
                first = self.lines + 1 + block.count(b"\n", 0, end)
                tail = block.count(b"\n", end) + (not block.endswith(b"\n"))
                self.skipped.append(SkippedLines(np.array([first]), np.array([tail])))
                newlines = None
        self.lines += block.count(b"\n") if newlines is None else newlines
        self.offset += len(block)

    def _blank(self, block: bytes, start: int) -> int:
        """Skip the blank lines from `start` on, one run of lines; where the next begins."""
        cut, blank = blank_prefix(block, start)
        if blank:
            first = self.lines + 1 + block.count(b"\n", 0, start)
            self.skipped.append(SkippedLines(np.array([first]), np.array([blank])))
        return cut

    def _detect(self, block: bytes, position: int) -> int:
        """Fix the layout from the first data line; returns where the records start
        (after a header line, which counts as skipped)."""
        line_no = self.lines
        while position < len(block):
            cut, blank = blank_prefix(block, position)
            if blank:
                self.skipped.append(SkippedLines(np.array([line_no + 1]), np.array([blank])))
                line_no, position = line_no + blank, cut
                continue
            end = block.find(b"\n", position)
            end = len(block) if end < 0 else end + 1
            line_no += 1
            raw = block[position:end].rstrip(b"\r\n")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise utf8_error(self.name, line_no, raw, err, self.offset + position) from None
            if text.lstrip(" \t\r\f\v").startswith("#"):
                self.skipped.append(SkippedLines.of_lines([line_no]))
                position = end
                continue
            try:
                self.layout = formats.detect(text, self.role, self.fmt)
            except formats.FormatError as err:
                raise TrecFormatError(self.name, line_no, str(err), text) from None
            if self.layout.header:
                self.skipped.append(SkippedLines.of_lines([line_no]))
                return end
            self.first_record = line_no
            return position
        return position

    def _with_header_hint(self, err: TrecFormatError) -> TrecFormatError:
        """The error, with a hint when its line is the first record of a TREC file and
        names columns (`qid`, `docno`, `rank`, ...) as a header does."""
        if err.line_no != self.first_record or self.layout is None or self.layout.name != "trec":
            return err
        fields = formats.split(err.line, None)
        if not any(formats.header_name(f) for f in fields):
            return err
        problem = f"{err.problem} ({HEADER_HINT.format(role=self.role)})"
        return TrecFormatError(err.path, err.line_no, problem, err.line)

    def _slow_block(self, data: bytes, first_line: int, offset: int) -> tuple[pa.Table, np.ndarray]:
        """The careful reader: every line of the block checked, the first bad one raised."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line_start = data.rfind(b"\n", 0, err.start) + 1
            line_end = data.find(b"\n", err.start)
            raw = data[line_start : len(data) if line_end < 0 else line_end].rstrip(b"\r")
            moved = UnicodeDecodeError(
                err.encoding, raw, err.start - line_start, err.end - line_start, err.reason
            )
            line_no = first_line + data.count(b"\n", 0, err.start)
            raise utf8_error(self.name, line_no, raw, moved, offset + line_start) from None
        return slow_columns(text, first_line, self.layout, self.name, self.unread_rank)

    def records(self, compression: str | None, *, judgments_checked: bool = False) -> Records:
        """Everything fed so far as one table of the role's canonical columns; a qrels's
        judgments are checked for repeats unless `judgments_checked` (read back from
        lines an index checked: `qrels_blocks`)."""
        layout = self.layout or formats.detect(None, self.role)
        skipped = SkippedLines.joined(self.skipped)
        if self.tables:
            raw = combine(self.tables)
        else:  # no record: empty columns (`pa.nulls`: `pa.array([])` would load pandas)
            raw = pa.table(
                {
                    field_name(layout, i): (
                        as_arrow(np.zeros(0))
                        if column in ("rank", "score")
                        else pa.nulls(0, pa.string() if column == "docno" else LABEL)
                    )
                    for i, column in enumerate(layout.columns)
                }
            )
        subtopic = None
        if self.role == "qrels" and not judgments_checked:
            subtopic = check_unique_judgments(raw, layout, skipped, self.name)
        table = canonical(raw, layout, self.role, self.name)
        if subtopic is not None:
            table = table.append_column("subtopic", subtopic)
        unread = self.unread_rank[0] if self.unread_rank else None
        return Records(
            table, self.name, layout, skipped, compression, bom=self.bom, unread_rank=unread
        )
