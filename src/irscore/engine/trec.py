"""Strict readers and writers for qrels and run files.

A malformed line is never skipped: it raises `TrecFormatError` naming the
file, the line number, the problem and the line itself. Blank lines and lines
whose first non-blank character is `#` are comments. Topic ids and docnos stay
strings. Each input is read once, block by block (`irscore.engine.streams`: files,
`-`, pipes, gzip/bzip2/xz by content); a block goes through Arrow's
multi-threaded CSV parser, comment lines cut out first, and only a block that
Arrow refuses (or whose values fail a check) goes to the line-by-line reader,
which is the authority on what is valid and produces the exact error.
"""

from __future__ import annotations

import contextlib
import json
import lzma
import math
import os
import re
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from irscore.engine import errors, formats, streams
from irscore.engine.errors import InputError
from irscore.engine.formats import Layout

if TYPE_CHECKING:  # pandas loads in `Records.frame`: `irscore evaluate` needs no DataFrame
    import pandas as pd

QRELS_COLUMNS = ["topic", "docno", "grade"]
RUN_COLUMNS = ["topic", "docno", "rank", "score", "tag"]

_GRADE = re.compile(r"[+-]?[0-9]{1,15}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LABEL = pa.dictionary(pa.int32(), pa.string())
_BOM = b"\xef\xbb\xbf"
_CONTROL = re.compile(r"[\x00-\x1f]")  # no id holds one: trec_eval's C strings end at NUL
HEADER_HINT = (
    "a header line? TREC files have none: remove it or start it with #, "
    "or name the format with --{role}-format csv|tsv"
)


class TrecFormatError(InputError):
    """A qrels or run file that does not parse; names file, line and problem (the line
    quoted, cut to `errors.SHOWN` characters)."""

    def __init__(self, path: str | os.PathLike, line_no: int, problem: str, line: str = ""):
        self.path = str(path)
        self.line_no = line_no
        self.problem = problem
        self.line = line
        where = f"{self.path}:{line_no}" if line_no else self.path
        quoted = f": {errors.shown(line)!r}" if line else ""
        super().__init__(f"{where}: {problem}{quoted}")


@dataclass
class Records:
    """A parsed file: one row per data line. Topics and tags are dictionary-encoded (the
    narrowest integer codes), a run's docnos plain strings, its ranks int32 when they
    fit, else float64 whole numbers (`frame` gives int64).

    `skipped` holds the line numbers of lines without a record (blank lines,
    comments, a header), so a row's line number costs nothing until asked.
    `unread_rank`: the line number and text of the first line whose rank is not a
    whole number (trec_eval never reads the rank; such ranks are 0 here), or None.
    """

    table: pa.Table
    source: str
    layout: Layout
    skipped: np.ndarray
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
        return line_of(self.skipped, row)

    def describe(self) -> str:
        """What was read, for --verbose."""
        packed = f", {self.compression}-compressed" if self.compression else ""
        return f"{self.source}: {self.layout.describe()}{packed}, {self.table.num_rows} records"

    def frame(self) -> pd.DataFrame:
        """The records as a DataFrame (topics, docnos and tags as categoricals)."""
        table = self.table
        if "docno" in table.column_names and not pa.types.is_dictionary(table["docno"].type):
            docnos = pc.dictionary_encode(table["docno"])
            table = table.set_column(table.column_names.index("docno"), "docno", docnos)
        if "rank" in table.column_names:
            rank = pc.cast(table["rank"], pa.int64())
            table = table.set_column(table.column_names.index("rank"), "rank", rank)
        frame = table.to_pandas()
        frame.attrs.update(source=self.source, skipped=self.skipped, bom=self.bom)
        return frame


def line_of(skipped: np.ndarray, row: int) -> int:
    """The line number of record `row` (0-based) of a file whose lines `skipped` hold none."""
    before = np.asarray(skipped, dtype=np.int64) - np.arange(1, len(skipped) + 1)
    return row + 1 + int(np.searchsorted(before, row, side="right"))


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
    """Parse a whole input block by block into the role's canonical columns."""
    parser = _Parser(streams.display_name(path), role, fmt)
    with _blocks(path, lambda: parser.lines) as (blocks, compression):
        for block in blocks:
            parser.feed(block)
    return parser.records(compression)


def data_lines(path: str | os.PathLike) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, fields split on whitespace) of each data line of a small
    input (preferences, judgment groups, z-scores), read as qrels and runs are: any
    compression, a byte order mark skipped, lines bounded; blank and `#` lines
    skipped, bytes that are not UTF-8 an error naming the line."""
    name, line_no, position = streams.display_name(path), 0, 0
    with _blocks(path, lambda: line_no) as (blocks, _):
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
                    raise _utf8_error(name, line_no, raw, err, position) from None
                position += len(raw) + 1
                fields = formats.split(line, None)
                if fields and not fields[0].startswith("#"):
                    yield line_no, line, fields


@contextlib.contextmanager
def _blocks(
    path: str | os.PathLike, lines: Callable[[], int]
) -> Iterator[tuple[Iterator[bytes], str | None]]:
    """An input's blocks of whole lines and its compression; reading faults become
    one-line errors naming the input (`lines()` counts the lines already read, to name
    a line longer than the limit)."""
    name = streams.display_name(path)
    limit = streams.max_line()
    try:
        with streams.open_input(path) as (stream, compression):
            try:
                yield streams.blocks(stream, limit=limit), compression
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


class _Parser:
    """Turns blocks of whole lines into Arrow tables of raw fields, remembering skipped lines."""

    def __init__(self, name: str, role: str, fmt: str):
        self.name, self.role, self.fmt = name, role, fmt
        self.layout: Layout | None = None
        self.lines = 0  # lines before the current block
        self.offset = 0  # bytes before the current block
        self.skipped: list[np.ndarray] = []
        self.tables: list[pa.Table] = []
        self.unread_rank: list[tuple[int, str]] = []  # the first line whose rank is no number
        self.bom = False
        self.first_record = 0  # the line number of the first record, once known

    def feed(self, block: bytes) -> None:
        """Parse one block of whole lines."""
        start = len(_BOM) if self.offset == 0 and block.startswith(_BOM) else 0
        self.bom = self.bom or start > 0
        if self.layout is None:
            start = self._detect(block, start)
        newlines = None  # the block's, counted only when the fast path has not
        if self.layout is not None and start < len(block):
            data = block[start:] if start else block
            before = block.count(b"\n", 0, start)
            first_line = self.lines + 1 + before
            fast = _fast_columns(data, self.layout, self.role == "run")
            if fast is None:
                try:
                    table, skipped = self._slow_block(data, first_line, self.offset + start)
                except TrecFormatError as err:
                    raise self._with_header_hint(err) from None
            else:
                table, skipped, lines = fast
                skipped = skipped + first_line
                newlines = before + lines - (not block.endswith(b"\n"))
            if self.role == "run":  # the Q0 column, checked, is not kept
                table = table.drop_columns([c for c in table.column_names if c.startswith("_")])
                table = _narrowed(_plain_docnos(table))
            self.tables.append(table)
            self.skipped.append(skipped)
        self.lines += block.count(b"\n") if newlines is None else newlines
        self.offset += len(block)

    def _detect(self, block: bytes, position: int) -> int:
        """Fix the layout from the first data line; returns where the records start
        (after a header line, which counts as skipped)."""
        line_no = self.lines
        while position < len(block):
            end = block.find(b"\n", position)
            end = len(block) if end < 0 else end + 1
            line_no += 1
            raw = block[position:end].rstrip(b"\r\n")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise _utf8_error(self.name, line_no, raw, err, self.offset + position) from None
            stripped = text.strip(" \t\r\f\v")
            if not stripped or stripped.startswith("#"):
                self.skipped.append(np.array([line_no], dtype=np.int64))
                position = end
                continue
            try:
                self.layout = formats.detect(text, self.role, self.fmt)
            except formats.FormatError as err:
                raise TrecFormatError(self.name, line_no, str(err), text) from None
            if self.layout.header:
                self.skipped.append(np.array([line_no], dtype=np.int64))
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
            raise _utf8_error(self.name, line_no, raw, moved, offset + line_start) from None
        return _slow_columns(text, first_line, self.layout, self.name, self.unread_rank)

    def records(self, compression: str | None) -> Records:
        """Everything fed so far as one table of the role's canonical columns."""
        layout = self.layout or formats.detect(None, self.role)
        skipped = np.sort(np.concatenate([np.zeros(0, np.int64), *self.skipped]))
        if self.tables:
            raw = _combine(self.tables)
        else:
            raw = pa.table(
                {
                    _field(layout, i): (
                        _arrow(np.zeros(0)) if column in ("rank", "score") else pa.array([], _LABEL)
                    )
                    for i, column in enumerate(layout.columns)
                }
            )
        if self.role == "qrels":
            _check_unique_judgments(raw, layout, skipped, self.name)
        table = _canonical(raw, layout, self.role, self.name)
        unread = self.unread_rank[0] if self.unread_rank else None
        return Records(
            table, self.name, layout, skipped, compression, bom=self.bom, unread_rank=unread
        )


def _plain_docnos(table: pa.Table) -> pa.Table:
    """A run's docnos as plain strings: `evaluate.prepare` sorts them per topic, and
    hashing a million mostly distinct docnos into a dictionary would cost more."""
    column = table["docno"]
    if not pa.types.is_dictionary(column.type):
        return table
    plain = pa.chunked_array([c.dictionary.take(c.indices) for c in column.chunks], pa.string())
    return table.set_column(table.column_names.index("docno"), "docno", plain)


def _narrowed(table: pa.Table) -> pa.Table:
    """A block's run columns in fewer bytes while the blocks wait to be combined: ranks
    as int32 when they all fit, dictionary codes in the narrowest integer type that
    numbers every chunk's dictionary (one type for the column: Arrow's chunks of one
    column must share it, and a block's chunks have dictionaries of different sizes)."""
    columns = {}
    for name in table.column_names:
        chunks = table[name].chunks
        if chunks and pa.types.is_dictionary(chunks[0].type):
            code = _code_type(max(len(c.dictionary) for c in chunks))
            chunks = [
                pa.DictionaryArray.from_arrays(
                    _arrow(numpy_view(c.indices).astype(code)), c.dictionary
                )
                for c in chunks
            ]
        elif chunks and name == "rank" and pa.types.is_floating(chunks[0].type):
            narrowed = [_narrow_whole(numpy_view(c)) for c in chunks]
            if all(v.dtype == np.int32 for v in narrowed):
                chunks = [_arrow(v) for v in narrowed]
        columns[name] = pa.chunked_array(chunks) if chunks else table[name]
    return pa.table(columns)


def _combine(tables: list[pa.Table]) -> pa.Table:
    """One table of single chunks from the blocks' tables, emptying `tables`.

    Dictionary columns are recoded into one dictionary (a hash pass over the
    blocks' distinct labels, not their rows) with the narrowest integer codes
    (a run's tag: one byte a line), strings and numbers concatenated,
    column by column, each block's column freed once copied: the peak is the
    blocks plus one column, not two copies of everything.
    """
    names = tables[0].column_names
    pending = {name: [chunk for t in tables for chunk in t[name].chunks] for name in names}
    tables.clear()
    columns = {}
    for name in names:
        chunks = pending.pop(name)
        if pa.types.is_string(chunks[0].type) or pa.types.is_large_string(chunks[0].type):
            columns[name] = _concat_strings(chunks)
            continue
        if not pa.types.is_dictionary(chunks[0].type):
            dtype = np.result_type(*(numpy_view(c).dtype for c in chunks))
            values = np.empty(sum(len(c) for c in chunks), dtype=dtype)
            row = 0
            while chunks:
                chunk = numpy_view(chunks.pop(0))
                values[row : row + len(chunk)] = chunk
                row += len(chunk)
            columns[name] = _arrow(values)
            continue
        union = pc.dictionary_encode(pa.concat_arrays([c.dictionary for c in chunks]))
        recode = numpy_view(union.indices)
        codes = np.empty(sum(len(c) for c in chunks), dtype=_code_type(len(union.dictionary)))
        row = offset = 0
        while chunks:
            chunk = chunks.pop(0)
            local = recode[offset : offset + len(chunk.dictionary)]
            codes[row : row + len(chunk)] = local[numpy_view(chunk.indices)]
            row, offset = row + len(chunk), offset + len(chunk.dictionary)
        columns[name] = pa.DictionaryArray.from_arrays(_arrow(codes), union.dictionary)
    return pa.table(columns)


def _code_type(labels: int) -> type:
    """The narrowest signed integer type that numbers `labels` labels."""
    for dtype in (np.int8, np.int16, np.int32):
        if labels <= np.iinfo(dtype).max + 1:
            return dtype
    return np.int64


def _concat_strings(chunks: list[pa.Array]) -> pa.Array:
    """One string array from the blocks' (64-bit offsets past 2 GiB of text)."""
    size = sum(c.buffers()[2].size if c.buffers()[2] else 0 for c in chunks)
    if size >= 2**31 - 1:
        chunks = [c.cast(pa.large_string()) for c in chunks]
    out = pa.concat_arrays(chunks) if chunks else pa.array([], pa.string())
    chunks.clear()
    return out


def _field(layout: Layout, i: int) -> str:
    """The Arrow column name of field i: its canonical name, or `_i` when it is ignored."""
    return layout.columns[i] or f"_{i}"


def _fast_columns(
    data: bytes, layout: Layout, run_docnos: bool = False
) -> tuple[pa.Table, np.ndarray, int] | None:
    """Arrow's parser on a block of lines whose fields are split by single delimiters;
    comment lines cut out first. Returns the raw table, the 0-based indices of lines
    without a record and the number of lines, or None when anything needs the careful
    reader."""
    if b"\x0b" in data or b"\x0c" in data:
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    delimiter = layout.delimiter
    if delimiter is None:
        delimiter = " "
        if b"\t" in data:
            if b" " in data:
                return None
            delimiter = "\t"
    elif b" " in data or b'"' in data:
        return None  # CSV/TSV fields are trimmed of spaces and unquoted by the careful reader
    original = data
    data, comments = _cut_comments(data)
    names = [_field(layout, i) for i in range(len(layout.columns))]
    types = {name: _LABEL for name in names}
    types.update({c: pa.float64() for c in ("rank", "score") if c in names})
    types.update({name: pa.string() for name in names if name[0] == "_"})  # only checked
    if run_docnos:  # plain strings: no hash per row
        types["docno"] = pa.string()
    try:
        table = pa_csv.read_csv(
            pa.BufferReader(data),  # zero-copy: a file object would copy every byte
            read_options=pa_csv.ReadOptions(column_names=names, block_size=streams.PIECE),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types=types,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if not _plausible(table):
        return None
    lines = original.count(b"\n") + (not original.endswith(b"\n"))
    if table.num_rows + len(comments) == lines:
        return table, np.array(comments, dtype=np.int64), lines
    # Some lines were blank: find them (in the block as it was, comments and all).
    blanks = _blank_lines(original)
    return table, np.array(sorted(comments + blanks), dtype=np.int64), lines


def _cut_comments(data: bytes) -> tuple[bytes, list[int]]:
    """The block without its comment lines (first byte `#`), and their 0-based line
    indices. A scan for the rare `#` byte: nothing to do in most files."""
    found, starts = data.find(b"#"), []
    while found >= 0:
        if found == 0 or data[found - 1] == 10:  # a `#` that starts a line
            starts.append(found)
        found = data.find(b"#", found + 1)
    if not starts:
        return data, []
    indices, pieces, line, counted, kept = [], [], 0, 0, 0
    for start in starts:
        line += data.count(b"\n", counted, start)
        counted = start
        indices.append(line)
        end = data.find(b"\n", start)
        pieces.append(data[kept:start])
        kept = len(data) if end < 0 else end + 1
    pieces.append(data[kept:])
    return b"".join(pieces), indices


def _blank_lines(data: bytes) -> list[int]:
    """The 0-based indices of a block's blank lines (`\\n` or `\\r\\n` alone): Arrow skips them."""
    starts = [0] if data[:1] == b"\n" or data.startswith(b"\r\n") else []
    for pattern in (b"\n\n", b"\n\r\n"):
        found = data.find(pattern)
        while found >= 0:
            starts.append(found + 1)
            found = data.find(pattern, found + 1)
    starts.sort()
    indices, line, counted = [], 0, 0
    for start in starts:
        line += data.count(b"\n", counted, start)
        counted = start
        indices.append(line)
    return indices


def _plausible(table: pa.Table) -> bool:
    """True when no field is empty and every number is finite (rank: whole) and every
    grade an integer of at most 15 digits: the careful reader would accept every line."""
    for name in table.column_names:
        for chunk in table[name].chunks:
            if pa.types.is_string(chunk.type):
                if len(chunk) and pc.min(pc.binary_length(chunk)).as_py() == 0:
                    return False
                if name[0] != "_" and _has_control(chunk):
                    return False
                continue
            if pa.types.is_dictionary(chunk.type):
                labels = chunk.dictionary
                if pc.min(pc.binary_length(labels)).as_py() == 0:  # an empty field
                    return False
                if name[0] != "_" and _has_control(labels):
                    return False
                if name == "grade" and not all(_GRADE.fullmatch(g) for g in labels.to_pylist()):
                    return False
                continue
            if chunk.null_count or not np.isfinite(values := numpy_view(chunk)).all():
                return False
            if name == "rank" and not _whole(values):
                return False
    return True


def _has_control(strings: pa.Array) -> bool:
    """True when a string holds a control character (below U+0020): the smallest byte
    of all the strings' bytes (which hold no line ends), one vectorised pass."""
    data = strings.buffers()[2]
    return data is not None and data.size > 0 and int(np.frombuffer(data, np.uint8).min()) < 32


def _whole(values: np.ndarray) -> bool:
    """True when every value is a whole number that int64 holds exactly."""
    return bool(((np.floor(values) == values) & (np.abs(values) < 2.0**53)).all())


def _slow_columns(
    text: str, first_line: int, layout: Layout, name: str, unread_rank: list | None = None
) -> tuple[pa.Table, np.ndarray]:
    """Split and check every line; raise at the first bad one. A rank that is not a whole
    number is read as 0 and its line kept in `unread_rank` (when given, and the lines
    have scores): nothing else reads the rank but tie-break `rank`, which refuses it
    (`Records.check_ranks`)."""
    width = len(layout.columns)
    columns: list[list] = [[] for _ in range(width)]
    checks = [_CHECKS.get(c) for c in layout.columns]
    if "score" not in layout.columns:  # the ranks are the order: each must be read
        unread_rank = None
    skipped = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for index, raw in enumerate(lines):
        line = raw.rstrip("\r")
        fields = formats.split(line, layout.delimiter)
        if not "".join(fields).strip(" \t\r\f\v") or fields[0].lstrip(" \t\f\v").startswith("#"):
            skipped.append(first_line + index)
            continue
        if len(fields) > width and layout.extra_fields:
            fields = fields[:width]
        if len(fields) != width:
            raise TrecFormatError(
                name, first_line + index, f"expected {width} columns, found {len(fields)}", line
            )
        for i, (column, check, value) in enumerate(zip(columns, checks, fields, strict=True)):
            problem = check(value) if check else (None if value else "a field is empty")
            if problem and check is _check_rank and unread_rank is not None:
                if not unread_rank:
                    unread_rank.append((first_line + index, line))
                value, problem = "0", None
            if not problem and layout.columns[i] and (control := _CONTROL.search(value)):
                problem = (
                    f"{layout.columns[i]} {errors.shown(value)!r} holds the control character "
                    f"U+{ord(control.group()):04X}"
                )
            if problem:
                raise TrecFormatError(name, first_line + index, problem, line)
            column.append(value)
    table = pa.table(
        {
            _field(layout, i): (
                pa.array([float(v) for v in values], pa.float64())
                if layout.columns[i] in ("rank", "score")
                else pa.array(values, pa.string()).dictionary_encode()
            )
            for i, values in enumerate(columns)
        }
    )
    return table, np.array(skipped, dtype=np.int64)


def _check_grade(value: str) -> str | None:
    if not _GRADE.fullmatch(value):
        return f"grade {errors.shown(value)!r} is not an integer of at most 15 digits"
    return None


def _is_whole(value: float) -> bool:
    return math.isfinite(value) and value.is_integer() and abs(value) < 2.0**53


def _check_rank(value: str) -> str | None:
    if not _DECIMAL.fullmatch(value) or not _is_whole(float(value)):
        return f"rank {errors.shown(value)!r} is not a whole number"
    return None


def _check_score(value: str) -> str | None:
    if not _DECIMAL.fullmatch(value):
        return f"score {errors.shown(value)!r} is not a finite decimal number"
    if not math.isfinite(float(value)):
        return f"score {errors.shown(value)!r} is not a finite number"
    return None


_CHECKS = {"grade": _check_grade, "rank": _check_rank, "score": _check_score}


def _utf8_error(
    name: str, line_no: int, raw: bytes, err: UnicodeDecodeError, offset: int
) -> TrecFormatError:
    """Bytes that are not UTF-8: the line, the bad byte and its offset in the file,
    and the start of the line with the bad bytes escaped (never a dump)."""
    bad = raw[err.start : err.start + 1].hex()
    problem = (
        f"not valid UTF-8: byte 0x{bad} at byte offset {offset + err.start} "
        f"(column {err.start + 1})"
    )
    shown = raw[:80].decode("utf-8", "backslashreplace") + ("..." if len(raw) > 80 else "")
    return TrecFormatError(name, line_no, problem, shown)


def _labels(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """The int32 codes and the labels of a single-chunk dictionary column."""
    array = column.chunk(0)
    return numpy_view(array.indices), array.dictionary.to_pylist()


def _check_unique_judgments(raw: pa.Table, layout: Layout, skipped: np.ndarray, name: str) -> None:
    """A docno judged twice for one topic is an error naming the second judgment's line."""
    if raw.num_rows < 2:
        return
    topic = numpy_view(raw["topic"].chunk(0).indices).astype(np.int64)
    doc = numpy_view(raw["docno"].chunk(0).indices).astype(np.int64)
    key = topic * max(len(raw["docno"].chunk(0).dictionary), 1) + doc
    order = np.argsort(key, kind="stable")
    repeat = key[order][1:] == key[order][:-1]
    if not repeat.any():
        return
    row = int(order[1:][repeat].min())
    first = int(order[np.flatnonzero(key[order] == key[row])[0]])
    fields = [str(raw[_field(layout, i)][row]) for i in range(len(layout.columns))]
    line = (layout.delimiter or " ").join(fields)
    topic_name, docno = fields[layout.columns.index("topic")], fields[layout.columns.index("docno")]
    raise TrecFormatError(
        name,
        line_of(skipped, row),
        f"document {docno} is judged twice for topic {topic_name} "
        f"(first on line {line_of(skipped, first)})",
        line,
    )


def _canonical(raw: pa.Table, layout: Layout, role: str, name: str) -> pa.Table:
    """The role's columns from the raw fields: grades as int64; a run's missing rank,
    score or tag made up (rank: file order within the topic; score: -rank; tag: file name)."""
    n = raw.num_rows
    if role == "qrels":
        codes, labels = _labels(raw["grade"]) if n else (np.zeros(0, np.int32), [])
        grade = np.array([int(g) for g in labels], dtype=np.int64)[codes] if n else codes
        return pa.table(
            {"topic": raw["topic"], "docno": raw["docno"], "grade": _arrow(grade.astype(np.int64))}
        )
    names = set(raw.column_names)
    if "rank" in names:  # whole numbers, checked, narrowed block by block (`_narrowed`)
        rank = numpy_view(raw["rank"].chunk(0))
    else:
        rank = _position_in_topic(raw["topic"]) + 1
    score = numpy_view(raw["score"].chunk(0)) if "score" in names else -rank.astype(np.float64)
    if "tag" in names:
        tag = raw["tag"]
    else:
        label = _tag_of(name).encode()
        dictionary = pa.Array.from_buffers(
            pa.string(),
            1,
            [None, pa.py_buffer(np.array([0, len(label)], np.int32)), pa.py_buffer(label)],
        )
        tag = pa.DictionaryArray.from_arrays(_arrow(np.zeros(n, np.int8)), dictionary)
    return pa.table(
        {
            "topic": raw["topic"],
            "docno": raw["docno"],
            "rank": _arrow(rank),
            "score": _arrow(np.asarray(score, np.float64)),
            "tag": tag,
        }
    )


def _narrow_whole(values: np.ndarray) -> np.ndarray:
    """Whole numbers as int32 when they all fit (half the memory of the float64 read),
    else as they are."""
    if values.dtype.kind == "f" and (
        len(values) == 0 or (values.min() >= -(2**31) and values.max() < 2**31)
    ):
        return values.astype(np.int32)
    return values


_NUMPY_TYPES = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64}
_NUMPY_TYPES |= {"uint64": np.uint64, "double": np.float64}


def numpy_view(array: pa.Array) -> np.ndarray:
    """A numeric Arrow array without nulls as a read-only numpy view (pyarrow's own
    `to_numpy` loads pandas, which `irscore evaluate` does not need)."""
    dtype = np.dtype(_NUMPY_TYPES[str(array.type)])
    data = array.buffers()[1]
    if data is None:
        return np.zeros(0, dtype)
    return np.frombuffer(data, dtype, count=len(array), offset=array.offset * dtype.itemsize)


def numpy_view_offsets(strings: pa.Array) -> np.ndarray:
    """The offsets of a string array (len + 1 of them, int32 or int64) as a numpy view."""
    kind = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    buffer = strings.buffers()[1]
    if buffer is None:
        return np.zeros(1, kind)
    return np.frombuffer(buffer, kind, len(strings) + 1, strings.offset * np.dtype(kind).itemsize)


def one_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """An Arrow array as one contiguous array (a chunked one's chunks combined)."""
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _arrow(values: np.ndarray) -> pa.Array:
    """A numpy array of numbers as an Arrow array, without a copy (and unlike
    `pa.array`, without loading pandas, which `irscore evaluate` does not need)."""
    values = np.ascontiguousarray(values)
    buffers = [None, pa.py_buffer(values)]
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), buffers)


def _position_in_topic(topic: pa.ChunkedArray) -> np.ndarray:
    """Each row's 0-based position among its topic's rows, in file order."""
    if len(topic) == 0:
        return np.zeros(0, np.int64)
    codes = numpy_view(topic.chunk(0).indices).astype(np.int64)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1]
    position = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    out = np.empty(len(codes), np.int64)
    out[order] = position
    return out


def _tag_of(name: str) -> str:
    """A run's tag when the file has none: its file name without the format's suffixes."""
    stem = Path(name).name
    for suffix in (".gz", ".bz2", ".xz", ".csv", ".tsv", ".txt", ".run", ".list"):
        stem = stem.removesuffix(suffix)
    return stem or "run"
