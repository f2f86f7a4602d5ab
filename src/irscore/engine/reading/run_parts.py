"""A run file's records a block at a time, as raw fields with their line numbers, for
the readers that hold a block of topics rather than the file
(`irscore.engine.reading.topic_blocks`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from irscore.engine.reading import streams
from irscore.engine.reading.columns import combine
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
    (`irscore.engine.reading.topic_blocks`). Iterating raises `Structured` for JSON or Parquet."""

    def __init__(self, path: str | os.PathLike, fmt: str = "auto", size: int | None = None):
        self.path, self.fmt, self.size = path, fmt, size
        self.parser = Parser(streams.display_name(path), "run", fmt)
        self.compression: str | None = None
        self.other_lines = 0  # the lines without a record so far
        self.rows = 0  # the records so far
        self.first: pa.Table | None = None  # the first record, as raw fields
        self.last: pa.Table | None = None  # the last record so far, as raw fields

    def __iter__(self) -> Iterator[tuple[pa.Table, np.ndarray]]:
        parser = self.parser
        with line_blocks(self.path, lambda: parser.lines, self.size) as (
            blocks,
            compression,
            stream,
        ):
            self.compression = compression
            if self.fmt in ("auto", "json", "parquet"):
                from irscore.engine.reading import run_files

                structured = run_files.read(stream, parser.name, compression, self.fmt)
                if structured is not None:
                    raise Structured(structured)
            for block in blocks:
                before, known = parser.lines, len(parser.skipped)
                parser.feed(block)
                skipped = SkippedLines.joined(parser.skipped[known:])
                del parser.skipped[known:]
                self.other_lines += len(skipped)
                if not parser.tables:
                    continue
                raw = combine(parser.tables)
                self.rows += raw.num_rows
                if self.first is None:
                    self.first = raw.slice(0, 1)
                self.last = raw.slice(raw.num_rows - 1)
                lines = np.arange(before + 1, before + 1 + raw.num_rows + len(skipped))
                keep = np.ones(len(lines), dtype=bool)
                keep[skipped.lines() - before - 1] = False
                yield raw, lines[keep]

    def runid(self) -> str:
        """The tag of the run's last record (trec_eval's runid), once every block is read."""
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
        table = canonical(raw, parser.layout, "run", parser.name)
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
