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
import os
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
from irscore.engine.reading import topic_blocks, trec
from irscore.engine.reading.qrels_blocks import QrelsIndex
from irscore.engine.reading.topic_blocks import QrelsByTopic

BLOCK = topic_blocks.BLOCK  # bytes of run text per block
_READ = 1 << 20  # bytes of per-topic lines read back at a time
_ADDED = 1 << 12  # topics whose values are added to the means at a time


def run_text(
    qrels: trec.Records | QrelsIndex,
    path: str,
    c,
    g,
    args: argparse.Namespace,
    made: Callable[[list], Iterator[TopicValues]],
) -> tuple[Iterator[bytes], Notes, str]:
    """(trec_eval's text of the run at `path` under one group of measures, the `Notes`,
    the runid), read a block of whole topics at a time (about `BLOCK` bytes of text, more
    for long lines: `topic_blocks.block_bytes`). A run grouped by topic is read once;
    one whose topics come back is read again through a spill to a private temporary
    folder (only the spill for a pipe). `made` gives the values of a block's chunk
    makers, in order."""
    by_topic = qrels.by_topic() if isinstance(qrels, QrelsIndex) else QrelsByTopic(qrels)
    spool = _Spool(c, g, args.q)

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

    try:
        size = topic_blocks.block_bytes(path, BLOCK)
        parts, last = topic_blocks.read(path, args.run_format, size, score, again)
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


def _chained(*texts) -> Iterator[bytes]:
    """The texts one after the other."""
    for text in texts:
        yield from text


class _Spool:
    """Each chunk's per-topic lines and values, on disk until every block is scored (two
    unlinked temporary files: nothing is left behind), with each topic's place."""

    def __init__(self, c, g, per_topic: bool):
        self.c, self.g, self.per_topic = c, g, per_topic
        self.lines: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 (closed by text/close)
        self.values: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 (closed by means/close)
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
