"""How the API reads what is too large to hold: `irscore.evaluate` and
`irscore.iter_evaluate` read a large run file a block of whole topics at a time (a run
not grouped by topic through buckets of whole topics in a private temporary folder), and
`iter_evaluate` an iterable of results or of DataFrames topic by topic. What is held is
a block, the qrels and (for `evaluate`) the per-topic values; `evaluate` reads its runs
one at a time, each scored before the next is read."""

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
    from irscore.engine.reading import trec

    if not isinstance(run, str | os.PathLike) or not isinstance(qrels, trec.Records):
        return False
    return large(run) and "subtopic" not in qrels.table.column_names


def large(path: str | os.PathLike) -> bool:
    """True for a file larger than `STREAM_FROM`, or not a regular file (a pipe)."""
    from irscore.engine.reading.streams import regular_file_size

    if not os.path.exists(path):
        return False  # its error comes from the readers
    size = regular_file_size(path)
    return size is None or size > STREAM_FROM


def spilled_file(qrels, path, rows: int, scored) -> Iterator:
    """`iter_evaluate` of a large run file: its topics spilled into buckets of whole
    topics (a private temporary folder, removed however the iteration ends), each
    scored against its topics' judgments as it is read back, about `rows` results
    at a time; -c's judged topics no bucket names, at the end. What is held is a
    bucket and the qrels."""
    from irscore.engine.ranking.input_checks import require_records
    from irscore.engine.ranking.prepare import chunk_makers
    from irscore.engine.reading import run_parts, topic_blocks
    from irscore.engine.reading.streams import regular_file_size

    by_topic = topic_blocks.QrelsByTopic(qrels)
    parts = run_parts.RunParts(path, "auto", topic_blocks.block_bytes(path))
    size = regular_file_size(path)
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


def listed(runs: Any) -> list[tuple[str | None, Any, bool]]:
    """`evaluate`'s runs as (name, run, read), none read yet; a lone run's name is None
    (its first line's tag once read, or `run`, as `runs_input` names it)."""
    from irscore.engine.arguments import is_named_runs

    if is_named_runs(runs):
        return [(str(name), run, False) for name, run in runs.items()]
    return [(None, runs, False)]


def read(name: str | None, run: Any) -> tuple[str, Any, bool]:
    """A run read whole as `evaluate` scores it (a file as `trec.Records`), named."""
    from irscore.engine.arguments import run_input

    records = run_input(run, "run" if name is None else name, True)
    return _named(name, records), records, True


def _named(name: str | None, run: Any) -> str:
    """A run's name: the one given, else its first line's tag, else `run`."""
    from irscore.engine.arguments import tags_of

    return name if name is not None else (tags_of(run) or ["run"])[0]


def evaluated(qrels, name: str | None, run: Any, done: bool, plans: list) -> tuple:
    """(name, source, long tables) of one run (`done`: read already), a table for each
    plan (conventions, measure spec) as `irscore.engine.evaluate.evaluate` gives it: a
    run file larger than `STREAM_FROM` (or a pipe) read a block of whole topics at a
    time, any other run whole; the same values, topic order and `all` values either way."""
    from irscore.engine.arguments import source_of
    from irscore.engine.evaluate import evaluate, grid_table
    from irscore.engine.reading import trec

    if not done and streams(qrels, run):
        found = _scored_file(qrels, run, plans)
        if not isinstance(found, trec.Records):
            tag, source, parts = found
            name = name if name is not None else tag if tag is not None else "run"
            tables = [grid_table(name, g, p) for (g, _), p in zip(plans, parts, strict=True)]
            return name, source, tables
        run = checked(found, "run")  # JSON or Parquet: read whole
        name = _named(name, run)
    elif not done:
        name, run, _ = read(name, run)
    tables = [evaluate(qrels, run, grid, spec, name) for grid, spec in plans]
    return name, source_of(run, name), tables


def _scored_file(qrels, path, plans: list):
    """(the run's first tag, its name in messages, per plan per convention its values in
    chunks of topics in topic order) of a large run file, read a block of whole topics
    at a time (`topic_blocks.read`): each block scored against its topics' judgments, a
    chunk of topics at a time, under every plan's conventions (a chunk prepared once
    for all); -c's judged topics that no block names, last; then every convention's
    values put in topic order. A run in JSON or Parquet: its records, read whole."""
    import warnings

    from irscore.engine.evaluate import chunk_rows, topic_values
    from irscore.engine.ranking.input_checks import bom_note, require_records
    from irscore.engine.ranking.prepare import chunk_makers
    from irscore.engine.ranking.rank import ranking_key
    from irscore.engine.reading import run_parts, topic_blocks

    by_topic = topic_blocks.QrelsByTopic(qrels)
    flat = [(c, spec) for grid, spec in plans for c in grid]
    keys = [ranking_key(c) for c, _ in flat]
    last_use = {key: k for k, key in enumerate(keys)}
    found: list[list] = [[] for _ in flat]

    def score(qrels, run, rows: int | None) -> None:
        for make in chunk_makers(qrels, run, rows):
            p = make()
            for k, (c, spec) in enumerate(flat):
                found[k].append(topic_values(p, c, spec))
                if last_use[keys[k]] == k:  # no later convention shares this ranking: free it
                    del p.rankings[keys[k]]

    def block(run) -> None:
        if any(c.tie_break == "rank" for c, _ in flat):
            run.check_ranks()
        score(by_topic.of(run), run, chunk_rows(run.table.num_rows))

    def again() -> None:
        for values in found:
            values.clear()
        by_topic.seen[:] = False

    try:
        parts, last = topic_blocks.read(path, "auto", topic_blocks.block_bytes(path), block, again)
    except run_parts.Structured as structured:
        return structured.records
    require_records(parts.parser.name, "run", parts.rows, parts.other_lines)
    if parts.parser.bom:
        warnings.warn(bom_note(parts.parser.name), stacklevel=3)
    unseen = by_topic.unseen()
    if unseen.table.num_rows and last is not None:
        score(unseen, topic_blocks.empty_like(last), None)
    ordered = iter([_in_topic_order(values) for values in found])
    per_plan = [[next(ordered) for _ in grid] for grid, _ in plans]
    return parts.first_tag(), parts.parser.name, per_plan


def _in_topic_order(parts: list) -> list:
    """Chunks' `TopicValues` of distinct topics as one, its topics in byte order (as
    trec_eval's strcmp and the whole read order them), the notes' topic lists too."""
    import numpy as np

    from irscore.engine.evaluate import TopicValues, add_notes

    topics = np.concatenate([part.topics for part in parts])
    order = np.argsort(topics, kind="stable")
    notes = parts[0].notes
    for part in parts[1:]:
        add_notes(notes, part.notes)
    notes.run_topics_without_qrels.sort()
    notes.qrels_topics_without_run.sort()
    values = {
        name: np.concatenate([part.values.pop(name) for part in parts])[order]
        for name in list(parts[0].values)
    }
    filled = np.concatenate([part.filled for part in parts])[order]
    rel = [part.num_rel_all for part in parts]
    num_rel_all = None if rel[0] is None else sum(rel)
    return [TopicValues(values, topics[order], filled, num_rel_all, notes)]
