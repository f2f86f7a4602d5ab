"""A qrels file grouped by topic, held as where each topic's lines are rather than as its
records, so that a run read a block of topics at a time (`irscore.cli.streamed`) holds
a block's judgments, never the file's.

`indexed` reads the file once, a block at a time, with the whole-file reader's checks
(a bad line, a document judged twice for a topic), noting each topic's bytes; each
block of the run then reads its topics' judgments again from those bytes. A qrels that
is compressed, not grouped by topic, or has a second column that varies (subtopics)
is read whole instead (`indexed` gives None).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from irscore.engine.reading import run_parts, trec
from irscore.engine.reading.columns import check_unique_judgments, combine, field_name, one_array
from irscore.engine.reading.formats import Layout
from irscore.engine.reading.skipped_lines import SkippedLines
from irscore.engine.system.arrays import as_arrow, numpy_view

BLOCK = 1 << 22  # bytes of qrels text read at a time, and most read again at a time


@dataclasses.dataclass(frozen=True, eq=False)
class QrelsIndex:
    """Each topic's bytes in a qrels file grouped by topic: topic i's lines (with any
    blank or comment lines among them) are bytes starts[i] to ends[i]."""

    path: str
    source: str
    layout: Layout
    code_of: dict[str, int]
    starts: np.ndarray
    ends: np.ndarray
    bom: bool

    def by_topic(self) -> IndexedByTopic:
        """A fresh hand-out of the judgments, topic by topic, for one read of a run."""
        return IndexedByTopic(self)


class NotIndexed(Exception):
    """The qrels cannot be read back by topic: they are read whole."""


def indexed(path: str, fmt: str = "auto") -> QrelsIndex | None:
    """The index of an uncompressed qrels file grouped by topic whose second column
    holds one value, its lines checked as the whole-file reader checks them; None for
    any other qrels (read whole), or an empty one (whose error the reader gives)."""
    parts = run_parts.RunParts(path, fmt, BLOCK, role="qrels", spans=True)
    try:
        starts, ends, code_of = _index(parts)
    except NotIndexed:
        return None
    if not parts.rows:
        return None
    return QrelsIndex(
        str(path),
        parts.parser.name,
        parts.parser.layout,
        code_of,
        np.array(starts, np.int64),
        np.array(ends, np.int64),
        parts.parser.bom,
    )


def _index(parts: run_parts.RunParts) -> tuple[list[int], list[int], dict[str, int]]:
    """Each topic's first byte and the byte after its last line, and each topic's
    number; raises `NotIndexed` for a qrels that is not read back by topic."""
    starts: list[int] = []
    ends: list[int] = []
    code_of: dict[str, int] = {}
    second: set[str] = set()  # the values of the second column (TREC's iteration)
    carry: list[tuple[pa.Table, np.ndarray]] = []  # the last topic so far, in pieces
    carried = None
    for raw, lines in parts:
        before = carried
        if parts.compression is not None:
            raise NotIndexed
        layout = parts.parser.layout
        if layout.name == "trec":
            second.update(one_array(raw[field_name(layout, 1)]).dictionary.to_pylist())
            if len(second) > 1:
                raise NotIndexed
        codes = numpy_view(raw["topic"].chunk(0).indices)
        first = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]
        last = np.r_[first[1:], len(codes)] - 1
        names = raw["topic"].chunk(0).dictionary.take(as_arrow(codes[first])).to_pylist()
        begin, end = parts.spans_of
        for name, a, b in zip(names, first.tolist(), last.tolist(), strict=True):
            if name == carried:
                ends[-1] = int(end[b])
                continue
            if name in code_of:
                raise NotIndexed
            code_of[name] = len(starts)
            starts.append(int(begin[a]))
            ends.append(int(end[b]))
            carried = name
        cut = int(first[-1])
        if cut > 0 or names[0] != before:  # the carried topic ends in this block
            body = [*carry, (raw.slice(0, cut), lines[:cut])] if cut else carry
            if body:
                _check(parts, body)
            carry = []
        carry.append((raw.slice(cut), lines[cut:]))
    if carry:
        _check(parts, carry)
    return starts, ends, code_of


def _check(parts: run_parts.RunParts, pieces: list[tuple[pa.Table, np.ndarray]]) -> None:
    """A block of whole topics checked as the whole-file reader checks a qrels: a
    document judged twice for a topic is an error naming its line."""
    raw = combine([table for table, _ in pieces], give_back=False)
    lines = np.concatenate([lines for _, lines in pieces])
    parser = parts.parser
    check_unique_judgments(raw, parser.layout, SkippedLines.between(lines), parser.name)


class IndexedByTopic:
    """The judgments of an indexed qrels handed out topic by topic, read from the file
    again: each block of a run gets its own topics' (`of`), and -c's judged topics the
    run never names come at the end, a block at a time (`unseen_blocks`)."""

    def __init__(self, index: QrelsIndex):
        self.index = index
        self.seen = np.zeros(len(index.starts), dtype=bool)

    def of(self, run: trec.Records) -> trec.Records:
        """The judgments of the topics the block `run` names (marked as seen)."""
        topic = run.table["topic"].chunk(0)
        # counted, not sorted: np.unique over a block's 58k rows took ~1.3 ms
        present = np.flatnonzero(np.bincount(numpy_view(topic.indices), minlength=1))
        names = topic.dictionary.take(as_arrow(present)).to_pylist()
        code_of = self.index.code_of
        codes = np.array([code_of[n] for n in names if n in code_of], dtype=np.int64)
        self.seen[codes] = True
        return self._read(codes)

    def unseen_blocks(self) -> Iterator[trec.Records]:
        """The judgments of the topics no block named, about `BLOCK` bytes at a time."""
        codes = np.flatnonzero(~self.seen)
        sizes = np.cumsum(self.index.ends[codes] - self.index.starts[codes])
        cuts = np.searchsorted(sizes, np.arange(BLOCK, int(sizes[-1]), BLOCK)) if len(codes) else []
        for part in np.split(codes, cuts):
            if len(part):
                yield self._read(part)

    def _read(self, codes: np.ndarray) -> trec.Records:
        """The judgments of these topics, read from the file, in file order."""
        index = self.index
        parser = trec.Parser(index.source, "qrels", "auto")
        parser.layout = index.layout
        # in file order: only the file's last line may have no line end, and it comes last
        starts, ends = np.sort(index.starts[codes]), np.sort(index.ends[codes])
        if len(codes):
            with open(index.path, "rb") as source:
                fd = source.fileno()
                text = b"".join(
                    os.pread(fd, int(e - s), int(s))
                    for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
                )
            parser.feed(text)
        return parser.records(None, judgments_checked=True)  # `_index` checked each topic
