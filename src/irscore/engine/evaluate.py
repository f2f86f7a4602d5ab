"""(qrels, run, conventions, measures) -> one long table of per-topic and mean values.

The run and qrels are prepared once (`irscore.engine.ranking.prepare`); each convention
then only re-sorts integer keys (`irscore.engine.ranking.rank`), cuts, filters and calls
the vectorised measures, so a grid of conventions shares the parsing and the
joins. The table's layout and files are `irscore.engine.output.long_table`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from irscore.engine import measures
from irscore.engine.measures import Context, MeasureSpec, Ranking
from irscore.engine.output.long_table import concat_long, long_table, run_tag
from irscore.engine.ranking.conventions import REFERENCE, Convention
from irscore.engine.ranking.prepare import Frame, Prepared, chunk_makers
from irscore.engine.ranking.rank import Notes, grades_under, rank, ranking_key, without_results
from irscore.engine.reading import trec
from irscore.engine.system import arrays

if TYPE_CHECKING:  # pandas loads where a DataFrame is made: `irscore evaluate` needs none
    import pandas as pd


CHUNK_ROWS = 1 << 16  # run rows per chunk of topics in `evaluate_records` at least,
CHUNKS = 64  # and at most this many chunks: a run not grouped by topic is scanned for each
CHUNK_TOPICS = 1 << 13  # topics per chunk at most where a caller writes each chunk's values
THREADED_ROWS = 1 << 18  # from this many run rows, `evaluate` scores two halves on two threads


def _missing_values(
    p: Prepared, c: Convention, spec: MeasureSpec, missing: np.ndarray, names: list[str]
) -> dict[str, np.ndarray]:
    """The per-topic values of -c's topics without results: 0 (num_q 1, num_rel their
    relevant judgments; an empty text) as trec_eval 9 counts them, or trec_eval 10's
    stand-in ranking."""
    if c.missing_topics == "evaluated":
        context = Context(c.interpolation, c.mistake, c.gmax, c.gain)
        ranking = without_results(p, c, missing)
        fills, _ = measures.compute(ranking, spec, context, c.ties, text=True)
        return {  # the diversity measures: 0 (nothing retrieved covers a subtopic)
            name: fills[name]
            if name in fills and not _cleared_by_trec_eval10(name)
            else _blank(name, len(missing))
            for name in names
        }
    q_grade, _ = grades_under(p, c.grades)
    relevant = np.bincount(p.qrels_topic[q_grade >= max(c.rel_level, 0)], minlength=len(p.topics))
    fills = {name: _blank(name, len(missing)) for name in names}
    if "num_q" in fills:
        fills["num_q"] = np.ones(len(missing))
    if "num_rel" in fills:
        fills["num_rel"] = relevant[missing].astype(np.float64)
    return fills


def _cleared_by_trec_eval10(name: str) -> bool:
    """The values trec_eval 10 resets (to 0, relstring to '') after scoring its stand-in
    document, by exact name as trec_eval.c compares them: `utility_1,-1,0,0` and
    `relstring_5` keep their values."""
    return name in ("num_ret", "utility", "rbp_resid", "relstring") or name.startswith("unj")


def _blank(name: str, n: int) -> np.ndarray:
    """`n` topics' value of a measure before anything is counted: 0, or the empty text."""
    if measures.registry.is_text(name):
        return np.full(n, "", dtype=object)
    return np.zeros(n)


@dataclass
class TopicValues:
    """One convention's per-topic values for some topics (in topic order), before the means."""

    values: dict[str, np.ndarray]
    topics: np.ndarray
    filled: np.ndarray  # True for a -c topic without results: its values are fills
    num_rel_all: float | None  # -c: the grade > 0 judgments of these topics' qrels
    notes: Notes
    codes: np.ndarray | None = None  # the topics' codes in the `Prepared` (`many_runs`)


def evaluate_one(
    p: Prepared, c: Convention, spec: MeasureSpec, text: bool = False
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """Per-topic values {measure: array}, the topic names, the `all` values, and notes.
    `text`: the text measures too (relstring, arrays of str without an `all` value),
    for trec_eval's text layout; otherwise they are noted as not computed."""
    return merged([topic_values(p, c, spec, text)], c)


def evaluate_records(
    qrels: Frame,
    run: Frame,
    c: Convention,
    spec: MeasureSpec,
    rows: int | None = None,
    text: bool = False,
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """`evaluate_one(prepare(qrels, run), c, spec, text)` in chunks of topics of about `rows`
    run rows (by default `CHUNK_ROWS`, or a `CHUNKS`th of a longer run): what is built
    per row then lives for one chunk, so a run needs little more memory than its records."""
    return merged([make() for make in topic_value_makers(qrels, run, c, spec, rows, text)], c)


def topic_value_makers(
    qrels: Frame,
    run: Frame,
    c: Convention,
    spec: MeasureSpec,
    rows: int | None = None,
    text: bool = False,
    topics: int | None = None,
) -> list[Callable[[], TopicValues]]:
    """Functions that each give the per-topic values of one chunk of consecutive topics
    of about `rows` run rows (by default `CHUNK_ROWS`, or a `CHUNKS`th of a longer run)
    and at most `topics` topics, in topic order: for a caller that writes each chunk's
    values and keeps only their `RunningMeans`. Each chunk's `Prepared` is freed once
    its values are made."""
    _check_ranks(run, [c])
    if rows is None:
        rows = chunk_rows(run.table.num_rows if isinstance(run, trec.Records) else len(run))
    return [
        partial(lambda make: topic_values(make(), c, spec, text), make)
        for make in chunk_makers(qrels, run, rows, topics)
    ]


def chunk_rows(length: int, halves: bool = False) -> int:
    """The run rows of a chunk of topics for a run of `length` rows: `CHUNK_ROWS`, or a
    `CHUNKS`th of a longer run; with `halves`, a `2 * CHUNKS`th (two chunks in flight on
    two threads then hold what one holds alone)."""
    return max(CHUNK_ROWS, -(-length // (CHUNKS * (2 if halves else 1))))


def _check_ranks(run: Frame, conventions: Sequence[Convention]) -> None:
    """A run whose rank column held something else than numbers (which trec_eval never
    reads) is refused by a convention that breaks ties by rank."""
    if isinstance(run, trec.Records) and any(c.tie_break == "rank" for c in conventions):
        run.check_ranks()


def merged(
    parts: Sequence[TopicValues], c: Convention
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, float], Notes]:
    """`evaluate_one`'s result from the values of consecutive chunks of topics. The parts'
    values are moved, measure by measure, so that they never exist twice."""
    notes = parts[0].notes
    for part in parts[1:]:
        add_notes(notes, part.notes)
    values = {}
    for name in list(parts[0].values):
        pieces = [part.values.pop(name) for part in parts]
        values[name] = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
    topics = np.concatenate([part.topics for part in parts])
    filled = np.concatenate([part.filled for part in parts])
    rel = [part.num_rel_all for part in parts]
    return values, topics, means_of(values, filled, None if rel[0] is None else sum(rel), c), notes


def add_notes(notes: Notes, more: Notes) -> None:
    """A later chunk's notes added to the earlier chunks' (not_computed is the same)."""
    notes.run_topics_without_qrels += more.run_topics_without_qrels
    notes.qrels_topics_without_run += more.qrels_topics_without_run
    notes.duplicates_dropped += more.duplicates_dropped
    notes.non_numeric_docnos += more.non_numeric_docnos
    notes.shared_topics += more.shared_topics
    notes.retrieved += more.retrieved
    notes.retrieved_judged += more.retrieved_judged
    notes.topics_with_judged += more.topics_with_judged


def topic_values(p: Prepared, c: Convention, spec: MeasureSpec, text: bool = False) -> TopicValues:
    """The per-topic values of the topics `p` holds, -c's topics without results included
    (the text measures too with `text`)."""
    ranking, rows, evaluated, notes = rank(p, c)
    context = Context(c.interpolation, c.mistake, c.gmax, c.gain)
    values, notes.not_computed = measures.compute(ranking, spec, context, c.ties, text)
    diverse = spec.families & measures.registry.SUBTOPIC_FAMILIES
    if diverse and c.ties == "expected":
        notes.not_computed += sorted(diverse, key=list(measures.FAMILIES).index)
    elif diverse:
        values = _with_diversity(values, p, c, spec, context, ranking, rows, evaluated)
    topics = ranking.topics
    if c.no_relevant_topics == "skip":  # per-topic values do not depend on other topics
        keep = ranking.num_rel > 0
        values = {name: array[keep] for name, array in values.items()}
        topics, evaluated = topics[keep], evaluated[keep]
    q_grade, _ = grades_under(p, c.grades)
    level = max(c.rel_level, 0)
    missing = np.array([], dtype=np.int64)
    num_rel_all = None
    if c.complete:
        missing = np.setdiff1d(arrays.distinct(p.qrels_topic), evaluated, assume_unique=True)
        if c.no_relevant_topics == "skip":
            with_rel = arrays.distinct(p.qrels_topic[q_grade >= level])
            missing = missing[np.isin(missing, with_rel)]
        num_rel_all = float((q_grade > 0).sum())
    filled = np.zeros(len(topics), dtype=bool)
    if len(missing):  # per-topic rows for them, in topic order
        fills = _missing_values(p, c, spec, missing, list(values))
        values = {name: np.concatenate((array, fills[name])) for name, array in values.items()}
        order = np.argsort(np.concatenate((evaluated, missing)), kind="stable")
        topics = np.concatenate((topics, p.topics[missing]))[order]
        values = {name: array[order] for name, array in values.items()}
        filled = np.concatenate((filled, np.ones(len(missing), dtype=bool)))[order]
        evaluated = np.concatenate((evaluated, missing))[order]
    return TopicValues(values, topics, filled, num_rel_all, notes, evaluated)


def _with_diversity(
    values: dict[str, np.ndarray],
    p: Prepared,
    c: Convention,
    spec: MeasureSpec,
    context: Context,
    ranking: Ranking,
    rows: np.ndarray,
    evaluated: np.ndarray,
) -> dict[str, np.ndarray]:
    """`values` and the diversity measures of the ranked rows (the run rows the ordered
    measures see, cut at -M, then -J), in print order."""
    topic = p.run_topic[rows]
    starts = np.searchsorted(topic, evaluated, "left")
    ends = np.searchsorted(topic, evaluated, "right")
    docnos = p.run_docno[rows] if len(rows) else np.zeros(0, dtype=object)
    ranked = [docnos[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    cov = p.subtopics.coverage([str(t) for t in ranking.topics], ranked, c.rel_level)
    values = {**values, **measures.registry.compute_diversity(cov, spec, context)}
    order = {name: i for i, name in enumerate(measures.FAMILIES)}
    return {n: values[n] for n in sorted(values, key=lambda n: order[measures.family_of(n).name])}


def means_of(
    values: dict[str, np.ndarray], filled: np.ndarray, num_rel_all: float | None, c: Convention
) -> dict[str, float]:
    """The `all` values of per-topic `values` (topics in order; `filled` marks -c's topics
    without results; `num_rel_all` -c's judgments of every qrels topic)."""
    means = RunningMeans(c)
    means.add(values, filled, num_rel_all)
    return means.result()


class RunningMeans:
    """The `all` values of a run's topics added chunk by chunk, in topic order: the same
    bits as all topics at once, without keeping their per-topic values.

    trec_eval 9 leaves -c's topics without results out of the sum and counts
    them in the divisor; trec_eval 10 adds their values in topic order. A text
    measure has none.
    """

    def __init__(self, c: Convention):
        self.c = c
        self.partial: dict[str, measures.aggregation.Partial] = {}
        self.missing = 0
        self.num_rel_all: float | None = None

    def add(
        self, values: dict[str, np.ndarray], filled: np.ndarray, num_rel_all: float | None
    ) -> None:
        """Add a chunk's per-topic values (the chunks in topic order; `filled` and
        `num_rel_all` as `TopicValues` has them)."""
        keep: slice | np.ndarray = slice(None)
        if self.c.missing_topics == "mean_only":
            self.missing += int(filled.sum())
            keep = ~filled
        if num_rel_all is not None:
            self.num_rel_all = (self.num_rel_all or 0.0) + num_rel_all
        for name, array in values.items():
            if not measures.registry.is_text(name):
                before = self.partial.get(name)
                self.partial[name] = measures.aggregation.added(name, before, array[keep])

    def result(self) -> dict[str, float]:
        """The `all` value of every measure added."""
        return {
            name: measures.aggregation.finished(name, partial, self.missing, self.num_rel_all)
            for name, partial in self.partial.items()
        }


def evaluate(
    qrels: pd.DataFrame | None,
    run: pd.DataFrame | None,
    conventions: Sequence[Convention] = (REFERENCE,),
    spec: MeasureSpec | None = None,
    run_name: str | None = None,
    prepared: Prepared | Sequence[Callable[[], Prepared]] | None = None,
) -> pd.DataFrame:
    """The long table (run, convention, topic, measure, value) for every convention.

    Per-topic rows come first, topic by topic in string order, then the `all`
    rows with trec_eval's aggregates. gm_map and gm_bpref have only an `all` row.
    `attrs["not_computed"]` maps a convention's name to the requested families it
    has no form for (bpref under expected ties): they have no rows. `prepared` is
    `prepare(qrels, run)` when the caller has made it already, to use it again, or
    functions that each prepare a range of consecutive topics, to run on threads
    (`ranking.from_dicts`'; then qrels and run may be None).
    """
    spec = spec or MeasureSpec()
    _check_ranks(run, conventions)
    name = run_name or run_tag(run)
    keys = [ranking_key(c) for c in conventions]
    last_use = {key: i for i, key in enumerate(keys)}

    def scored(make: Callable[[], Prepared]) -> list[TopicValues]:
        p, parts = make(), []
        for i, c in enumerate(conventions):
            parts.append(topic_values(p, c, spec))
            if last_use[keys[i]] == i:  # no later convention shares this ranking: free it
                del p.rankings[keys[i]]
        return parts

    if isinstance(prepared, Prepared):
        makers = [lambda: prepared]
    elif prepared is not None:
        makers = list(prepared)
    else:
        length = run.table.num_rows if isinstance(run, trec.Records) else len(run)
        makers = chunk_makers(qrels, run, -(-length // 2) if length >= THREADED_ROWS else None)
    from irscore.engine.system import threads  # concurrent.futures: ~10 ms of start-up, when used

    with threads.pool(len(makers)) as pool:
        chunks = list(pool.map(scored, makers))
    return grid_table(name, conventions, [[parts[i] for parts in chunks] for i in range(len(keys))])


def grid_table(
    name: str, conventions: Sequence[Convention], parts: Sequence[Sequence[TopicValues]]
) -> pd.DataFrame:
    """`evaluate`'s long table from each convention's values of consecutive chunks of
    topics (`parts[i]` under `conventions[i]`, in topic order), with its attrs."""
    tables, not_computed, first = [], {}, None
    for c, chunks in zip(conventions, parts, strict=True):
        values, topics, means, notes = merged(chunks, c)
        first = first or notes
        tables.append(long_table(name, c, values, topics, means))
        if notes.not_computed:
            not_computed[c.name] = list(notes.not_computed)
    table = concat_long(tables)
    table.attrs["not_computed"] = not_computed
    table.attrs["notes"] = first  # how run and qrels meet (the same under every convention)
    return table
