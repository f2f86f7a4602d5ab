"""A run's (or a qrels's) records a block at a time, as raw fields with their line
numbers, for the readers that hold a block of topics rather than the file
(`irscore.engine.reading.topic_blocks`, `irscore.engine.reading.qrels_blocks`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from irscore.engine.reading import streams
from irscore.engine.reading.columns import combine
from irscore.engine.reading.formats import Layout
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.reading.trec import Parser, Records, canonical, line_blocks


class Structured(Exception):
    """A run in JSON or Parquet, read whole (`records`): it has no lines to stream."""

    def __init__(self, records: Records):
        super().__init__(records.source)
        self.records = records


class RunParts:
    """A run file's records block by block, each as its raw fields (one chunk a column)
    and each record's line number, so a reader can hold a block, not the file
    (`irscore.engine.reading.topic_blocks`). Iterating raises `Structured` for JSON or
    Parquet. `role` "qrels" reads a qrels so; `spans` keeps, for the block last
    yielded, each record's line's first byte and the byte after it (`spans_of`)."""

    def __init__(
        self,
        path: str | os.PathLike,
        fmt: str = "auto",
        size: int | None = None,
        role: str = "run",
        spans: bool = False,
    ):
        self.path, self.fmt, self.size, self.role = path, fmt, size, role
        self.parser = Parser(streams.display_name(path), role, fmt)
        self.compression: str | None = None
        self.other_lines = 0  # the lines without a record so far
        self.rows = 0  # the records so far
        self.first: pa.Table | None = None  # the first record, as raw fields
        self.last: pa.Table | None = None  # the last record so far, as raw fields
        self.with_spans = spans
        self.spans_of: tuple[np.ndarray, np.ndarray] | None = None  # the last block's
        # the bytes read by the next iteration, from the first up to the second (None: the
        # end): an uncompressed TREC file read in two parts (`from_byte`)
        self.window: tuple[int, int | None] | None = None
        self.last_tag: str | None = None  # the last record's tag, when a later part read it

    @classmethod
    def from_byte(
        cls, path: str | os.PathLike, fmt: str, size: int | None, start: int, layout: Layout
    ) -> RunParts:
        """The records of a plain TREC run from byte `start` (a line's first) to its end, in
        the `layout` its first line has. Their line numbers count from `start`: only an
        error names a line, and a part's errors are raised by reading it again after
        what comes before it (`irscore.cli.streamed`)."""
        parts = cls(path, fmt, size)
        parts.window = (start, None)
        parts.parser.layout, parts.parser.offset = layout, start
        return parts

    def __iter__(self) -> Iterator[tuple[pa.Table, np.ndarray]]:
        parser = self.parser
        with line_blocks(self.path, lambda: parser.lines, self.size, self.window) as (
            blocks,
            compression,
            stream,
        ):
            self.compression = compression
            later = self.window is not None and self.window[0] > 0  # plain text: no peek
            if self.role == "run" and self.fmt in ("auto", "json", "parquet") and not later:
                from irscore.engine.reading import run_files

                structured = run_files.read(stream, parser.name, compression, self.fmt)
                if structured is not None:
                    raise Structured(structured)
            for block in blocks:
                before, known, offset = parser.lines, len(parser.skipped), parser.offset
                parser.feed(block)
                skipped = SkippedLines.joined(parser.skipped[known:])
                del parser.skipped[known:]
                self.other_lines += len(skipped)
                if not parser.tables:
                    continue
                raw = combine(parser.tables)
                if not raw.num_rows:  # a block of comments only
                    continue
                self.rows += raw.num_rows
                if self.first is None:
                    self.first = raw.slice(0, 1)
                self.last = raw.slice(raw.num_rows - 1)
                lines = np.arange(before + 1, before + 1 + raw.num_rows + len(skipped))
                keep = np.ones(len(lines), dtype=bool)
                keep[skipped.lines() - before - 1] = False
                if self.with_spans:
                    self.spans_of = _spans(block, offset, lines[keep] - before)
                yield raw, lines[keep]

    def runid(self) -> str:
        """The tag of the run's last record (trec_eval's runid), once every block is read."""
        if self.last_tag is not None:
            return self.last_tag
        return self._tag(self.last) or ""

    def first_tag(self) -> str | None:
        """The tag of the run's first record (the API names a lone run by it), if any."""
        return self._tag(self.first)

    def _tag(self, record: pa.Table | None) -> str | None:
        """The tag of one record's raw fields."""
        if record is None:
            return None
        return canonical(record, self.parser.layout, "run", self.parser.name)["tag"][0].as_py()

    def records(self, raw: pa.Table, lines: np.ndarray) -> Records:
        """Records of raw fields (whole topics, for a layout that numbers ranks itself)
        whose records sit on `lines` (ascending)."""
        parser = self.parser
        table = canonical(raw, parser.layout, self.role, parser.name)
        unread = parser.unread_rank[0] if parser.unread_rank else None
        return Records(
            table,
            parser.name,
            parser.layout,
            SkippedLines.between(lines),
            self.compression,
            bom=parser.bom,
            unread_rank=unread,
        )


def _spans(block: bytes, offset: int, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first byte of each of the block's `lines` (1-based within the block) and the
    byte after its line end, in the file (the block starts at byte `offset`)."""
    ends = np.r_[np.flatnonzero(np.frombuffer(block, np.uint8) == 10) + 1, len(block)]
    starts = np.r_[0, ends]
    return offset + starts[lines - 1], offset + ends[lines - 1]
