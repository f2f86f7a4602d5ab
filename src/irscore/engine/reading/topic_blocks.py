"""A run file read as blocks of whole topics, so that what is held is a block (and the
largest topic), never the file.

A run grouped by topic (each topic's lines together, the topics in any order) is
cut where a block's last topic begins: that topic goes on into the next block.
When a topic comes back after others, `NotGrouped` is raised; the caller then
reads the file again through `spilled`, which writes each block's rows into
buckets of whole topics (files in a private temporary folder, removed however the
read ends) and hands the buckets out one at a time. A bucket holds its topics'
rows in file order, so the readers' line numbers and `file_order` stay right.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import stat
import tempfile
from collections.abc import Callable, Iterator

import numpy as np
import pyarrow as pa

from irscore.engine.reading import formats, run_parts, trec
from irscore.engine.reading.columns import combine
from irscore.engine.reading.formats import Layout
from irscore.engine.system.arrays import as_arrow, numpy_view

BLOCK = 1 << 22  # bytes of run text per block: a quarter of the readers' (a lower peak)
# A short run line (MS MARCO v1's `102644 Q0 2566187 2 30.7974 bm25` and a newline: 34 bytes
# on average): a run of longer lines gets as many more bytes a block (`block_bytes`).
LINE = 36
TRIM_EVERY = 16  # blocks scored between two gives back of the heap's free pages
LONGEST = 4  # times BLOCK at most, whatever the lines' length
_HEAD = 1 << 16  # bytes of a run's beginning read to measure its lines
_MIDDLE = 1 << 20  # bytes past a run's middle where `halfway` looks for a topic's start
SPILL_BYTES = 1 << 24  # run text per bucket when spilling, unless the blocks are smaller
BUCKETS_UNSIZED = 256  # buckets for an input whose size is unknown (a pipe)
_LINE = "_line"  # a spilled row's line number, kept beside its fields


def block_bytes(path: str | os.PathLike, block: int | None = None) -> int:
    """`block` (default BLOCK) bytes of run text a block, or for a regular file of lines
    longer than `LINE` on average (its first `_HEAD` bytes tell), as many more as keep
    the lines of a block of short lines, at most `LONGEST` times as many bytes. A
    block's cost is mostly per line and per block (its chunks' measures), so blocks of
    fewer lines make the same run slower: MS MARCO v2's 55-byte lines took 1.25x the
    CPU time of the 34-byte lines of the same run with numeric docnos in blocks of
    4 MiB, 1.11x in blocks of 6 MiB."""
    from irscore.engine.reading import streams

    block = block or BLOCK
    if str(path) == "-":
        return block  # standard input: nothing may be read twice
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return block  # a pipe: nothing may be read twice
        with streams.open_input(path) as (stream, _):
            head = stream.read(_HEAD)
    except (OSError, EOFError, ValueError):  # the reader says what is wrong
        return block
    lines = head.count(b"\n")
    if lines == 0:
        return block
    mean = (head.rfind(b"\n") + 1) / lines
    return int(block * min(max(mean / LINE, 1.0), LONGEST))


def halfway(path: str | os.PathLike, fmt: str) -> tuple[int, Layout] | None:
    """Where a topic's first line is near the middle of an uncompressed regular file of
    plain TREC lines (`run_files.plain_trec`), and their layout: two processes can each
    read one part (`RunParts.from_byte`). None for any other input, or when no topic
    begins in the `_MIDDLE` bytes past the middle, or a line there is blank or a
    comment."""
    from irscore.engine.reading.run_files import plain_trec
    from irscore.engine.reading.streams import regular_file_size

    size = regular_file_size(path)
    if size is None:
        return None
    try:
        with open(path, "rb") as file:
            head = file.read(_HEAD)
            file.seek(size // 2)
            middle = file.read(_MIDDLE)
    except OSError:  # the reader says what is wrong
        return None
    if not plain_trec(head, fmt):
        return None
    layout = formats.TREC_RUN
    at = size // 2 + middle.find(b"\n") + 1
    topic = None
    for line in middle[middle.find(b"\n") + 1 :].split(b"\n")[:-1]:  # whole lines
        fields = line.split(None, 1)
        if not fields or fields[0].startswith(b"#"):
            return None
        if topic is not None and fields[0] != topic:
            return at, layout
        topic, at = fields[0], at + len(line) + 1
    return None


def read(
    path: str | os.PathLike,
    run_format: str,
    block: int,
    score: Callable[[trec.Records], None],
    again: Callable[[], None],
) -> tuple[run_parts.RunParts, trec.Records | None]:
    """The run at `path` handed to `score` a block of whole topics (about `block` bytes of
    text) at a time: read once when it is grouped by topic; when a topic comes back,
    `again()` (the caller drops what it scored) and read again through `spilled` (a
    pipe or standard input only so). The parts read (their counts, tag and parser)
    and the last block (None when there was none)."""
    from irscore.engine.reading.streams import regular_file_size
    from irscore.engine.system.allocator import reused_between_blocks

    size = regular_file_size(path) if str(path) != "-" else None
    with reused_between_blocks():
        if size is not None:
            parts = run_parts.RunParts(path, run_format, block)
            try:
                last = None
                for last in grouped(parts):
                    score(last)
                return parts, last
            except NotGrouped:
                again()
        parts, last = run_parts.RunParts(path, run_format, block), None
        for last in spilled(parts, size):
            score(last)
        return parts, last


def _trimmed(blocks_of: Callable[..., Iterator[trec.Records]]) -> Callable[..., Iterator]:
    """A block reader that gives the heap's free pages back after every `TRIM_EVERY`th
    block its caller has scored: blocks that reuse freed memory still leave some of it
    scattered, and a 30M-line run grew 38 MiB over a 3M-line one's peak (25 so
    trimmed)."""

    @functools.wraps(blocks_of)
    def trimmed(*args: object) -> Iterator[trec.Records]:
        from irscore.engine.system.allocator import give_back_freed_memory

        for n, block in enumerate(blocks_of(*args), 1):
            yield block
            if n % TRIM_EVERY == 0:
                give_back_freed_memory()

    return trimmed


class NotGrouped(Exception):
    """A topic came back after other topics: the run is not grouped by topic."""


@_trimmed
def grouped(parts: run_parts.RunParts) -> Iterator[trec.Records]:
    """The run's records in blocks of whole topics, in file order; raises `NotGrouped`
    at the first topic that comes back after others."""
    finished: set[str] = set()
    carry: list[tuple[pa.Table, np.ndarray]] = []  # the last topic so far, in pieces
    carried = None  # its label
    for raw, lines in parts:
        codes = numpy_view(raw["topic"].chunk(0).indices)
        labels = raw["topic"].chunk(0).dictionary
        starts = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]
        names = labels.take(as_arrow(codes[starts])).to_pylist()
        if len(set(names)) != len(names) or not finished.isdisjoint(names):
            raise NotGrouped
        if carried is not None and names[0] != carried:
            finished.add(carried)
            if carried in names:
                raise NotGrouped
        last = int(starts[-1])
        if last > 0 or names[0] != carried:  # the carried topic ends in this block
            body = [*carry, (raw.slice(0, last), lines[:last])] if last else carry
            if body:
                yield _block(parts, body)
            finished.update(names[:-1])
            carry = []
        carry.append((raw.slice(last), lines[last:]))
        carried = names[-1]
    if carry:
        yield _block(parts, carry)


def _block(parts: run_parts.RunParts, pieces: list[tuple[pa.Table, np.ndarray]]) -> trec.Records:
    """One block's Records from pieces of raw fields and their line numbers."""
    tables = [_single_chunks(raw) for raw, _ in pieces]
    lines = np.concatenate([lines for _, lines in pieces])
    raw = combine(tables, give_back=False) if len(tables) > 1 else tables[0]
    return parts.records(raw, lines)


def _single_chunks(raw: pa.Table) -> pa.Table:
    """A table whose every column is one chunk (a slice's may be none)."""
    return pa.table({name: _one(raw[name]) for name in raw.column_names})


def _one(column: pa.ChunkedArray) -> pa.Array:
    """A column as one array."""
    if column.num_chunks == 1:
        return column.chunk(0)
    return pa.concat_arrays(column.chunks) if column.num_chunks else pa.array([], column.type)


@_trimmed
def spilled(parts: run_parts.RunParts, size: int | None) -> Iterator[trec.Records]:
    """The run's records in buckets of whole topics (each topic's rows in file order),
    by way of files in a private temporary folder that is removed when the iteration
    ends, however it ends (an error, Ctrl-C, a termination signal). `size`: the
    input's bytes when known, to size the buckets (each about a block of the input)."""
    each = parts.size or SPILL_BYTES
    buckets = max(1, -(-size // each)) if size is not None else BUCKETS_UNSIZED
    with tempfile.TemporaryDirectory(prefix="irscore-spill-") as folder:
        writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        bucket_of: dict[str, int] = {}
        try:
            for raw, lines in parts:
                raw = _single_chunks(raw).append_column(_LINE, as_arrow(lines))
                topic = raw["topic"].chunk(0)
                names = topic.dictionary.to_pylist()
                local = np.array(
                    [bucket_of.setdefault(n, len(bucket_of) % buckets) for n in names],
                    dtype=np.int64,
                )
                row_bucket = local[numpy_view(topic.indices)]
                order = np.argsort(row_bucket, kind="stable")
                ends = np.searchsorted(row_bucket[order], np.arange(buckets + 1))
                for b in np.flatnonzero(np.diff(ends)).tolist():
                    rows = raw.take(as_arrow(order[ends[b] : ends[b + 1]]))
                    if b not in writers:
                        sink = pa.OSFile(os.path.join(folder, f"{b}.arrow"), "wb")
                        writers[b] = pa.ipc.new_stream(sink, rows.schema)
                    writers[b].write_table(rows)
        finally:
            for writer in writers.values():
                writer.close()
        for b in sorted(writers):
            path = os.path.join(folder, f"{b}.arrow")
            with pa.OSFile(path, "rb") as source:
                tables = [pa.Table.from_batches([batch]) for batch in pa.ipc.open_stream(source)]
            os.unlink(path)
            raw = combine(tables, give_back=False)
            lines = numpy_view(raw[_LINE].chunk(0))
            yield parts.records(raw.drop_columns([_LINE]), lines)


class QrelsByTopic:
    """The qrels, held whole, handed out topic by topic: each block of a run is scored
    against its own topics' judgments, and -c's judged topics the run never names are
    scored at the end (`unseen`)."""

    def __init__(self, qrels: trec.Records):
        self.qrels = qrels
        topic = qrels.table["topic"].chunk(0) if qrels.table.num_rows else None
        labels = topic.dictionary.to_pylist() if topic is not None else []
        self.code_of = {label: i for i, label in enumerate(labels)}
        codes = numpy_view(topic.indices) if topic is not None else np.zeros(0, np.int32)
        self.order = np.argsort(codes, kind="stable").astype(np.int64)
        counts = np.bincount(codes, minlength=len(labels)) if len(codes) else np.zeros(0, int)
        self.starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
        self.seen = np.zeros(len(labels), dtype=bool)

    def of(self, run: trec.Records) -> trec.Records:
        """The judgments of the topics the block `run` names (marked as seen)."""
        topic = run.table["topic"].chunk(0)
        present = np.unique(numpy_view(topic.indices))
        names = topic.dictionary.take(as_arrow(present)).to_pylist()
        codes = [self.code_of[n] for n in names if n in self.code_of]
        self.seen[codes] = True
        return self._rows(np.array(codes, dtype=np.int64))

    def unseen(self) -> trec.Records:
        """The judgments of the topics no block named."""
        return self._rows(np.flatnonzero(~self.seen))

    def unseen_blocks(self) -> Iterator[trec.Records]:
        """`unseen` as one block (they are held: `qrels_blocks` reads them in blocks)."""
        yield self.unseen()

    def _rows(self, codes: np.ndarray) -> trec.Records:
        """The qrels rows of these topic codes, in file order."""
        pieces = [self.order[self.starts[k] : self.starts[k + 1]] for k in codes.tolist()]
        rows = np.sort(np.concatenate(pieces)) if pieces else np.zeros(0, np.int64)
        return dataclasses.replace(self.qrels, table=self.qrels.table.take(as_arrow(rows)))


def empty_like(run: trec.Records) -> trec.Records:
    """`run` without its rows (the stand-in run of -c's judged topics no block named)."""
    return dataclasses.replace(run, table=run.table.slice(0, 0))
