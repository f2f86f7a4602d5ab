"""trec_eval's text of a run read a block of whole topics at a time
(`irscore.engine.reading.topic_blocks`), so that memory holds a block, not the run.

Each block is scored against its own topics' judgments, a chunk of topics at a time:
read back from the qrels file by topic when it is grouped by topic (`qrels_blocks`),
else taken from the qrels held whole. A chunk's per-topic lines go to one file, its values
(those the `all` lines need) to another, each topic's place noted. Once every
block is scored, the lines are read back in topic order (trec_eval's strcmp order:
a run grouped by topic may list them in any order) and the values added in that
order, so the `all` lines have the bits of one pass over the whole run. -c's
judged topics that no block names are scored last, as one more chunk.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import BinaryIO

import numpy as np

from irscore.cli import chunked
from irscore.engine.evaluate import (
    CHUNK_TOPICS,
    RunningMeans,
    TopicValues,
    add_notes,
    chunk_rows,
    topic_value_makers,
)
from irscore.engine.measures.registry import is_text
from irscore.engine.output import trec_eval_text
from irscore.engine.ranking.rank import Notes
from irscore.engine.reading import run_parts, topic_blocks, trec
from irscore.engine.reading.formats import Layout
from irscore.engine.reading.qrels_blocks import IndexedByTopic, QrelsIndex
from irscore.engine.reading.topic_blocks import QrelsByTopic
from irscore.engine.system import forked

BLOCK = topic_blocks.BLOCK  # bytes of run text per block
_READ = 1 << 20  # bytes of per-topic lines read back at a time
_ADDED = 1 << 12  # topics whose values are added to the means at a time


def run_text(
    qrels: trec.Records | QrelsIndex,
    path: str,
    c,
    g,
    args: argparse.Namespace,
    alone: bool,
) -> tuple[Iterator[bytes], Notes, str]:
    """(trec_eval's text of the run at `path` under one group of measures, the `Notes`,
    the runid), read a block of whole topics at a time (about `BLOCK` bytes of text, more
    for long lines: `topic_blocks.block_bytes`). A run grouped by topic is read once;
    one whose topics come back is read again through a spill to a private temporary
    folder (only the spill for a pipe). `alone`: this process has both cores to itself
    (it is no worker of several runs'), so a plain TREC file is read in two parts, the
    later one by a forked child (`_in_halves`), or, for another, each block's chunks
    are made on two threads."""
    by_topic = qrels.by_topic() if isinstance(qrels, QrelsIndex) else QrelsByTopic(qrels)
    spool = _Spool(c, g, args.q)
    size = topic_blocks.block_bytes(path, BLOCK)
    cut = topic_blocks.halfway(path, args.run_format) if alone and forked.possible() else None
    # Two processes that read a part each do it on one thread each: with two more
    # threads each, a 30M-line run took 18.3 s against 15.6 (six threads, two cores).
    on_threads = alone and cut is None

    def made(makers: list) -> Iterator[TopicValues]:
        return chunked.made_in_order(makers, on_threads)

    def score(block: trec.Records) -> None:
        rows = chunk_rows(block.table.num_rows)
        makers = topic_value_makers(by_topic.of(block), block, c, g.spec, rows, True, CHUNK_TOPICS)
        for part in made(makers):
            spool.put(part)

    def again() -> None:
        nonlocal spool
        spool.close()
        spool = _Spool(c, g, args.q)
        by_topic.seen[:] = False

    def child(files: tuple[BinaryIO, BinaryIO]) -> None:
        nonlocal spool
        spool = _Spool(c, g, args.q, files)

    try:
        read = None
        if cut is not None:
            read = _in_halves(
                path, args.run_format, size, cut, score, lambda: spool, child, by_topic
            )
            if read is None:
                again()
        if read is None:
            read = topic_blocks.read(path, args.run_format, size, score, again)
        parts, last = read
        from irscore.engine.ranking.input_checks import require_records

        require_records(parts.parser.name, "run", parts.rows, parts.other_lines)
        if parts.parser.bom:
            import sys

            from irscore.engine.ranking.input_checks import bom_note

            print(f"irscore: note: {bom_note(parts.parser.name)}", file=sys.stderr)
        for unseen in by_topic.unseen_blocks():  # -c's judged topics no block named
            if unseen.table.num_rows and last is not None:
                empty = topic_blocks.empty_like(last)
                for part in made(topic_value_makers(unseen, empty, c, g.spec, text=True)):
                    spool.put(part)
        runid = parts.runid()
        summary = chunked.summary_lines(g, spool.means(), runid, args)
    except BaseException:
        spool.close()
        raise
    return _chained(spool.text(), summary), spool.finished_notes(), runid


def _in_halves(
    path: str,
    fmt: str,
    size: int,
    cut: tuple[int, Layout],
    score: Callable[[trec.Records], None],
    spool: Callable[[], _Spool],
    child: Callable[[tuple[BinaryIO, BinaryIO]], None],
    by_topic: QrelsByTopic | IndexedByTopic,
) -> tuple[run_parts.RunParts, trec.Records | None] | None:
    """`topic_blocks.read` of a run grouped by topic on both cores: this process scores
    the blocks before the byte `cut` (a topic's first line) while a forked child scores
    the rest into a spool of its own (`child(files)` makes it `spool()`), which this one
    then takes in, with the qrels topics it saw. When the child fails (a bad line, a
    topic that comes back, killed), this process reads the rest itself, so an error is
    raised as one pass raises it. None when a topic comes back, in either part or in
    both: the caller starts again through the spill."""
    from irscore.engine.system.allocator import reused_between_blocks

    at, layout = cut
    parts = run_parts.RunParts(path, fmt, size)
    parts.window = (0, at)
    with (
        tempfile.TemporaryFile() as lines,  # the child's spool
        tempfile.TemporaryFile() as values,
        reused_between_blocks(),
    ):

        def work(which: int) -> object:
            """The first part here (its last block), or the rest in the child."""
            if which == 0:
                last = None
                for last in topic_blocks.grouped(parts):
                    score(last)
                return last
            child((lines, values))
            later = run_parts.RunParts.from_byte(path, fmt, size, at, layout)
            for block in topic_blocks.grouped(later):
                score(block)
            seen = np.flatnonzero(by_topic.seen).tolist()
            return spool().saved(), seen, later.rows, later.other_lines, later.runid()

        try:
            done = forked.on_two_cores(work, [0, 1])
        except topic_blocks.NotGrouped:
            return None
        if done is None:  # the child failed: the rest read here, in order
            return _rest_here(parts, at, score, spool)
        last, (saved, seen, rows, other_lines, runid) = done
        if not spool().take(saved, lines, values):  # a topic in both parts
            return None
    by_topic.seen[seen] = True
    parts.rows += rows
    parts.other_lines += other_lines
    if rows:
        parts.last_tag = runid
    return parts, last


def _rest_here(
    parts: run_parts.RunParts,
    at: int,
    score: Callable[[trec.Records], None],
    spool: Callable[[], _Spool],
) -> tuple[run_parts.RunParts, trec.Records | None] | None:
    """`_in_halves`' run read on from byte `at` in this process; None when a topic comes
    back (in the rest, or from the first part)."""
    before = len(spool().topics)
    parts.window = (at, None)
    last = None
    try:
        for last in topic_blocks.grouped(parts):
            score(last)
    except topic_blocks.NotGrouped:
        return None
    topics = spool().topics
    return (parts, last) if set(topics[:before]).isdisjoint(topics[before:]) else None


def _appended(target: BinaryIO, source: BinaryIO) -> int:
    """Copy every byte of `source` to the end of `target` (by the kernel where it copies
    between files, else through this process); where they begin there."""
    start = target.seek(0, os.SEEK_END)
    target.flush()
    end = source.seek(0, os.SEEK_END)
    try:
        at = 0
        while at < end:
            at += os.sendfile(target.fileno(), source.fileno(), at, end - at)
    except (AttributeError, OSError):  # no sendfile between files (macOS): copied here
        if at:
            raise
        source.seek(0)
        shutil.copyfileobj(source, target, _READ)
    target.seek(0, os.SEEK_END)
    return start


def _unlinked() -> BinaryIO:
    """A temporary file with no name: nothing is left behind, whatever happens."""
    return tempfile.TemporaryFile()


def _chained(*texts) -> Iterator[bytes]:
    """The texts one after the other."""
    for text in texts:
        yield from text


class _Spool:
    """Each chunk's per-topic lines and values, on disk until every block is scored (two
    unlinked temporary files: nothing is left behind), with each topic's place."""

    def __init__(self, c, g, per_topic: bool, files: tuple[BinaryIO, BinaryIO] | None = None):
        self.c, self.g, self.per_topic = c, g, per_topic
        # closed by text and means, or by close; a forked child's are its parent's
        self.lines, self.values = files or (_unlinked(), _unlinked())
        self.topics: list[str] = []
        self.line_at: list[np.ndarray] = []  # per chunk: each topic's lines' start and length
        self.value_at: list[np.ndarray] = []  # per chunk: each topic's values' start
        self.names: list[str] | None = None  # the measures added to the means, in order
        self.notes: Notes | None = None
        self.num_rel_all: float | None = None

    def put(self, part: TopicValues) -> None:
        """A chunk's lines and values written, its topics' places and notes kept."""
        topics = part.topics.tolist()
        n = len(topics)
        places = np.zeros((n, 2), dtype=np.int64)
        if self.per_topic and n:
            without_run = part.notes.qrels_topics_without_run
            printed = trec_eval_text.topics_printed(self.c, topics, without_run)
            text = b"".join(
                trec_eval_text.lines(
                    self.g.named(part.values),
                    part.topics,
                    {},
                    None,
                    True,
                    summary=False,
                    printed_topics=printed,
                )
            )
            shown = [i for i, t in enumerate(topics) if printed is None or t in printed]
            if text and shown:
                ends = np.flatnonzero(np.frombuffer(text, np.uint8) == 10) + 1
                per = len(ends) // len(shown)
                bounds = np.r_[0, ends[per - 1 :: per]]
                start = self.lines.seek(0, os.SEEK_END)
                places[shown, 0] = start + bounds[:-1]
                places[shown, 1] = np.diff(bounds)
                self.lines.write(text)
        if self.names is None:
            self.names = [name for name in part.values if not is_text(name)]
        matrix = np.empty((n, len(self.names) + 1), dtype=np.float64)
        for j, name in enumerate(self.names):
            matrix[:, j] = part.values[name]
        matrix[:, -1] = part.filled
        start = self.values.seek(0, os.SEEK_END)
        self.values.write(matrix.tobytes())
        self.value_at.append(start + np.arange(n, dtype=np.int64) * matrix.shape[1] * 8)
        self.line_at.append(places)
        self.topics += topics
        if part.num_rel_all is not None:
            self.num_rel_all = (self.num_rel_all or 0.0) + part.num_rel_all
        if self.notes is None:
            self.notes = part.notes
        else:
            add_notes(self.notes, part.notes)

    def saved(self) -> tuple:
        """What `take` needs of this spool, as plain data (its files flushed): a forked
        child's, for its parent."""
        self.lines.flush()
        self.values.flush()
        notes = dataclasses.asdict(self.notes) if self.notes is not None else None
        places = np.concatenate([np.zeros((0, 2), np.int64), *self.line_at]).tobytes()
        values = np.concatenate([np.zeros(0, np.int64), *self.value_at]).tobytes()
        return self.topics, places, values, self.names, notes, self.num_rel_all

    def take(self, saved: tuple, lines: BinaryIO, values: BinaryIO) -> bool:
        """Add a later part's spool (`saved`, its files) after this one's; False, adding
        nothing, when a topic is in both."""
        topics, places, at, names, notes, num_rel_all = saved
        if not set(self.topics).isdisjoint(topics):
            return False
        places = np.frombuffer(places, np.int64).reshape(-1, 2).copy()
        places[:, 0] += _appended(self.lines, lines)
        self.line_at.append(places)
        self.value_at.append(np.frombuffer(at, np.int64) + _appended(self.values, values))
        self.topics += topics
        self.names = self.names or names
        if num_rel_all is not None:
            self.num_rel_all = (self.num_rel_all or 0.0) + num_rel_all
        if notes is not None:
            if self.notes is None:
                self.notes = Notes(**notes)
            else:
                add_notes(self.notes, Notes(**notes))
        return True

    def _order(self) -> np.ndarray:
        """The topics' indices in byte order of their names (as trec_eval's strcmp)."""
        return np.array(sorted(range(len(self.topics)), key=self.topics.__getitem__), np.int64)

    def means(self) -> dict[str, float]:
        """The `all` values: every topic's values added in topic order."""
        means = RunningMeans(self.c)
        names = self.names or []
        width = (len(names) + 1) * 8
        empty = {name: np.zeros(0) for name in names}
        means.add(empty, np.zeros(0, dtype=bool), self.num_rel_all)
        at = np.concatenate([np.zeros(0, np.int64), *self.value_at])
        order = self._order()
        with self.values:
            self.values.flush()  # what is still buffered, before reading by descriptor
            fd = self.values.fileno()
            for first in range(0, len(order), _ADDED):
                rows = [os.pread(fd, width, int(at[i])) for i in order[first : first + _ADDED]]
                matrix = np.frombuffer(b"".join(rows), np.float64).reshape(-1, len(names) + 1)
                values = {name: matrix[:, j] for j, name in enumerate(names)}
                means.add(values, matrix[:, -1] != 0, None)
        return means.result()

    def text(self) -> Iterator[bytes]:
        """The per-topic lines in topic order, read back in blocks (the file is then
        closed, which removes it)."""
        places = np.concatenate([np.zeros((0, 2), np.int64), *self.line_at])
        order = self._order()
        with self.lines:
            self.lines.flush()
            fd = self.lines.fileno()
            start = length = 0
            for i in order.tolist():
                at, size = places[i]
                if not size:
                    continue
                if length and (at != start + length or length >= _READ):
                    yield os.pread(fd, int(length), int(start))
                    length = 0
                if not length:
                    start = at
                length += size
            if length:
                yield os.pread(fd, int(length), int(start))

    def finished_notes(self) -> Notes:
        """The chunks' notes, their topic lists in topic order as one pass gives them."""
        notes = self.notes or Notes()
        notes.run_topics_without_qrels.sort()
        notes.qrels_topics_without_run.sort()
        return notes

    def close(self) -> None:
        """Remove both files (an error, or the run is read again)."""
        self.lines.close()
        self.values.close()
