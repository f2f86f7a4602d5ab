"""How `irscore.iter_evaluate` reads what is too large to hold: a large run file a block
of whole topics at a time (spilled into buckets of whole topics in a private temporary
folder), and an iterable of results or of DataFrames topic by topic. Each part is
scored by the caller's `scored`, so what is held is a block and the qrels."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from irscore.engine.arguments import checked
from irscore.engine.ranking.conventions import Convention

# From this size on, `iter_evaluate` reads a run file a block of whole topics at a time.
STREAM_FROM = 64 << 20


def streams(qrels: Any, run: Any) -> bool:
    """True for a run file larger than `STREAM_FROM` (or not a regular file) beside a
    qrels file without subtopics: read a block of whole topics at a time."""
    import stat

    from irscore.engine.reading import trec

    if not isinstance(run, str | os.PathLike) or not isinstance(qrels, trec.Records):
        return False
    try:
        info = os.stat(run)
    except OSError:
        return False  # its error comes from the readers
    large = not stat.S_ISREG(info.st_mode) or info.st_size > STREAM_FROM
    return large and "subtopic" not in qrels.table.column_names


def spilled_file(qrels, path, rows: int, scored) -> Iterator:
    """`iter_evaluate` of a large run file: its topics spilled into buckets of whole
    topics (a private temporary folder, removed however the iteration ends), each
    scored against its topics' judgments as it is read back, about `rows` results
    at a time; -c's judged topics no bucket names, at the end. What is held is a
    bucket and the qrels."""
    import stat

    from irscore.engine.ranking.input_checks import require_records
    from irscore.engine.ranking.prepare import chunk_makers
    from irscore.engine.reading import run_parts, topic_blocks

    by_topic = topic_blocks.QrelsByTopic(qrels)
    parts = run_parts.RunParts(path, "auto", topic_blocks.block_bytes(path))
    info = os.stat(path)
    size = info.st_size if stat.S_ISREG(info.st_mode) else None
    last = None
    try:
        for block in topic_blocks.spilled(parts, size):
            for make in chunk_makers(by_topic.of(block), block, rows):
                yield from scored(make())
            last = block
    except run_parts.Structured as structured:  # JSON or Parquet: read whole
        records = checked(structured.records, "run")
        for make in chunk_makers(qrels, records, rows):
            yield from scored(make())
        return
    require_records(parts.parser.name, "run", parts.rows, parts.other_lines)
    unseen = by_topic.unseen()
    if unseen.table.num_rows and last is not None:
        for make in chunk_makers(unseen, topic_blocks.empty_like(last), None):
            yield from scored(make())


def results(run: Iterable) -> Iterator:
    """The results of an iterable of tuples, or of DataFrames (a reader's chunks, as
    `pandas.read_csv(..., chunksize=n)` gives them: each read as `evaluate` reads a
    run frame), one (qid, docno, score) at a time."""
    import pandas as pd

    from irscore.engine.reading.inputs import run_frame

    for item in run:
        if isinstance(item, pd.DataFrame):
            frame = run_frame(item, "results")
            yield from zip(
                frame["topic"].astype(str), frame["docno"].astype(str), frame["score"], strict=True
            )
        else:
            yield item


def is_stream(run: Any) -> bool:
    """True for an iterable of results (not a path, a DataFrame or a dict run)."""
    import pandas as pd

    return not isinstance(run, str | os.PathLike | pd.DataFrame | Mapping) and isinstance(
        run, Iterable
    )


def streamed(qrels, results, c: Convention, rows: int, scored) -> Iterator:
    """`iter_evaluate` of an iterable of (qid, docno, score): chunks of whole topics, each
    scored against its topics' judgments; -c's judged topics never seen, at the end."""
    import pandas as pd

    from irscore.engine.ranking.prepare import prepare
    from irscore.engine.reading.errors import InputError
    from irscore.engine.reading.inputs import qrels_frame, run_frame

    judged = qrels_frame(qrels) if not isinstance(qrels, pd.DataFrame) else qrels
    judged_topics = judged["topic"].astype(str)
    seen: set[str] = set()
    chunk: list[tuple[str, str, float]] = []
    current = None

    def flush() -> Iterator:
        frame = run_frame(pd.DataFrame(chunk, columns=["topic", "docno", "score"]), "results")
        topics = set(frame["topic"].astype(str))
        part = judged[judged_topics.isin(topics).to_numpy()]
        seen.update(topics)
        chunk.clear()
        if len(part):  # a chunk of topics without judgments scores nothing
            yield from scored(prepare(part, frame))

    for row, result in enumerate(results):
        fields = tuple(result) if isinstance(result, Iterable) else ()
        if len(fields) != 3:
            raise InputError(f"results row {row}: expected (qid, docno, score), got {result!r}")
        topic = str(fields[0])
        if topic != current:
            if topic in seen:
                raise InputError(
                    f"results row {row}: topic {topic} comes again after other topics "
                    "(iter_evaluate reads results topic by topic)"
                )
            if len(chunk) >= rows:
                yield from flush()
            if current is not None:
                seen.add(current)
            current = topic
        chunk.append((topic, str(fields[1]), fields[2]))
    if chunk:
        yield from flush()
    if c.complete:
        unseen = judged[~judged_topics.isin(seen).to_numpy()]
        if len(unseen):
            empty = run_frame(pd.DataFrame(columns=["topic", "docno", "score"]), "results")
            yield from scored(prepare(unseen, empty))
