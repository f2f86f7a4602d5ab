"""trec_eval's text of a run held whole, scored a chunk of topics at a time: each chunk's
per-topic lines spooled to a temporary file and only the running means kept, the
chunks made on two threads or halved between two processes (`halves`)."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterable, Iterator
from typing import BinaryIO


def text(qrels, run, c, g, args: argparse.Namespace, runid: str, both_cores: bool = False) -> tuple:
    """(trec_eval's text of one run under one group of measures, the `Notes`), scored a
    chunk of topics at a time (`CHUNK_TOPICS` topics at most). With several chunks, each
    chunk's per-topic lines go to a spool file as it is scored and only the running
    means are kept, so a run of 100,000 topics holds one chunk's values, not every
    topic's; the text is read back once every chunk is scored, so an error leaves
    nothing half-printed. A run of one chunk is formatted as it is written. With
    `both_cores`, a forked child scores the later half of the chunks (`halves`), or,
    where there is no fork, two threads make the chunks."""

    from irscore.cli import halves
    from irscore.engine.evaluate import (
        CHUNK_TOPICS,
        RunningMeans,
        add_notes,
        chunk_rows,
        topic_value_makers,
    )

    rows, topics = chunk_rows(run.table.num_rows), CHUNK_TOPICS
    if both_cores:  # two chunks in flight, each smaller: the peak of one alone (measured)
        rows, topics = chunk_rows(run.table.num_rows, halves=True), max(CHUNK_TOPICS // 4, 1)
    makers = topic_value_makers(qrels, run, c, g.spec, rows, text=True, topics=topics)
    means, notes, body = RunningMeans(c), None, []
    spool = None
    if len(makers) > 1:
        import tempfile

        spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed by read_back, or below)

    def lines(part) -> Iterable[bytes]:
        """The chunk's per-topic lines (none without -q)."""
        return topic_lines(
            part.values, part.topics, part.notes.qrels_topics_without_run, c, g, args
        )

    def add(values, filled, num_rel_all, more) -> None:
        """A chunk's values added to the means, and its notes to the notes, in order."""
        nonlocal notes
        means.add(values, filled, num_rel_all)
        if notes is None:
            notes = more
        else:
            add_notes(notes, more)

    def take(part) -> None:
        """A chunk scored here: its lines written to the spool (kept, for one chunk, to
        be formatted as they are written), its values and notes added."""
        if spool is None:
            body.append(lines(part))
        else:
            spool.writelines(lines(part))
        add(part.values, part.filled, part.num_rel_all, part.notes)

    theirs = None  # a child's lines, read after the spool's (`halves`)
    try:
        if both_cores and halves.possible(len(makers)):
            theirs = halves.scored(makers, take, lines, add)
        else:
            for part in made_in_order(makers, both_cores):
                take(part)
    except BaseException:
        if spool is not None:
            spool.close()
        raise
    summary = summary_lines(g, means.result(), runid, args)
    text = read_back(spool) if spool is not None else itertools.chain.from_iterable(body)
    if theirs is not None:
        text = itertools.chain(text, read_back(theirs))
    return itertools.chain(text, summary), notes


def topic_lines(
    values: dict, topics, without_run: list[str], c, g, args: argparse.Namespace
) -> Iterable[bytes]:
    """trec_eval's per-topic lines of some topics' values (none without -q); under trec_eval
    9's -c, none for the topics `without_run` (their values only count in the means)."""
    from irscore.engine.output import trec_eval_text

    if not args.q:
        return ()
    printed = trec_eval_text.topics_printed(c, topics.tolist(), without_run)
    return trec_eval_text.lines(
        g.named(values), topics, {}, None, True, summary=False, printed_topics=printed
    )


def made_in_order(makers: list, on_threads: bool) -> Iterator:
    """Each maker's result, in order; `on_threads`, the next two chunks are made on two
    threads while this one formats the last: their joins and measures are Arrow's and
    numpy's work, which lets go of the GIL for long stretches."""
    if not on_threads or len(makers) < 2:
        for make in makers:
            yield make()
        return
    from irscore.engine.system import threads

    with threads.pool(2) as pool:
        pending = [pool.submit(make) for make in makers[:2]]
        try:
            for make in makers[2:]:
                done = pending.pop(0).result()
                pending.append(pool.submit(make))
                yield done
            for future in pending:
                yield future.result()
        finally:
            for future in pending:
                future.cancel()


def read_back(spool: BinaryIO) -> Iterator[bytes]:
    """What was written to `spool`, in blocks, once it is all written (the file is then
    closed, which removes it)."""
    with spool:
        spool.seek(0)
        while block := spool.read(1 << 20):
            yield block


def summary_lines(g, means: dict, runid: str, args: argparse.Namespace) -> Iterable[bytes]:
    """trec_eval's `all` lines of one group of measures: the means, the runid line when
    asked for, the summary counts unless -n."""
    import numpy as np

    from irscore.engine.output import trec_eval_text

    return trec_eval_text.lines(
        {},
        np.array([], dtype=str),
        g.named(means),
        runid if "runid" in g.spec.families else None,
        per_topic=False,
        summary=not args.n,
    )
